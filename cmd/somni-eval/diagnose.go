package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// explain prints how s ranks the queries containing sub (-explain): the
// top 8 with their signals, gold entries marked.
func explain(ctx context.Context, w io.Writer, s *system, qs []evalQuery, sub string) {
	if s.hits == nil {
		return
	}
	for _, q := range qs {
		if sub != "*" && !strings.Contains(q.Q, sub) {
			continue
		}
		gold := map[string]bool{}
		for _, g := range q.Gold {
			gold[g] = true
		}
		hits, err := s.hits(ctx, q.Q, 8)
		if err != nil {
			fmt.Fprintf(w, "explain %s: %v\n", s.name, err)
			return
		}
		fmt.Fprintf(w, "[%s] %q (gold %v)\n", s.name, q.Q, q.Gold)
		for _, h := range hits {
			mark := " "
			if gold[h.Doc.Path] {
				mark = "*"
			}
			fmt.Fprintf(w, " %s %-18s hyb %.3f cos %.3f kw %.3f lit %v pin %v terms %v | %.70s\n", mark, h.Doc.Path,
				h.Hybrid, h.Cos, h.Keyword, h.Literal, h.Pinned, h.Terms, strings.ReplaceAll(rank.EmbedText(h.Doc), "\n", " / "))
		}
	}
}

// printMargin prints the best gold hybrid among the top 8 and the best
// other one, so near misses of the threshold are visible.
func printMargin(ctx context.Context, w io.Writer, s *system, q evalQuery, hint assoc.Result) {
	hits, err := s.hits(ctx, q.Q, 8)
	if err != nil {
		return
	}
	gold := map[string]bool{}
	for _, g := range q.Gold {
		gold[g] = true
	}
	g, o := -1.0, -1.0
	for _, h := range hits {
		if gold[h.Doc.Path] {
			g = max(g, h.Hybrid)
		} else {
			o = max(o, h.Hybrid)
		}
	}
	hinted := "no hint"
	for _, it := range hint.Items {
		if gold[it.Path] {
			hinted = "HINT"
		}
	}
	fmt.Fprintf(w, "  margin [%s] %s/%s gold %.3f other %.3f %s %q\n", s.name, q.Tier, q.Half, g, o, hinted, q.Q)
}

// runCalibration prints, per vector embedder, the cosine distribution of
// unrelated pairs (absent-topic cue × every note; question × turns of
// other conversations) and of gold (query, entry) pairs
// over both eval sets: the floor should sit above unrelated noise, the
// span should bring typical gold pairs near saturation.
func runCalibration(ctx context.Context, w io.Writer, embs []embed.Embedder, notes []rank.Doc, nq []evalQuery, turns []rank.Doc, cq []evalQuery) error {
	for _, e := range embs {
		if embed.IsOff(e) {
			continue
		}
		var unrelated, gold []float64
		for _, set := range []struct {
			docs []rank.Doc
			qs   []evalQuery
		}{{notes, nq}, {turns, cq}} {
			texts := make([]string, 0, len(set.docs))
			for _, d := range set.docs {
				texts = append(texts, rank.EmbedText(d))
			}
			qtexts := make([]string, 0, len(set.qs))
			for _, q := range set.qs {
				qtexts = append(qtexts, q.Q)
			}
			vecs, err := e.Embed(ctx, texts)
			if err != nil {
				return fmt.Errorf("%s: %w", e.ID(), err)
			}
			// queries in the form searches use (a BERT query instruction)
			embedQ := e.Embed
			if qe, ok := e.(embed.QueryEmbedder); ok {
				embedQ = qe.EmbedQueries
			}
			qvecs, err := embedQ(ctx, qtexts)
			if err != nil {
				return fmt.Errorf("%s: %w", e.ID(), err)
			}
			if len(vecs) != len(texts) || len(qvecs) != len(qtexts) {
				return errors.New("embedder returned wrong count")
			}
			vecs = append(vecs, qvecs...)
			for qi, q := range set.qs {
				qv := vecs[len(set.docs)+qi]
				isGold := map[string]bool{}
				for _, g := range q.Gold {
					isGold[g] = true
				}
				for di, d := range set.docs {
					c := cos(qv, vecs[di])
					switch {
					case isGold[d.Path]:
						gold = append(gold, c)
					case q.Tier == "absent" || q.Tier == "conversation" && session(d.Path) != session(q.Gold[0]):
						// truly unrelated: absent-topic cues against every note, and
						// questions against turns of other conversations (non-gold
						// notes of a present topic are often related, so excluded)
						unrelated = append(unrelated, c)
					}
				}
			}
		}
		sort.Float64s(unrelated)
		sort.Float64s(gold)
		fmt.Fprintf(w, "%s: unrelated n=%d mean %.3f p50 %.3f p90 %.3f p99 %.3f p99.5 %.3f p99.9 %.3f max %.3f\n", e.ID(), len(unrelated),
			mean(unrelated), q(unrelated, .5), q(unrelated, .9), q(unrelated, .99), q(unrelated, .995), q(unrelated, .999), unrelated[len(unrelated)-1])
		fmt.Fprintf(w, "%s: gold      n=%d mean %.3f p10 %.3f p50 %.3f p90 %.3f\n", e.ID(), len(gold),
			mean(gold), q(gold, .1), q(gold, .5), q(gold, .9))
		cal := embed.CalibrationOf(e)
		fmt.Fprintf(w, "%s: calibration in use floor %.2f span %.2f\n", e.ID(), cal.Floor, cal.Span)
	}
	return nil
}

// session is the conversation a turn path belongs to.
func session(p string) string { s, _, _ := strings.Cut(p, "#"); return s }

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func q(sorted []float64, p float64) float64 {
	return sorted[int(math.Min(float64(len(sorted)-1), p*float64(len(sorted))))]
}
