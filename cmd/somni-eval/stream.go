package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/textcut"
)

// realDepth is how many results a question asks for: what a recall
// lists at most, so hit@10 and the order of versions are of what the
// agent is shown.
const realDepth = 10

// maxBenchFile bounds one benchmark file read whole: the largest shipped
// (a RealMem persona, a LifeBench user's agent chats) are under 4 MB.
const maxBenchFile = 32 << 20

// realSet is a public set with pools as large as the set makes them: per
// persona, user or dialogue a stream of entries that grows as that
// memory did, with questions asked along the way of what came before.
type realSet struct {
	name, lang string
	about      string   // how the pool and the question are made, for the table titles
	kinds      []string // question kinds in print order; a question's Tier is one
	streams    []*stream
	skipped    string // why questions were left out, "" when none were
}

// stream is one pool's history: at each step entries join the pool, then
// questions are asked on the step's day.
type stream struct {
	id    string
	steps []streamStep
}

type streamStep struct {
	now time.Time
	add []rank.Doc
	qs  []evalQuery
}

// turnEntries makes each dialogue turn one knowledge entry dated with its
// session: a conversation remembered turn by turn, as recall_memories
// ranks it (the synthetic dialogues' "a turn an entry"). The text is the
// turn's words alone, without its role or session. A turn's Path is its
// entry's path.
func turnEntries(turns []rank.Turn) []rank.Doc {
	docs := make([]rank.Doc, len(turns))
	for i, t := range turns {
		docs[i] = rank.Doc{Path: t.Path, Kind: rank.KindKnowledge, Name: filepath.Base(filepath.Dir(t.Path)),
			Body: t.Text, Type: "experience", Score: 0.5, When: t.When}
	}
	return docs
}

// questions counts a set's questions, of one half when half is not "".
func (rs *realSet) questions(half string) int {
	n := 0
	for _, st := range rs.streams {
		for _, s := range st.steps {
			for _, q := range s.qs {
				if half == "" || q.Half == half {
					n++
				}
			}
		}
	}
	return n
}

// entries counts the entries of a set's pools at their largest.
func (rs *realSet) entries() int {
	n := 0
	for _, st := range rs.streams {
		for _, s := range st.steps {
			n += len(s.add)
		}
	}
	return n
}

// streamScores is a set's R@k rows (one per system, in systems' order)
// and, where questions name superseded evidence, which version came first.
type streamScores struct {
	set   *realSet
	sc    *dialogueScores
	order map[string]map[string]*orderTally // system → half ("all", halfTune, halfHeld)
}

// orderTally counts, over questions whose evidence was updated, whether
// the latest version ranks above every earlier one, below one, or neither
// is in the results.
type orderTally struct {
	latest, old, neither int
}

func (t *orderTally) n() int { return t.latest + t.old + t.neither }

// scoreStreams replays every stream of rs through fresh systems: each
// step grows every system's pool, then asks the step's questions.
func scoreStreams(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config, rs *realSet, embs []embed.Embedder, listHalf string) (*streamScores, error) {
	ss := &streamScores{set: rs, sc: &dialogueScores{}, order: map[string]map[string]*orderTally{}}
	ss.sc.turns = rs.entries()
	ss.sc.questions = rs.questions(listHalf)
	for _, st := range rs.streams {
		systems, err := systemsOver(ctx, cfg, logger, nil, embs, time.Time{}, false)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", rs.name, st.id, err)
		}
		err = ss.replay(ctx, w, cfg, st, systems, listHalf)
		for _, s := range systems {
			s.close()
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", rs.name, st.id, err)
		}
	}
	return ss, nil
}

// replay runs one stream through systems.
func (ss *streamScores) replay(ctx context.Context, w io.Writer, cfg config, st *stream, systems []*system, listHalf string) error {
	for _, step := range st.steps {
		qs := step.qs
		if listHalf != "" {
			qs = keepHalf(qs, listHalf)
		}
		for _, s := range systems {
			if err := s.grow(ctx, step.add, step.now); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			if len(qs) == 0 {
				continue
			}
			if cfg.explain != "" {
				explain(ctx, w, s, qs, cfg.explain)
			}
			if err := ss.ask(ctx, w, cfg, s, qs, listHalf); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
		}
	}
	return nil
}

// ask runs qs through s into its row: hit@5, hit@10 and R@5 per kind, and
// for a question with superseded evidence which version ranks first.
func (ss *streamScores) ask(ctx context.Context, w io.Writer, cfg config, s *system, qs []evalQuery, listHalf string) error {
	r := ss.sc.rowOf(s.name)
	for _, q := range qs {
		top, err := s.search(ctx, q.Q, realDepth)
		if err != nil {
			return err
		}
		r.by["all"].add(q.Tier, top, q.Gold)
		r.by[q.Half].add(q.Tier, top, q.Gold)
		if cfg.verbose && (listHalf == "" || q.Half == listHalf) && !anyIn(head(top, 5), q.Gold) {
			fmt.Fprintf(w, "miss %s %s/%s %q gold %v top %v\n", s.name, q.Tier, q.Half,
				textcut.MarkNewlines(cut(q.Q, 160)), shortPaths(head(q.Gold, 3)), shortPaths(head(top, 5)))
		}
		if len(q.Superseded) == 0 {
			continue
		}
		by := ss.order[s.name]
		if by == nil {
			by = map[string]*orderTally{"all": {}, halfTune: {}, halfHeld: {}}
			ss.order[s.name] = by
		}
		for _, t := range []*orderTally{by["all"], by[q.Half]} {
			t.add(top, q.Gold, q.Superseded)
		}
	}
	return nil
}

