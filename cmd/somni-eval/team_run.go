package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/embed"
)

// teamTally is one system's hit@5 on one half of a set, without ([0])
// and with ([1]) the team pool, and the questions whose top 5 held a team
// entry with it.
type teamTally struct {
	n, hit   [2]int
	intruded int
}

// points is hit@5 with the pool minus without, in points (hit@5 × 100).
func (t *teamTally) points() float64 {
	return 100 * (rate(t.hit[1], t.n[1]) - rate(t.hit[0], t.n[0]))
}

func rate(k, n int) float64 { return float64(k) / float64(max(1, n)) }

// teamRow is one system's tallies on a set, by half.
type teamRow struct {
	name string
	by   map[string]*teamTally // halfTune, halfHeld
}

// teamScores is every system's row on one team set, in systems' order.
type teamScores struct {
	set  *teamSet
	rows []*teamRow
}

// rowOf is name's row; nil for the baseline given the previous turn,
// which is not the textbook baseline the other tables compare with.
func (sc *teamScores) rowOf(name string) *teamRow {
	if name != "bm25 baseline" && summaryColumn(name) == "" {
		return nil
	}
	for _, r := range sc.rows {
		if r.name == name {
			return r
		}
	}
	r := &teamRow{name: name, by: map[string]*teamTally{halfTune: {}, halfHeld: {}}}
	sc.rows = append(sc.rows, r)
	return r
}

// runTeamPools asks every set -sets and -team-pool name again with a team
// pool mounted beside each personal pool, and prints what it changed; then
// once more with the roles turned (teamGold): the set's entries a
// teammate's, the unrelated ones the user's, which is what ranking the
// user's own entries first costs a question a teammate's entry answers.
func runTeamPools(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config, sets map[string]bool, s *evalSets, embs []embed.Embedder, listHalf string) error {
	if cfg.teamPool == "" || cfg.teamPool == "off" {
		return nil
	}
	tss, skips, err := teamSetsOf(cfg, sets, s)
	if err != nil {
		return err
	}
	for _, gold := range []bool{false, true} {
		cfg.teamGold = gold
		var all []*teamScores
		for _, ts := range tss {
			start := time.Now()
			sc, err := scoreTeamSet(ctx, logger, cfg, ts, embs, listHalf)
			if err != nil {
				return err
			}
			if cfg.progress != nil {
				fmt.Fprintf(cfg.progress, "somni-eval: team pool beside %s %s, gold %s: %d pools, %s\n", ts.name, ts.lang,
					goldOwner(gold), len(ts.units), time.Since(start).Round(time.Second))
			}
			all = append(all, sc)
		}
		reportTeam(w, all, skips, listHalf, gold)
	}
	return nil
}

// goldOwner says whose entries hold the gold in a team table.
func goldOwner(teamGold bool) string {
	if teamGold {
		return "a teammate's"
	}
	return "the user's own"
}

// scoreTeamSet replays every pool of ts twice through fresh systems:
// alone, then with its team pool mounted.
func scoreTeamSet(ctx context.Context, logger *slog.Logger, cfg config, ts *teamSet, embs []embed.Embedder, listHalf string) (*teamScores, error) {
	sc := &teamScores{set: ts}
	for _, u := range ts.units {
		for with := range 2 {
			if err := sc.replay(ctx, logger, cfg, u, with, embs, listHalf); err != nil {
				return nil, fmt.Errorf("team pool, %s %s, %s: %w", ts.name, ts.lang, u.id, err)
			}
		}
	}
	return sc, nil
}

// replay builds the systems over u's first step (with its team pool when
// with is 1), grows them by the later steps and asks each step's
// questions after it.
func (sc *teamScores) replay(ctx context.Context, logger *slog.Logger, cfg config, u *teamUnit, with int, embs []embed.Embedder, listHalf string) error {
	docs, err := mountTeam(u)
	if err != nil {
		return err
	}
	if with == 0 {
		docs = u.steps[0].add
	}
	systems, err := systemsOver(ctx, cfg, logger, docs, embs, u.steps[0].now, u.withContext)
	if err != nil {
		return err
	}
	defer func() {
		for _, s := range systems {
			s.close()
		}
	}()
	for i, st := range u.steps {
		for _, s := range systems {
			if i > 0 {
				if err := s.grow(ctx, st.add, st.now); err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
			}
			if r := sc.rowOf(s.name); r != nil {
				if err := r.ask(ctx, s, st.qs, sc.set.depth, with, listHalf); err != nil {
					return fmt.Errorf("%s: %w", s.name, err)
				}
			}
		}
	}
	return nil
}

// ask runs the questions with gold (not absent topics, not tool calls) of
// listHalf ("" = both) through s, depth results each as the set's own
// tables ask them, and counts a gold entry in the top 5. A team entry is
// never gold (mountTeam), so it can only push gold down.
func (r *teamRow) ask(ctx context.Context, s *system, qs []evalQuery, depth, with int, listHalf string) error {
	for _, q := range qs {
		if len(q.Gold) == 0 || q.Tool != "" || (listHalf != "" && q.Half != listHalf) {
			continue
		}
		top, err := s.search(ctx, q.Q, depth)
		if err != nil {
			return err
		}
		top = head(top, 5)
		t := r.by[q.Half]
		t.n[with]++
		if anyIn(top, q.Gold) {
			t.hit[with]++
		}
		if with == 1 && slices.ContainsFunc(top, isTeamPath) {
			t.intruded++
		}
	}
	return nil
}

