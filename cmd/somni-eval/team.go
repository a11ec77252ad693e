package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/index/rank"
)

// A team pool is a team's shared folder of somni entries,
// indexed in the same recall index beside the personal memory; its
// entries' paths lie under the pool's folder, outside the data dir. The
// eval mounts one of unrelated entries beside each personal pool and asks
// the pool's questions again (team_run.go): recall must not fall.

// teamRoot is the mounted pool's folder: no path of a personal pool, and
// so no gold path, starts with it.
const teamRoot = "/team-pool/"

// teamCap bounds a team pool: as many entries as the personal pool it is
// mounted beside, at most this many, so that a run stays within minutes
// on two cores (the local embedder reads every entry of both runs).
const teamCap = 2000

// teamPath is where a team entry lives.
func teamPath(name string) string {
	return teamRoot + "knowledge/" + name + "/SKILL.md"
}

// isTeamPath is whether p is a team entry's path.
func isTeamPath(p string) bool { return strings.HasPrefix(p, teamRoot) }

// shared is what every index of the run is told is shared with the user
// (index.Options.Shared), as the sidecar tells it of a mounted pool: the
// team pool's entries, or when the gold is a teammate's (teamGold) every
// other entry (the set's own, gold among them), the unrelated entries
// then being the user's own.
func (cfg config) shared() func(string) bool {
	if cfg.teamGold {
		return func(p string) bool { return !isTeamPath(p) }
	}
	return isTeamPath
}

// teamSource is the unrelated entries a language's team pools are picked
// from, in a fixed order, and where they came from.
type teamSource struct {
	lang, from string
	owner      string // the user or persona whose records these are, "" for many
	docs       []rank.Doc
}

// pick is n entries spread evenly over the source (all when it has no
// more): every part of it, not the first file's alone.
func (s *teamSource) pick(n int) []rank.Doc {
	if s == nil || n <= 0 {
		return nil
	}
	if n >= len(s.docs) {
		return append([]rank.Doc(nil), s.docs...)
	}
	out := make([]rank.Doc, n)
	for i := range out {
		out[i] = s.docs[i*len(s.docs)/n]
	}
	return out
}

// converted is the source with every text converted by conv (Traditional
// team entries beside a Traditional set).
func (s *teamSource) converted(lang string, conv func(string) (string, error)) (*teamSource, error) {
	out := &teamSource{lang: lang, from: s.from + ", in Traditional characters", owner: s.owner, docs: make([]rank.Doc, len(s.docs))}
	for i, d := range s.docs {
		for _, f := range []*string{&d.Description, &d.Body} {
			c, err := conv(*f)
			if err != nil {
				return nil, err
			}
			*f = c
		}
		out.docs[i] = d
	}
	return out, nil
}

// teamDoc is one team entry as a person or a dreamer files knowledge: a
// name, a type, a one-line description and the text.
func teamDoc(name, typ, description, body string) rank.Doc {
	if description == "" {
		description = firstSentence(body)
	}
	return rank.Doc{Path: teamPath(name), Kind: rank.KindKnowledge, Type: typ, Name: name,
		Description: description, Body: body, Score: 0.5}
}

// firstSentence is text's first sentence or line, at most 160 runes.
func firstSentence(text string) string {
	text = strings.TrimSpace(text)
	end := len(text)
	for _, sep := range []string{"\n", ". ", "? ", "! ", "。", "？", "！"} {
		if i := strings.Index(text, sep); i >= 0 && i+len(sep) < end {
			end = i + len(sep)
		}
	}
	s := strings.TrimSpace(text[:end])
	if utf8.RuneCountInString(s) > 160 {
		s = string([]rune(s)[:160])
	}
	return s
}