// add compares the best rank of the latest version (gold that is not
// superseded) with the best rank of any earlier version.
func (t *orderTally) add(top, gold, superseded []string) {
	latest, old := -1, -1
	for i, p := range top {
		switch {
		case slices.Contains(superseded, p):
			if old < 0 {
				old = i
			}
		case slices.Contains(gold, p):
			if latest < 0 {
				latest = i
			}
		}
	}
	switch {
	case latest >= 0 && (old < 0 || latest < old):
		t.latest++
	case old >= 0:
		t.old++
	default:
		t.neither++
	}
}

// cut shortens s to n runes for a listing.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// readBenchJSON decodes one benchmark file of at most maxBenchFile bytes.
func readBenchJSON(file string, v any) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Base(file), err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBenchFile+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Base(file), err)
	}
	if len(b) > maxBenchFile {
		return fmt.Errorf("read %s: larger than %d MB", filepath.Base(file), maxBenchFile>>20)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parse %s: %w", filepath.Base(file), err)
	}
	return nil
}

// benchFolder is a set's folder under the bench directory, or "" and the
// line the report prints when it is missing, so a checkout without the
// shared data still runs every other set.
func benchFolder(benchDir, name, title string) (string, string, error) {
	dir := filepath.Join(benchDir, name)
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Sprintf("_%s skipped: no %s (-bench-dir or SOMNI_BENCH_DIR names the folder holding it)._\n\n", title, dir), nil
	}
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", title, err)
	}
	if !fi.IsDir() {
		return "", "", fmt.Errorf("%s: %s is not a folder", title, dir)
	}
	return dir, "", nil
}

// halfOfUnit is the half of everything hashed from key: the unit whose
// questions share a pool or a thread (a RealMem session, a LifeBench
// question, a MemoryCode dialogue) falls wholly in one half, by the
// parity of the FNV-1a hash of its key, as assignHalves splits queries.
func halfOfUnit(key string) string {
	if fnv32(key)%2 == 0 {
		return halfTune
	}
	return halfHeld
}

// reportStreams prints a set's tables: held-out, tuning, all questions;
// hit@5 per kind, then hit@5 / hit@10 / R@5 and hit@5 over BM25's; and
// the order of versions where the set measures it.
func reportStreams(w io.Writer, ss *streamScores, listHalf string) {
	rs := ss.set
	fmt.Fprintf(w, "## %s %s: %d pools, %d entries, %d questions (%s)\n\n", rs.name, rs.lang, len(rs.streams), ss.sc.turns, ss.sc.questions, rs.about)
	if rs.skipped != "" {
		fmt.Fprintf(w, "Left out: %s.\n\n", rs.skipped)
	}
	for _, part := range []struct{ key, title string }{{halfHeld, "held-out half"}, {halfTune, "tuning half"}, {"all", "all questions"}} {
		if listHalf != "" && part.key != listHalf && part.key != "all" {
			continue
		}
		if len(ss.sc.rows) == 0 {
			return
		}
		base := ss.sc.rows[0].by[part.key]
		fmt.Fprintf(w, "### %s %s, %s (%d questions; hit@5 per kind; all: hit@5 / hit@10 / R@5)\n\n", rs.name, rs.lang, part.title, base.n["all"])
		head := "| system |"
		for _, k := range rs.kinds {
			head += fmt.Sprintf(" %s (%d) |", k, base.n[k])
		}
		head += " all | hit@5 ×BM25 |"
		if len(ss.order) > 0 {
			head += " latest version first |"
		}
		fmt.Fprintln(w, head)
		fmt.Fprintln(w, "|"+strings.Repeat("---|", strings.Count(head, "|")-1))
		for _, r := range ss.sc.rows {
			t := r.by[part.key]
			line := "| " + r.name + " |"
			for _, k := range rs.kinds {
				line += " " + hitCell(t, k) + " |"
			}
			ratio := "–"
			if base.hit5["all"] > 0 {
				ratio = fmt.Sprintf("%.2f×", float64(t.hit5["all"])/float64(base.hit5["all"]))
			}
			line += fmt.Sprintf(" %s | %s |", allCell(t), ratio)
			if len(ss.order) > 0 {
				line += " " + orderCell(ss.order[r.name], part.key) + " |"
			}
			fmt.Fprintln(w, line)
		}
		fmt.Fprintln(w)
	}
	if len(ss.order) > 0 {
		fmt.Fprintf(w, "Latest version first: of the questions whose instruction was updated, those where an entry of the latest version ranks above every entry of an earlier one in the top %d (latest / earlier first / neither in the top %d).\n\n", realDepth, realDepth)
	}
}

func hitCell(t *recallTally, kind string) string {
	if t.n[kind] == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(t.hit5[kind])/float64(t.n[kind]))
}

func allCell(t *recallTally) string {
	n := float64(t.n["all"])
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f / %.2f / %.2f", float64(t.hit5["all"])/n, float64(t.hit10["all"])/n, t.r5["all"]/n)
}

// orderCell is the tally at key (a half, or a summary's column).
func orderCell(by map[string]*orderTally, key string) string {
	t := by[key]
	if t == nil || t.n() == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f (%d / %d / %d)", float64(t.latest)/float64(t.n()), t.latest, t.old, t.neither)
}
