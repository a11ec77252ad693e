package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index"
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
	docs     []index.Doc  // one knowledge entry per turn
	turns    []index.Turn // the same turns as a session log holds them
	qs       []evalQuery  // Tier is the question kind
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
	var out []*dialogue
	for _, f := range files {
		d, err := loadDialogue(f)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// loadDialogue parses one dialogue file (format: testdata/recall/README.md).
// A turn is a knowledge entry shaped the way a remembered exchange is
// stored: the speaker and the words in the body, the session's time in
// the description and as the entry's date (its `created`).
func loadDialogue(file string) (*dialogue, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read dialogue: %w", err)
	}
	defer f.Close()
	base := filepath.Base(file)
	d := &dialogue{}
	var turns []int // per session
	var when time.Time
	inQuestions := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		bad := func(what string) error { return fmt.Errorf("%s:%d: %s", base, ln, what) }
		if line == "" {
			continue
		}
		if m := dialogueHeader.FindStringSubmatch(line); m != nil {
			switch m[1] {
			case "id":
				d.id = m[2]
			case "lang":
				d.lang = m[2]
			case "speakers":
				for _, s := range strings.Split(m[2], ",") {
					d.speakers = append(d.speakers, strings.TrimSpace(s))
				}
			case "now":
				t, err := time.ParseInLocation(time.DateOnly, m[2], time.UTC)
				if err != nil {
					return nil, bad("now: want YYYY-MM-DD")
				}
				d.now = t.Add(12 * time.Hour)
			}
			continue
		}
		if line == "== questions" {
			inQuestions = true
			continue
		}
		if m := dialogueSession.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			t, err := time.ParseInLocation("2006-01-02 15:04", m[2], time.UTC)
			if err != nil || n != len(turns)+1 || !t.After(when) || inQuestions {
				return nil, bad("sessions must be numbered 1, 2, … with increasing times, before the questions")
			}
			turns, when = append(turns, 0), t
			continue
		}
		if inQuestions {
			m := dialogueQuestion.FindStringSubmatch(line)
			if m == nil {
				return nil, bad("want 'kind | question => S.T, …'")
			}
			q := evalQuery{Tier: m[1], Q: strings.TrimSpace(m[2])}
			for _, ref := range strings.Split(m[3], ",") {
				s, t, ok := strings.Cut(strings.TrimSpace(ref), ".")
				sn, err1 := strconv.Atoi(s)
				tn, err2 := strconv.Atoi(t)
				if !ok || err1 != nil || err2 != nil || sn < 1 || sn > len(turns) || tn < 1 || tn > turns[sn-1] {
					return nil, bad(fmt.Sprintf("no turn %q", ref))
				}
				q.Gold = append(q.Gold, dialogueTurnPath(d.id, sn, tn))
			}
			d.qs = append(d.qs, q)
			continue
		}
		speaker, text, ok := strings.Cut(line, ": ")
		if !ok || len(turns) == 0 || !slices.Contains(d.speakers, speaker) || d.id == "" {
			return nil, bad("want '<speaker>: text' inside a session (after the # id and # speakers lines)")
		}
		s := len(turns)
		turns[s-1]++
		d.turns = append(d.turns, index.Turn{Path: dialogueTurnPath(d.id, s, turns[s-1]), Session: fmt.Sprint(s),
			Role: "user", Text: speaker + ": " + strings.TrimSpace(text), When: when})
		d.docs = append(d.docs, index.Doc{
			Path:        dialogueTurnPath(d.id, s, turns[s-1]),
			Kind:        index.KindKnowledge,
			Name:        fmt.Sprintf("%s-s%d-t%d", d.id, s, turns[s-1]),
			Description: fmt.Sprintf("session %d, %s", s, when.Format("2006-01-02 15:04")),
			Body:        speaker + ": " + strings.TrimSpace(text),
			Type:        "experience",
			Score:       0.5,
			When:        when,
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read dialogue %s: %w", base, err)
	}
	if d.id == "" || len(d.speakers) != 2 || d.now.IsZero() || !d.now.After(when) || len(d.qs) == 0 {
		return nil, fmt.Errorf("%s: needs # id, two # speakers, a # now after the last session, and questions", base)
	}
	d.sessions = len(turns)
	return d, nil
}

// recallTally is R@5 and R@10 (the share of a question's evidence turns
// found in the top k, averaged over questions) per kind.
type recallTally struct {
	r5, r10 map[string]float64
	n       map[string]int
}

func newRecallTally() *recallTally {
	return &recallTally{r5: map[string]float64{}, r10: map[string]float64{}, n: map[string]int{}}
}

func (t *recallTally) add(kind string, top []string, gold []string) {
	found := func(k int) float64 {
		in := map[string]bool{}
		for _, p := range top[:min(k, len(top))] {
			in[p] = true
		}
		n := 0
		for _, g := range gold {
			if in[g] {
				n++
			}
		}
		return float64(n) / float64(len(gold))
	}
	for _, key := range []string{kind, "all"} {
		t.r5[key] += found(5)
		t.r10[key] += found(10)
		t.n[key]++
	}
}