// memorycodeTeam is the English source: the mentor's turns of every
// MemoryCode session that gives a coding instruction, dialogues in
// number order — a team's coding conventions, as a mentor states them.
func memorycodeTeam(dir string) (*teamSource, error) {
	files, err := filepath.Glob(filepath.Join(dir, "dataset", "dialogue_*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("team pool: no dataset/dialogue_*.json in %s", dir)
	}
	sort.Slice(files, func(i, j int) bool { return dialogueNumber(files[i]) < dialogueNumber(files[j]) })
	src := &teamSource{lang: "en", from: "MemoryCode's mentor turns giving coding instructions"}
	for _, f := range files {
		var d memorycodeDialogue
		if err := readBenchJSON(f, &d); err != nil {
			return nil, fmt.Errorf("team pool: memorycode: %w", err)
		}
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		for s, sess := range d.Sessions {
			var pairs [][2]int // [[instruction, version], …], or [-1] for none
			if s >= len(d.Instructions) || json.Unmarshal(d.Instructions[s], &pairs) != nil || len(pairs) == 0 {
				continue
			}
			for t, tx := range memorycodeTurns(sess.Text, d.Context.Mentor, d.Context.Mentee) {
				if tx.role == "user" {
					name := fmt.Sprintf("memorycode-%s-s%d-t%d", id, s+1, t+1)
					src.docs = append(src.docs, teamDoc(name, "procedure", "", tx.text))
				}
			}
		}
	}
	return src, nil
}

// dialogueNumber is n of dialogue_<n>.json.
func dialogueNumber(file string) int {
	n := 0
	fmt.Sscanf(strings.TrimPrefix(filepath.Base(file), "dialogue_"), "%d", &n)
	return n
}

// lifebenchTeam is the Chinese source: every phone record of the last
// LifeBench user by folder name (one the default and outside sizes do not
// ask), its summary as the description where it has one.
func lifebenchTeam(dir string) (*teamSource, error) {
	user, err := lastFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("team pool: lifebench: %w", err)
	}
	recs, err := lifebenchRecords(filepath.Join(dir, user, "phone_data"), user)
	if err != nil {
		return nil, fmt.Errorf("team pool: lifebench %s: %w", user, err)
	}
	src := &teamSource{lang: "zh", from: "LifeBench zh user " + user + "'s phone records", owner: user}
	for _, r := range recs {
		src.docs = append(src.docs, teamDoc(r.doc.Name, "fact", r.doc.Description, r.doc.Body))
	}
	return src, nil
}

// lastFolder is the last sub-folder of dir by name.
func lastFolder(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	last := ""
	for _, e := range entries {
		if e.IsDir() && e.Name() > last {
			last = e.Name()
		}
	}
	if last == "" {
		return "", fmt.Errorf("no user folder in %s", dir)
	}
	return last, nil
}

// realmemTeam is the English source beside MemoryCode itself: every turn
// of the last RealMem persona by file name (one the default and outside
// sizes do not ask), a persona's chats about its own projects.
func realmemTeam(dir string) (*teamSource, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_dialogues_256k.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("team pool: no *_dialogues_256k.json in %s", dir)
	}
	sort.Strings(files)
	var f realmemFile
	if err := readBenchJSON(files[len(files)-1], &f); err != nil {
		return nil, fmt.Errorf("team pool: realmem: %w", err)
	}
	persona := strings.TrimSuffix(filepath.Base(files[len(files)-1]), "_dialogues_256k.json")
	src := &teamSource{lang: "en", from: "RealMem persona " + persona + "'s turns", owner: persona}
	for _, s := range f.Sessions {
		for n, t := range s.Turns {
			name := fmt.Sprintf("realmem-%s-%s-t%d", persona, s.UUID, n+1)
			src.docs = append(src.docs, teamDoc(name, "experience", "", t.Content))
		}
	}
	return src, nil
}

// mountTeam is the first step's entries of u with its team pool beside
// them, after checking that the two cannot be told apart by anything but
// the folder: every team path is under teamRoot, no personal path of any
// step and no gold path is, and no path repeats.
func mountTeam(u *teamUnit) ([]rank.Doc, error) {
	seen := map[string]bool{}
	for _, st := range u.steps {
		for _, d := range st.add {
			if isTeamPath(d.Path) {
				return nil, fmt.Errorf("team pool: personal entry %s lies under %s", d.Path, teamRoot)
			}
			seen[d.Path] = true
		}
		for _, q := range st.qs {
			for _, g := range q.Gold {
				if isTeamPath(g) {
					return nil, fmt.Errorf("team pool: question %q has a team entry %s as gold", cut(q.Q, 40), g)
				}
			}
		}
	}
	for _, d := range u.team {
		if !isTeamPath(d.Path) || seen[d.Path] {
			return nil, fmt.Errorf("team pool: entry %s outside %s or repeated", d.Path, teamRoot)
		}
		seen[d.Path] = true
	}
	if len(u.steps) == 0 {
		return u.team, nil
	}
	return append(append([]rank.Doc(nil), u.team...), u.steps[0].add...), nil
}
