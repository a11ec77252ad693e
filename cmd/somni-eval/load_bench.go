package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/index/rank"
)

// benchmark is one public benchmark in one language: memory pools (one
// per user, as the benchmark scores them) and the questions asked of each.
type benchmark struct {
	name, lang string
	pools      []*benchPool
}

// benchPool is one user's memory archive and what is asked of it: qs are
// recall queries (the dialogue before the turn that should bring a memory
// up), cues the hint cues of the same dialogues (the user's last turns
// before it). Both carry the relevant memories as Gold and the dialogue's
// half.
type benchPool struct {
	user string
	now  time.Time
	docs []rank.Doc
	qs   []evalQuery
	cues []evalQuery
}

// madialLine is one dialogue of MADial-Bench: speaker-tagged lines
// between <BOD> and <EOD>, the assistant turns that should bring a memory
// up, and the ids of those memories in the user's archive.
type madialLine struct {
	Dialogue []string `json:"dialogue"`
	TestTurn []int    `json:"test-turn"`
	Relevant []int    `json:"relevant-id"`
	User     int      `json:"user-id"`
}

// madialMemory is one archived event; the English archive has no user-id,
// so the user is the one the event names.
type madialMemory struct {
	Time    string `json:"time"`
	Scene   string `json:"scene"`
	Emotion string `json:"emotion"`
	Event   string `json:"event"`
	User    int    `json:"user-id"`
}

// madialUsers are the benchmark's two users by id.
var madialUsers = map[int]string{1: "Bart", 2: "Lisa"}

// madialSpeaker splits a dialogue line into speaker and text:
// `<Bart>: "Hey…"` or `<Bart>:"嘿…"`.
var madialSpeaker = regexp.MustCompile(`^<([^>]+)>\s*[:：]\s*(.*)$`)

// loadMADial reads MADial-Bench's files for lang (en, zh, or zh-Hant: the
// Chinese files in Traditional characters, see converter) from dir:
// testdata/recall/madial holds them unchanged, with their licence.
func loadMADial(dir, lang string) (*benchmark, error) {
	conv, files, err := converter(lang)
	if err != nil {
		return nil, err
	}
	mems, err := readJSONLines[map[string]madialMemory](filepath.Join(dir, "MADial-Bench-"+files+"-memory.json"))
	if err != nil {
		return nil, err
	}
	lines, err := readJSONLines[madialLine](filepath.Join(dir, "MADial-Bench-"+files+"-dialogue.json"))
	if err != nil {
		return nil, err
	}
	if conv != nil {
		if err := convertMADial(mems, lines, conv); err != nil {
			return nil, fmt.Errorf("madial %s: %w", lang, err)
		}
	}
	pools := map[int]*benchPool{}
	for id, name := range madialUsers {
		pools[id] = &benchPool{user: name}
	}
	owner := map[int]int{} // memory id → user id
	for _, m := range mems {
		for key, mem := range m {
			id, err := strconv.Atoi(key)
			if err != nil {
				return nil, fmt.Errorf("madial %s: memory id %q: %w", lang, key, err)
			}
			user := mem.User
			if user == 0 {
				user = madialOwner(mem.Event)
			}
			p := pools[user]
			if p == nil {
				return nil, fmt.Errorf("madial %s: memory %d belongs to no known user", lang, id)
			}
			d, err := madialDoc(id, mem)
			if err != nil {
				return nil, fmt.Errorf("madial %s: memory %d: %w", lang, id, err)
			}
			owner[id] = user
			p.docs = append(p.docs, d)
			if d.When.After(p.now) {
				p.now = d.When
			}
		}
	}
	for i, l := range lines {
		if err := addMADialDialogue(pools, owner, i, l); err != nil {
			return nil, fmt.Errorf("madial %s: dialogue %d: %w", lang, i, err)
		}
	}
	b := &benchmark{name: "MADial-Bench", lang: lang}
	for _, id := range []int{1, 2} {
		p := pools[id]
		sort.Slice(p.docs, func(i, j int) bool { return p.docs[i].Path < p.docs[j].Path })
		// questions are asked the day after the archive's last memory, so
		// "last Christmas" means what the user meant
		p.now = p.now.AddDate(0, 0, 1)
		b.pools = append(b.pools, p)
	}
	return b, nil
}