// reportTeam prints the team pool table, a row per set × system, then
// the verdict per half: the hybrid's cells more than a point below.
// teamGold: the table of the turned roles (runTeamPools).
func reportTeam(w io.Writer, all []*teamScores, skips, listHalf string, teamGold bool) {
	if teamGold {
		fmt.Fprintf(w, "## the same, roles turned: the gold a teammate's, the unrelated entries the user's own: hit@5 without → with\n\n")
		fmt.Fprintf(w, "The set's own entries are now the team pool's (told apart as the sidecar tells a mounted pool's, "+
			"index.Options.Shared) and the unrelated entries the user's own: what ranking the user's own entries first at equal "+
			"evidence costs a question a teammate's entry answers. \"without\": the set's entries alone; \"team in top 5\" "+
			"here counts the unrelated entries.\n\n")
	} else {
		fmt.Fprintf(w, "## team pool mounted beside the personal memory: hit@5 without → with\n\n")
		fmt.Fprintf(w, "Each personal pool is indexed again with a team pool of unrelated entries in the same index: as many "+
			"as the personal pool holds at its largest, at most %d, spread evenly over the source named below, each a knowledge "+
			"entry under `%sknowledge/<name>/SKILL.md` and never gold. Δ is hit@5 with the pool minus without, in points, with the "+
			"questions it makes; \"team in top 5\": the share of questions with a team entry in the top 5 with the pool. BM25's "+
			"rows are for reference: the verdict below is the hybrid's.\n\n", teamCap, teamRoot)
	}
	fmt.Fprint(w, skips)
	for _, sc := range all {
		fmt.Fprintf(w, "- %s %s: %s\n", sc.set.name, sc.set.lang, sc.set.from)
	}
	fmt.Fprintln(w)
	halves := []struct{ key, title string }{{halfHeld, "held-out"}, {halfTune, "tuning"}}
	head := "| set | language | pools | team entries a pool | system |"
	for _, h := range halves {
		head += fmt.Sprintf(" %s questions | without | with | Δ points | team in top 5 |", h.title)
	}
	fmt.Fprintf(w, "%s\n|%s\n", head, strings.Repeat("---|", strings.Count(head, "|")-1))
	for _, sc := range all {
		for _, r := range sc.rows {
			line := fmt.Sprintf("| %s | %s | %d | %s | %s |", sc.set.name, sc.set.lang, len(sc.set.units), teamSizes(sc.set), r.name)
			for _, h := range halves {
				line += teamCells(r.by[h.key], listHalf == "" || listHalf == h.key)
			}
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintln(w)
	for _, h := range halves {
		if listHalf == "" || listHalf == h.key {
			fmt.Fprintln(w, teamVerdict(all, h.key, h.title, teamGold))
		}
	}
	fmt.Fprintln(w)
}

// teamSizes is the smallest and largest team pool of a set.
func teamSizes(ts *teamSet) string {
	lo, hi := -1, 0
	for _, u := range ts.units {
		if lo < 0 || len(u.team) < lo {
			lo = len(u.team)
		}
		hi = max(hi, len(u.team))
	}
	if lo == hi {
		return fmt.Sprint(hi)
	}
	return fmt.Sprintf("%d–%d", max(lo, 0), hi)
}

// teamCells are one half's cells of a row; "–" where the half was not asked.
func teamCells(t *teamTally, asked bool) string {
	if !asked || t.n[0] == 0 {
		return " – | – | – | – | – |"
	}
	return fmt.Sprintf(" %d | %.3f | %.3f | %+.1f (%+d) | %.2f |", t.n[0], rate(t.hit[0], t.n[0]), rate(t.hit[1], t.n[1]),
		t.points(), t.hit[1]-t.hit[0], rate(t.intruded, t.n[1]))
}

// teamVerdict is one half's summary: how many hybrid cells stay within a
// point, the largest drop, every cell beyond a point, and each embedder
// pooled over every question of the half.
func teamVerdict(all []*teamScores, half, title string, teamGold bool) string {
	cells, within := 0, 0
	var worst *teamTally
	worstAt := ""
	var over []string
	pooled := map[string]*teamTally{}
	var cols []string
	for _, sc := range all {
		for _, r := range sc.rows {
			t, col := r.by[half], summaryColumn(r.name)
			if col == "" || t.n[0] == 0 {
				continue
			}
			at := fmt.Sprintf("%s %s, %s", sc.set.name, sc.set.lang, col)
			cells++
			if t.points() >= -1 {
				within++
			} else {
				over = append(over, fmt.Sprintf("%s %.3f → %.3f (%+.1f)", at, rate(t.hit[0], t.n[0]), rate(t.hit[1], t.n[1]), t.points()))
			}
			if worst == nil || t.points() < worst.points() {
				worst, worstAt = t, at
			}
			if pooled[col] == nil {
				pooled[col] = &teamTally{}
				cols = append(cols, col)
			}
			for i := range 2 {
				pooled[col].n[i] += t.n[i]
				pooled[col].hit[i] += t.hit[i]
			}
		}
	}
	if cells == 0 {
		return fmt.Sprintf("Team pool, gold %s, %s half: no questions.", goldOwner(teamGold), title)
	}
	out := fmt.Sprintf("**Team pool, gold %s, %s half: the hybrid's hit@5 stays within 1 point in %d of %d set × embedder cells; lowest change %+.1f points (%s).**",
		goldOwner(teamGold), title, within, cells, worst.points(), worstAt)
	if len(over) > 0 {
		out += " More than 1 point below: " + strings.Join(over, "; ") + "."
	}
	var ps []string
	for _, c := range cols {
		t := pooled[c]
		ps = append(ps, fmt.Sprintf("%s %.3f → %.3f (%+.1f, %d questions)", c, rate(t.hit[0], t.n[0]), rate(t.hit[1], t.n[1]), t.points(), t.n[0]))
	}
	return out + " Every question of the half pooled: " + strings.Join(ps, "; ") + ".\n"
}