func (t *recallTally) cell(kind string) string {
	if t.n[kind] == 0 {
		return "–"
	}
	n := float64(t.n[kind])
	return fmt.Sprintf("%.2f / %.2f", t.r5[kind]/n, t.r10[kind]/n)
}

// dialogueRow is one system's tallies over every dialogue, by half.
type dialogueRow struct {
	name string
	by   map[string]*recallTally // "all", halfTune, halfHeld
}

// runDialogues indexes each dialogue on its own (questions are asked of
// their own conversation, on its `now`) once per system and prints R@5 /
// R@10 per question kind, with each system's R@5 over BM25's.
func runDialogues(ctx context.Context, w io.Writer, logger *slog.Logger, ds []*dialogue, embs []embed.Embedder, listHalf string, verbose bool) error {
	if len(ds) == 0 {
		return nil
	}
	for _, rep := range []struct {
		title string
		docs  func(*dialogue) []index.Doc
	}{
		{"one knowledge entry each", func(d *dialogue) []index.Doc { return d.docs }},
		{"as session-log turns, each with the turn before it as context (search_recent_conversation)",
			func(d *dialogue) []index.Doc { return index.TurnDocs(d.turns) }},
	} {
		if err := runDialogueSet(ctx, w, logger, ds, rep.title, rep.docs, embs, listHalf, verbose); err != nil {
			return err
		}
	}
	return nil
}

// runDialogueSet is runDialogues for one representation of the turns.
func runDialogueSet(ctx context.Context, w io.Writer, logger *slog.Logger, ds []*dialogue, title string,
	docsOf func(*dialogue) []index.Doc, embs []embed.Embedder, listHalf string, verbose bool) error {
	var rows []*dialogueRow
	rowOf := func(name string) *dialogueRow {
		for _, r := range rows {
			if r.name == name {
				return r
			}
		}
		r := &dialogueRow{name: name, by: map[string]*recallTally{"all": newRecallTally(), halfTune: newRecallTally(), halfHeld: newRecallTally()}}
		rows = append(rows, r)
		return r
	}
	turns, questions := 0, 0
	for _, d := range ds {
		turns += len(d.docs)
		assignHalves(d.qs)
		qs := d.qs
		if listHalf != "" {
			qs = keepHalf(qs, listHalf)
		}
		questions += len(qs)
		docs := docsOf(d)
		systems := []*system{bm25System(docs, false)}
		if docs[len(docs)-1].Context != "" {
			systems = append(systems, bm25System(docs, true))
		}
		for _, e := range embs {
			s, err := indexSystem(ctx, "hybrid/"+e.ID(), e, docs, logger, d.now)
			if err != nil {
				return fmt.Errorf("dialogue %s, %s: %w", d.id, e.ID(), err)
			}
			systems = append(systems, s)
		}
		for _, s := range systems {
			if explainQ != "" {
				explain(ctx, w, s, qs, explainQ)
			}
			r := rowOf(s.name)
			for _, q := range qs {
				top, err := s.search(ctx, q.Q, 10)
				if err != nil {
					s.close()
					return fmt.Errorf("dialogue %s, %s: %w", d.id, s.name, err)
				}
				r.by["all"].add(q.Tier, top, q.Gold)
				r.by[q.Half].add(q.Tier, top, q.Gold)
				if verbose && (listHalf == "" || q.Half == listHalf) && !anyIn(top[:min(5, len(top))], q.Gold) {
					fmt.Fprintf(w, "miss %s %s/%s %q gold %v top %v\n", s.name, q.Tier, q.Half, q.Q, shortPaths(q.Gold), shortPaths(head(top, 5)))
				}
			}
			s.close()
		}
	}
	fmt.Fprintf(w, "## dialogues: %d conversations, %d turns (%s), %d questions\n\n", len(ds), turns, title, questions)
	for _, part := range []struct{ key, title string }{{halfHeld, "held-out half"}, {halfTune, "tuning half"}, {"all", "all questions"}} {
		if listHalf != "" && part.key != listHalf && part.key != "all" {
			continue
		}
		base := rows[0].by[part.key]
		fmt.Fprintf(w, "### dialogues, %s (R@5 / R@10; ×BM25 is R@5 over the BM25 baseline's)\n\n", part.title)
		fmt.Fprintln(w, "| system | single | multi-hop | temporal | open-domain | all | ×BM25 |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, r := range rows {
			t := r.by[part.key]
			ratio := "–"
			if b := base.r5["all"]; b > 0 && t.n["all"] > 0 {
				ratio = fmt.Sprintf("%.2f", t.r5["all"]/b)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", r.name, t.cell("single"), t.cell("multi"),
				t.cell("temporal"), t.cell("open"), t.cell("all"), ratio)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func anyIn(xs, want []string) bool {
	return slices.ContainsFunc(xs, func(x string) bool { return slices.Contains(want, x) })
}

// shortPaths shows turn entries by name (d1-s3-t5) in -v listings.
func shortPaths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = filepath.Base(filepath.Dir(p))
	}
	return out
}
