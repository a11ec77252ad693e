package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/textcut"
)

// benchTally is one system's results on one half of a benchmark: hit@5
// and hit@10 (a relevant memory among the top k), R@5 (the share of the
// relevant memories in the top 5), and for an index the hints its gate
// gives on the dialogue cues.
type benchTally struct {
	n            int
	hit5, hit10  int
	r5           float64
	cues, hinted int // cues asked; cues whose hints include a relevant memory
	hints, good  int // hints given; of which relevant
}

// benchRow is one system's tallies on a benchmark, by half.
type benchRow struct {
	name string
	by   map[string]*benchTally // "all", halfTune, halfHeld
}

// benchScores is every system's row on one benchmark, in systems' order.
type benchScores struct {
	b    *benchmark
	rows []*benchRow
}

func (bs *benchScores) rowOf(name string) *benchRow {
	for _, r := range bs.rows {
		if r.name == name {
			return r
		}
	}
	r := &benchRow{name: name, by: map[string]*benchTally{"all": {}, halfTune: {}, halfHeld: {}}}
	bs.rows = append(bs.rows, r)
	return r
}

// runBenchmarks loads the public benchmarks in dir and prints, per
// benchmark and language, every system's table beside BM25's.
func runBenchmarks(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config, dir string, embs []embed.Embedder, listHalf string, sum *summary) error {
	for _, lang := range []string{"en", "zh", "zh" + hantSuffix} {
		b, err := loadMADial(dir, lang)
		if err != nil {
			return err
		}
		bs, err := scoreBenchmark(ctx, w, logger, cfg, b, embs, listHalf)
		if err != nil {
			return err
		}
		reportBenchmark(w, bs, listHalf)
		sum.addBenchmark(bs)
	}
	return nil
}

// scoreBenchmark indexes each pool on its own and asks its queries and
// cues of every system.
func scoreBenchmark(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config, b *benchmark, embs []embed.Embedder, listHalf string) (*benchScores, error) {
	bs := &benchScores{b: b}
	for _, p := range b.pools {
		qs, cues := p.qs, p.cues
		if listHalf != "" {
			qs, cues = keepHalf(qs, listHalf), keepHalf(cues, listHalf)
		}
		systems, err := systemsFor(ctx, cfg, logger, p.docs, embs, p.now)
		if err != nil {
			return nil, fmt.Errorf("%s %s, %s: %w", b.name, b.lang, p.user, err)
		}
		for _, s := range systems {
			if cfg.explain != "" {
				explain(ctx, w, s, qs, cfg.explain)
			}
			err := bs.rowOf(s.name).ask(ctx, w, cfg, s, qs, cues)
			s.close()
			if err != nil {
				return nil, fmt.Errorf("%s %s, %s, %s: %w", b.name, b.lang, p.user, s.name, err)
			}
		}
	}
	return bs, nil
}

// ask runs the queries, then (for an index) the cues, through s.
func (r *benchRow) ask(ctx context.Context, w io.Writer, cfg config, s *system, qs, cues []evalQuery) error {
	for _, q := range qs {
		top, err := s.search(ctx, q.Q, 10)
		if err != nil {
			return err
		}
		for _, t := range []*benchTally{r.by["all"], r.by[q.Half]} {
			t.n++
			if anyIn(head(top, 5), q.Gold) {
				t.hit5++
			}
			if anyIn(top, q.Gold) {
				t.hit10++
			}
			t.r5 += float64(countIn(head(top, 5), q.Gold)) / float64(len(q.Gold))
		}
		if cfg.verbose && !anyIn(head(top, 5), q.Gold) {
			fmt.Fprintf(w, "miss %s %s %q gold %v top %v\n", s.name, q.Half, textcut.MarkNewlines(q.Q), shortPaths(q.Gold), shortPaths(head(top, 5)))
		}
	}
	if s.gate == nil {
		return nil
	}
	for i, q := range cues {
		res, err := s.gate.Thought(ctx, fmt.Sprintf("bench-%d", i), q.Q)
		if err != nil {
			return err
		}
		if cfg.margins {
			printMargin(ctx, w, s, q, res)
		}
		var got []string
		for _, it := range res.Items {
			got = append(got, it.Path)
		}
		for _, t := range []*benchTally{r.by["all"], r.by[q.Half]} {
			t.cues++
			t.hints += len(got)
			t.good += countIn(got, q.Gold)
			if anyIn(got, q.Gold) {
				t.hinted++
			}
		}
		if cfg.verbose && len(got) > 0 && !anyIn(got, q.Gold) {
			fmt.Fprintf(w, "wrong hint %s %s %q → %v\n", s.name, q.Half, textcut.MarkNewlines(q.Q), shortPaths(got))
		}
	}
	return nil
}

// reportBenchmark prints a benchmark's table for the held-out half, then
// the tuning half: hit@5, hit@10, R@5, hit@5 over BM25's, and the hints.
func reportBenchmark(w io.Writer, bs *benchScores, listHalf string) {
	for _, part := range []struct{ key, title string }{{halfHeld, "held-out half"}, {halfTune, "tuning half"}} {
		if listHalf != "" && part.key != listHalf {
			continue
		}
		var base *benchTally
		for _, r := range bs.rows {
			if strings.HasPrefix(r.name, "bm25 baseline") {
				base = r.by[part.key]
				break
			}
		}
		fmt.Fprintf(w, "## %s %s, %s (%d dialogues; query: the dialogue before the test turn; cue: the user's last two turns)\n\n",
			bs.b.name, bs.b.lang, part.title, base.n)
		fmt.Fprintln(w, "| system | hit@5 | hit@10 | R@5 | hit@5 ×BM25 | dialogues with a right hint | hint precision |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, r := range bs.rows {
			t := r.by[part.key]
			ratio := "–"
			if base.hit5 > 0 {
				ratio = fmt.Sprintf("%.2f×", float64(t.hit5)/float64(base.hit5))
			}
			hinted, prec := "–", "–"
			if t.cues > 0 {
				hinted = pct([2]int{t.hinted, t.cues})
				prec = pct([2]int{t.good, t.hints})
			}
			fmt.Fprintf(w, "| %s | %s | %s | %.2f | %s | %s | %s |\n", r.name, pct([2]int{t.hit5, t.n}),
				pct([2]int{t.hit10, t.n}), t.r5/float64(max(1, t.n)), ratio, hinted, prec)
		}
		fmt.Fprintln(w)
	}
}
