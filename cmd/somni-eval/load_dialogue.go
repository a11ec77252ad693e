package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/index/rank"
)

// dialogueKinds are the question kinds of the dialogue set, in print order.
var dialogueKinds = []string{"single", "multi", "temporal", "open"}

// dialogue is one long multi-session conversation between two speakers
// (testdata/recall/dialogues/*.txt): every turn is one knowledge entry,
// as if each had been remembered on its own, and the questions are asked
// on `now`, after the last session.
type dialogue struct {
	id       string
	lang     string
	speakers []string
	now      time.Time
	sessions int
	docs     []rank.Doc  // one knowledge entry per turn
	turns    []rank.Turn // the same turns as a session log holds them
	qs       []evalQuery // Tier is the question kind
}

var (
	dialogueHeader   = regexp.MustCompile(`^# (id|lang|speakers|now): (.+)$`)
	dialogueSession  = regexp.MustCompile(`^== session (\d+) · (\d{4}-\d\d-\d\d \d\d:\d\d)$`)
	dialogueQuestion = regexp.MustCompile(`^(single|multi|temporal|open) \| (.+?) => ([\d.,\s]+)$`)
)

// dialogueTurnPath is where a turn's knowledge entry lives: the path
// recall reports for it.
func dialogueTurnPath(id string, session, turn int) string {
	return fmt.Sprintf("memory/knowledge/%s-s%d-t%d/SKILL.md", id, session, turn)
}

// loadDialogues reads every dialogues/*.txt file in dir, in name order.
func loadDialogues(dir string) ([]*dialogue, error) {
	files, err := filepath.Glob(filepath.Join(dir, "dialogues", "*.txt"))
	if err != nil {
		return nil, fmt.Errorf("list dialogues: %w", err)
	}
	sort.Strings(files)
	var out, hant []*dialogue
	for _, f := range files {
		d, err := loadDialogue(f, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
		if d.lang != "zh" {
			continue
		}
		// the Chinese dialogues again in Traditional characters (converter)
		conv, _, err := converter(d.lang + hantSuffix)
		if err != nil {
			return nil, err
		}
		h, err := loadDialogue(f, conv)
		if err != nil {
			return nil, err
		}
		if len(h.qs) != len(d.qs) {
			return nil, fmt.Errorf("%s: %d questions in Traditional, %d as written", f, len(h.qs), len(d.qs))
		}
		for i := range h.qs {
			h.qs[i].Source = d.qs[i].Q // the same half as the question it was converted from
		}
		h.lang += hantSuffix
		hant = append(hant, h)
	}
	return append(out, hant...), nil
}

// loadDialogue parses one dialogue file (format: testdata/recall/README.md),
// each line converted by conv first unless it is nil.
func loadDialogue(file string, conv func(string) (string, error)) (*dialogue, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read dialogue: %w", err)
	}
	defer f.Close()
	base := filepath.Base(file)
	p := dialogueParser{d: &dialogue{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if conv != nil {
			if line, err = conv(line); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", base, ln, err)
			}
		}
		if err := p.line(strings.TrimSpace(line)); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", base, ln, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read dialogue %s: %w", base, err)
	}
	d := p.d
	if d.id == "" || len(d.speakers) != 2 || d.now.IsZero() || !d.now.After(p.when) || len(d.qs) == 0 {
		return nil, fmt.Errorf("%s: needs # id, two # speakers, a # now after the last session, and questions", base)
	}
	d.sessions = len(p.turns)
	return d, nil
}

// dialogueParser is loadDialogue's state between lines: the turns so far
// per session, the current session's time, and whether the questions began.
type dialogueParser struct {
	d           *dialogue
	turns       []int // per session
	when        time.Time
	inQuestions bool
}

// line takes one trimmed line: a header, a session start, a question
// (after "== questions") or a turn.
func (p *dialogueParser) line(line string) error {
	if line == "" {
		return nil
	}
	if m := dialogueHeader.FindStringSubmatch(line); m != nil {
		return p.header(m[1], m[2])
	}
	if line == "== questions" {
		p.inQuestions = true
		return nil
	}
	if m := dialogueSession.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		t, err := time.ParseInLocation(dates.MinuteLayout, m[2], time.UTC)
		if err != nil || n != len(p.turns)+1 || !t.After(p.when) || p.inQuestions {
			return errors.New("sessions must be numbered 1, 2, … with increasing times, before the questions")
		}
		p.turns, p.when = append(p.turns, 0), t
		return nil
	}
	if p.inQuestions {
		return p.question(line)
	}
	return p.turn(line)
}

func (p *dialogueParser) header(key, value string) error {
	d := p.d
	switch key {
	case "id":
		d.id = value
	case "lang":
		d.lang = value
	case "speakers":
		for _, s := range strings.Split(value, ",") {
			d.speakers = append(d.speakers, strings.TrimSpace(s))
		}
	case "now":
		t, err := time.ParseInLocation(dates.Layout, value, time.UTC)
		if err != nil {
			return errors.New("now: want YYYY-MM-DD")
		}
		d.now = t.Add(12 * time.Hour)
	}
	return nil
}

// question parses "kind | question => S.T, …"; gold turns must exist.
func (p *dialogueParser) question(line string) error {
	m := dialogueQuestion.FindStringSubmatch(line)
	if m == nil {
		return errors.New("want 'kind | question => S.T, …'")
	}
	q := evalQuery{Tier: m[1], Q: strings.TrimSpace(m[2])}
	for _, ref := range strings.Split(m[3], ",") {
		s, t, ok := strings.Cut(strings.TrimSpace(ref), ".")
		sn, err1 := strconv.Atoi(s)
		tn, err2 := strconv.Atoi(t)
		if !ok || err1 != nil || err2 != nil || sn < 1 || sn > len(p.turns) || tn < 1 || tn > p.turns[sn-1] {
			return fmt.Errorf("no turn %q", ref)
		}
		q.Gold = append(q.Gold, dialogueTurnPath(p.d.id, sn, tn))
	}
	p.d.qs = append(p.d.qs, q)
	return nil
}

// turn adds "<speaker>: text" as a knowledge entry shaped the way a
// remembered exchange is stored: the speaker and the words in the body,
// the session's time in the description and as the entry's date (its
// `created`); and as the session-log turn it was.
func (p *dialogueParser) turn(line string) error {
	d := p.d
	speaker, text, ok := strings.Cut(line, ": ")
	if !ok || len(p.turns) == 0 || !slices.Contains(d.speakers, speaker) || d.id == "" {
		return errors.New("want '<speaker>: text' inside a session (after the # id and # speakers lines)")
	}
	s := len(p.turns)
	p.turns[s-1]++
	t, when := p.turns[s-1], p.when
	d.turns = append(d.turns, rank.Turn{Path: dialogueTurnPath(d.id, s, t), Session: fmt.Sprint(s),
		Role: "user", Text: speaker + ": " + strings.TrimSpace(text), When: when})
	d.docs = append(d.docs, rank.Doc{
		Path:        dialogueTurnPath(d.id, s, t),
		Kind:        rank.KindKnowledge,
		Name:        fmt.Sprintf("%s-s%d-t%d", d.id, s, t),
		Description: fmt.Sprintf("session %d, %s", s, when.Format(dates.MinuteLayout)),
		Body:        speaker + ": " + strings.TrimSpace(text),
		Type:        "experience",
		Score:       0.5,
		When:        when,
	})
	return nil
}