// convertMADial converts every text of the archive and the dialogues in place.
func convertMADial(mems []map[string]madialMemory, lines []madialLine, conv func(string) (string, error)) error {
	for _, m := range mems {
		for id, mem := range m {
			for _, s := range []*string{&mem.Scene, &mem.Emotion, &mem.Event} {
				c, err := conv(*s)
				if err != nil {
					return err
				}
				*s = c
			}
			m[id] = mem
		}
	}
	for i := range lines {
		for j, s := range lines[i].Dialogue {
			c, err := conv(s)
			if err != nil {
				return err
			}
			lines[i].Dialogue[j] = c
		}
	}
	return nil
}

// madialOwner is the user an English event names.
func madialOwner(event string) int {
	for id, name := range madialUsers {
		if strings.Contains(event, name) {
			return id
		}
	}
	return 0
}

// madialPath is where memory id lives: an episode, as the dreamer files
// a dated event.
func madialPath(id int) string {
	return fmt.Sprintf("memory/episodes/event-%d/SKILL.md", id)
}

// madialDoc is an archived event as the dreamer writes an episode: the
// event as its text, the day as `when`, scene and feeling as tags.
func madialDoc(id int, m madialMemory) (rank.Doc, error) {
	when, err := time.ParseInLocation(dates.Layout, m.Time, time.UTC)
	if err != nil {
		return rank.Doc{}, fmt.Errorf("time %q: %w", m.Time, err)
	}
	return rank.Doc{
		Path: madialPath(id), Kind: rank.KindEpisode, Type: "episode",
		Name: fmt.Sprintf("event-%d", id), Description: m.Event, Body: m.Event,
		Tags: []string{m.Scene, m.Emotion}, When: when,
	}, nil
}

// addMADialDialogue adds dialogue i to its user's pool: the lines before
// its first test turn as the recall query, the user's last two turns
// before it as the hint cue. The half is the dialogue's position, so a
// dialogue and its translation fall in the same half.
func addMADialDialogue(pools map[int]*benchPool, owner map[int]int, i int, l madialLine) error {
	p := pools[l.User]
	if p == nil || len(l.TestTurn) == 0 || len(l.Relevant) == 0 {
		return fmt.Errorf("needs a known user-id, a test-turn and relevant-ids")
	}
	cut := l.TestTurn[0]
	if cut < 2 || cut > len(l.Dialogue) {
		return fmt.Errorf("test-turn %d outside the dialogue", cut)
	}
	var said, userSaid []string
	for _, raw := range l.Dialogue[:cut] {
		m := madialSpeaker.FindStringSubmatch(strings.TrimSpace(raw))
		if m == nil {
			continue // <BOD>
		}
		text := strings.Trim(strings.TrimSpace(m[2]), `"“”`)
		said = append(said, m[1]+": "+text)
		if m[1] != "Assistant" {
			userSaid = append(userSaid, text)
		}
	}
	if len(userSaid) == 0 {
		return fmt.Errorf("no user turn before the test turn")
	}
	var gold []string
	for _, id := range l.Relevant {
		if owner[id] != l.User {
			return fmt.Errorf("relevant memory %d is not in user %d's archive", id, l.User)
		}
		gold = append(gold, madialPath(id))
	}
	half := halfHeld
	if fnv32("madial-"+strconv.Itoa(i))%2 == 0 {
		half = halfTune
	}
	p.qs = append(p.qs, evalQuery{Tier: "dialogue", Q: strings.Join(said, "\n"), Gold: gold, Half: half})
	cue := userSaid[max(0, len(userSaid)-2):]
	p.cues = append(p.cues, evalQuery{Tier: "cue", Q: strings.Join(cue, "\n"), Gold: gold, Half: half})
	return nil
}

// readJSONLines decodes a file of one JSON value a line.
func readJSONLines[T any](file string) ([]T, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(file), err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for ln := 1; sc.Scan(); ln++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", filepath.Base(file), ln, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(file), err)
	}
	return out, nil
}
