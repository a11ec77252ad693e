package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// tally is one system's results on one slice of a query set.
type tally struct {
	hit1, hit3, hit5 map[string][2]int // tier → hits, total
	hints            int               // hints given on non-absent cues
	good             int               // of which gold
	falseAbs         int               // absent cues that produced a hint
	absent           int
	hinted           map[string][2]int // tier → cues whose hints include a gold entry, cues
	toolHints        [2]int            // hints on touching tool calls, of which gold
}

func newTally() *tally {
	return &tally{hit1: map[string][2]int{}, hit3: map[string][2]int{}, hit5: map[string][2]int{}, hinted: map[string][2]int{}}
}

// row is one system's results on one set: the whole set and each half.
type row struct {
	name  string
	quiet bool
	by    map[string]*tally // "all", halfTune, halfHeld
	ranks []int             // per query: 1-based rank of the first gold entry in the top 5, 0 when absent
}

// scoreSet builds every system over docs and runs qs through each, in
// order; the index's clock is the real one.
func scoreSet(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config, docs []rank.Doc, qs []evalQuery, embs []embed.Embedder, listHalf string) ([]row, error) {
	systems, err := systemsFor(ctx, cfg, logger, docs, embs, time.Time{})
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, s := range systems {
		if cfg.explain != "" {
			explain(ctx, w, s, qs, cfg.explain)
		}
		r, err := evaluate(ctx, w, cfg, s, qs, listHalf)
		s.close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// evaluate runs every query of qs through s: its rank of the first gold
// entry in the top 5, then, for an index, what the gate hints for it.
// -v listings are limited to queries of listHalf ("" = all).
func evaluate(ctx context.Context, w io.Writer, cfg config, s *system, qs []evalQuery, listHalf string) (row, error) {
	r := row{name: s.name, quiet: s.quiet, by: map[string]*tally{"all": newTally(), halfTune: newTally(), halfHeld: newTally()}}
	for i, q := range qs {
		if q.Tool != "" && s.gate == nil {
			r.ranks = append(r.ranks, 0)
			continue // tool calls measure hints only
		}
		res, err := s.search(ctx, q.Q, 5)
		if err != nil {
			return r, err
		}
		gold := map[string]bool{}
		for _, g := range q.Gold {
			gold[g] = true
		}
		inHalf := listHalf == "" || listHalf == q.Half
		list := cfg.verbose && inHalf
		rank := firstGold(res, gold)
		r.ranks = append(r.ranks, rank)
		ts := []*tally{r.by["all"], r.by[q.Half]}
		if q.Tier != "absent" && q.Tool == "" {
			countRank(ts, q.Tier, rank)
			if list && rank != 1 {
				fmt.Fprintf(w, "  miss [%s] %s %q → %v (want %v)\n", s.name, q.Tier, q.Q, head(res, 3), q.Gold)
			}
		}
		if s.gate == nil {
			continue
		}
		hint, err := askGate(ctx, s.gate, i, q)
		if err != nil {
			return r, err
		}
		if cfg.margins && len(q.Gold) > 0 && inHalf {
			printMargin(ctx, w, s, q, hint)
		}
		countHint(w, ts, s.name, q, hint, gold, list)
	}
	return r, nil
}

// firstGold is the 1-based rank of the first gold path in res, 0 if none.
func firstGold(res []string, gold map[string]bool) int {
	for j, p := range res {
		if gold[p] {
			return j + 1
		}
	}
	return 0
}

// countRank adds a query of tier ranked at rank to hit@1, @3 and @5.
func countRank(ts []*tally, tier string, rank int) {
	for _, t := range ts {
		for k, m := range map[int]map[string][2]int{1: t.hit1, 3: t.hit3, 5: t.hit5} {
			v := m[tier]
			v[1]++
			if rank > 0 && rank <= k {
				v[0]++
			}
			m[tier] = v
		}
	}
}

// askGate asks a fresh session of the gate for q's hints: an action for a
// tool call, a thought otherwise.
func askGate(ctx context.Context, g *assoc.Gate, i int, q evalQuery) (assoc.Result, error) {
	if q.Tool != "" {
		return g.Action(ctx, fmt.Sprintf("eval-%d", i), q.Tool, q.Args)
	}
	return g.Thought(ctx, fmt.Sprintf("eval-%d", i), q.Q)
}

// countHint tallies the gate's hint for q: ordinary tool calls and absent
// cues count only false hints; others whether a gold entry was hinted and
// how many hints were gold. list prints the failures (-v).
func countHint(w io.Writer, ts []*tally, name string, q evalQuery, hint assoc.Result, gold map[string]bool, list bool) {
	if q.Tier == "ordinary" {
		for _, t := range ts {
			v := t.hinted["ordinary"] // hinted ordinary calls (all false), calls
			v[1]++
			if len(hint.Items) > 0 {
				v[0]++
			}
			t.hinted["ordinary"] = v
		}
		if list && len(hint.Items) > 0 {
			fmt.Fprintf(w, "  false hint [%s] tool call %q → %s\n", name, q.Q, hint.Items[0].Name)
		}
		return
	}
	if q.Tier == "absent" {
		for _, t := range ts {
			t.absent++
			if len(hint.Items) > 0 {
				t.falseAbs++
			}
		}
		if list && len(hint.Items) > 0 {
			fmt.Fprintf(w, "  false hint [%s] %q → %s\n", name, q.Q, hint.Items[0].Name)
		}
		return
	}
	found := false
	for _, it := range hint.Items {
		found = found || gold[it.Path]
	}
	for _, t := range ts {
		v := t.hinted[q.Tier]
		v[1]++
		if found {
			v[0]++
		}
		t.hinted[q.Tier] = v
	}
	if list && !found {
		fmt.Fprintf(w, "  no hint [%s] %s %q\n", name, q.Tier, q.Q)
	}
	for _, it := range hint.Items {
		for _, t := range ts {
			if q.Tool != "" {
				t.toolHints[0]++
				if gold[it.Path] {
					t.toolHints[1]++
				}
				continue
			}
			t.hints++
			if gold[it.Path] {
				t.good++
			}
		}
		if list && !gold[it.Path] {
			fmt.Fprintf(w, "  wrong hint [%s] %q → %s\n", name, q.Q, it.Name)
		}
	}
}

// recallTally is R@5 and R@10 (the share of a question's evidence turns
// found in the top k, averaged over questions) per kind.
type recallTally struct {
	r5, r10     map[string]float64
	hit5, hit10 map[string]int // questions with an evidence turn in the top 5, 10
	n           map[string]int
}

func newRecallTally() *recallTally {
	return &recallTally{r5: map[string]float64{}, r10: map[string]float64{}, hit5: map[string]int{},
		hit10: map[string]int{}, n: map[string]int{}}
}

func (t *recallTally) add(kind string, top []string, gold []string) {
	found := func(k int) float64 { return float64(countIn(head(top, k), gold)) / float64(len(gold)) }
	for _, key := range []string{kind, "all"} {
		t.r5[key] += found(5)
		t.r10[key] += found(10)
		if anyIn(head(top, 5), gold) {
			t.hit5[key]++
		}
		if anyIn(head(top, 10), gold) {
			t.hit10[key]++
		}
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

func anyIn(xs, want []string) bool {
	return slices.ContainsFunc(xs, func(x string) bool { return slices.Contains(want, x) })
}

// countIn is how many of xs are in want.
func countIn(xs, want []string) int {
	n := 0
	for _, x := range xs {
		if slices.Contains(want, x) {
			n++
		}
	}
	return n
}

// dialogueScores is one representation's R@k rows over every dialogue,
// with the turns and questions counted.
type dialogueScores struct {
	rows             []*dialogueRow
	turns, questions int
}

// scoreDialogues indexes each dialogue on its own, as docsOf represents
// its turns, and asks its questions on its `now` of every system.
func scoreDialogues(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config, ds []*dialogue,
	docsOf func(*dialogue) []rank.Doc, embs []embed.Embedder, listHalf string) (*dialogueScores, error) {
	sc := &dialogueScores{}
	for _, d := range ds {
		sc.turns += len(d.docs)
		assignHalves(d.qs)
		qs := d.qs
		if listHalf != "" {
			qs = keepHalf(qs, listHalf)
		}
		sc.questions += len(qs)
		systems, err := systemsFor(ctx, cfg, logger, docsOf(d), embs, d.now)
		if err != nil {
			return nil, fmt.Errorf("dialogue %s, %w", d.id, err)
		}
		for _, s := range systems {
			if cfg.explain != "" {
				explain(ctx, w, s, qs, cfg.explain)
			}
			err := sc.rowOf(s.name).ask(ctx, w, s, qs, cfg.verbose, listHalf)
			s.close()
			if err != nil {
				return nil, fmt.Errorf("dialogue %s, %s: %w", d.id, s.name, err)
			}
		}
	}
	return sc, nil
}

// rowOf is name's row, added on first use so rows keep the systems' order.
func (sc *dialogueScores) rowOf(name string) *dialogueRow {
	for _, r := range sc.rows {
		if r.name == name {
			return r
		}
	}
	r := &dialogueRow{name: name, by: map[string]*recallTally{"all": newRecallTally(), halfTune: newRecallTally(), halfHeld: newRecallTally()}}
	sc.rows = append(sc.rows, r)
	return r
}

// ask runs qs through s into r's tallies; verbose lists the questions with
// no evidence turn in the top 5.
func (r *dialogueRow) ask(ctx context.Context, w io.Writer, s *system, qs []evalQuery, verbose bool, listHalf string) error {
	for _, q := range qs {
		top, err := s.search(ctx, q.Q, 10)
		if err != nil {
			return err
		}
		r.by["all"].add(q.Tier, top, q.Gold)
		r.by[q.Half].add(q.Tier, top, q.Gold)
		if verbose && (listHalf == "" || q.Half == listHalf) && !anyIn(top[:min(5, len(top))], q.Gold) {
			fmt.Fprintf(w, "miss %s %s/%s %q gold %v top %v\n", s.name, q.Tier, q.Half, q.Q, shortPaths(q.Gold), shortPaths(head(top, 5)))
		}
	}
	return nil
}
