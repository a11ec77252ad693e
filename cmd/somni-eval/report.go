package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/somni-dev/somni/internal/assoc"
)

// reportNotes prints, for all queries and then each half, the curated
// notes' hit@k, their hint recall and the conversation turns' hit@k.
func reportNotes(w io.Writer, s *evalSets, noteRows, convRows []row, listHalf string) {
	for _, part := range []struct{ key, title string }{
		{"all", "all queries"},
		{halfHeld, fmt.Sprintf("held-out half (%d notes queries, %d questions, %d tool calls)", countHalf(s.nq, halfHeld), countHalf(s.cq, halfHeld), countCalls(s.tq, halfHeld))},
		{halfTune, fmt.Sprintf("tuning half (%d notes queries, %d questions, %d tool calls)", countHalf(s.nq, halfTune), countHalf(s.cq, halfTune), countCalls(s.tq, halfTune))},
	} {
		if listHalf != "" && part.key != listHalf {
			continue // -half: only that half was evaluated
		}
		notesTable(w, part.key, part.title, noteRows)
		hintTable(w, part.key, part.title, noteRows)
		conversationTable(w, part.key, part.title, convRows)
		fmt.Fprintln(w)
	}
}

func notesTable(w io.Writer, key, title string, rows []row) {
	fmt.Fprintf(w, "## curated notes, %s (hit@1 / hit@3 per tier)\n\n", title)
	fmt.Fprintln(w, "| system | exact | domain | generic | cross-lingual | all | paraphrase | false hints (absent) | hint precision | hints |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		t := r.by[key]
		all1, all3 := sum(t.hit1, noteTiers...), sum(t.hit3, noteTiers...)
		fmt.Fprintf(w, "| %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s | %s | %s |\n", r.name,
			pct(t.hit1["exact"]), pct(t.hit3["exact"]), pct(t.hit1["domain"]), pct(t.hit3["domain"]),
			pct(t.hit1["generic"]), pct(t.hit3["generic"]), pct(t.hit1["cross"]), pct(t.hit3["cross"]),
			pct(all1), pct(all3), pct(t.hit1["paraphrase"]), pct(t.hit3["paraphrase"]),
			hintCell(r, t), precCell(r, t), hintCount(r, t))
	}
}

func hintTable(w io.Writer, key, title string, rows []row) {
	fmt.Fprintf(w, "\n## hint recall, %s (cues whose hints include a gold entry)\n\n", title)
	fmt.Fprintln(w, "| system | exact | domain | generic | cross-lingual | paraphrase | tool calls touching memory | false hints, ordinary tool calls | per 50 | tool-call hint precision |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		if strings.HasPrefix(r.name, "bm25 baseline") {
			continue
		}
		t := r.by[key]
		o := t.hinted["ordinary"]
		per50 := "–"
		if o[1] > 0 {
			per50 = fmt.Sprintf("%.1f", 50*float64(o[0])/float64(o[1]))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %d/%d | %s | %s |\n", r.name,
			pct(t.hinted["exact"]), pct(t.hinted["domain"]), pct(t.hinted["generic"]), pct(t.hinted["cross"]),
			pct(t.hinted["paraphrase"]), frac(t.hinted["touch"]), o[0], o[1], per50, pct([2]int{t.toolHints[1], t.toolHints[0]}))
	}
}

func conversationTable(w io.Writer, key, title string, rows []row) {
	fmt.Fprintf(w, "\n## conversation turns, %s (hit@1 / hit@3 / hit@5)\n\n", title)
	fmt.Fprintln(w, "| system | hit@1 | hit@3 | hit@5 | hint precision | hints |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rows {
		t := r.by[key]
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.name, pct(t.hit1["conversation"]),
			pct(t.hit3["conversation"]), pct(t.hit5["conversation"]), precCell(r, t), hintCount(r, t))
	}
}

// reportFooter says how hints were measured.
func reportFooter(w io.Writer, threshold float64) {
	fmt.Fprintf(w, "Hints are measured with the gate forced on (threshold %.2f, gap %.2f, max %d, fresh session per cue);\n",
		threshold, assoc.DefaultGap, assoc.DefaultMaxItems)
	fmt.Fprintln(w, "embedders marked (quiet) have hints withheld in production because of their false-hint rate.")
}

// reportRanks prints each query's rank of its first gold entry per
// system (-ranks), notes queries then conversation questions.
func reportRanks(w io.Writer, s *evalSets, noteRows, convRows []row, listHalf string) {
	for _, set := range []struct {
		qs   []evalQuery
		rows []row
	}{{s.nq, noteRows}, {s.cq, convRows}} {
		fmt.Fprintln(w)
		fmt.Fprint(w, "rank of first gold in top 5 (0 = none)")
		for _, r := range set.rows {
			fmt.Fprintf(w, "\t%s", r.name)
		}
		fmt.Fprintln(w)
		for i, q := range set.qs {
			if q.Tier == "absent" || listHalf != "" && q.Half != listHalf {
				continue
			}
			fmt.Fprintf(w, "%s/%s %q", q.Tier, q.Half, q.Q)
			for _, r := range set.rows {
				fmt.Fprintf(w, "\t%d", r.ranks[i])
			}
			fmt.Fprintln(w)
		}
	}
}

// reportDialogues prints one representation's R@5 / R@10 tables: the
// held-out half, the tuning half, all questions.
func reportDialogues(w io.Writer, sc *dialogueScores, conversations int, title, listHalf string) {
	fmt.Fprintf(w, "## dialogues: %d conversations, %d turns (%s), %d questions\n\n", conversations, sc.turns, title, sc.questions)
	for _, part := range []struct{ key, title string }{{halfHeld, "held-out half"}, {halfTune, "tuning half"}, {"all", "all questions"}} {
		if listHalf != "" && part.key != listHalf && part.key != "all" {
			continue
		}
		base := sc.rows[0].by[part.key]
		fmt.Fprintf(w, "### dialogues, %s (R@5 / R@10; ×BM25 is R@5 over the BM25 baseline's)\n\n", part.title)
		fmt.Fprintln(w, "| system | single | multi-hop | temporal | open-domain | all | ×BM25 |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, r := range sc.rows {
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
}

// frac is "hits/total (share)".
func frac(v [2]int) string {
	if v[1] == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.2f)", v[0], v[1], float64(v[0])/float64(v[1]))
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func pct(v [2]int) string {
	if v[1] == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(v[0])/float64(v[1]))
}

// noteTiers are the curated notes' tiers with a gold entry; "absent" cues
// only count false hints.
var noteTiers = []string{"exact", "domain", "generic", "cross"}

func sum(m map[string][2]int, tiers ...string) [2]int {
	var s [2]int
	for _, t := range tiers {
		s[0] += m[t][0]
		s[1] += m[t][1]
	}
	return s
}

func hintCell(r row, t *tally) string {
	if t.absent == 0 {
		return "–"
	}
	s := fmt.Sprintf("%d/%d", t.falseAbs, t.absent)
	if r.quiet {
		s += " (quiet)"
	}
	return s
}

func precCell(r row, t *tally) string {
	if t.hints == 0 {
		if strings.HasPrefix(r.name, "bm25 baseline") {
			return "–"
		}
		return "no hints"
	}
	return fmt.Sprintf("%.2f", float64(t.good)/float64(t.hints))
}

func hintCount(r row, t *tally) string {
	if strings.HasPrefix(r.name, "bm25 baseline") {
		return "–"
	}
	return strconv.Itoa(t.hints)
}

// shortPaths shows turn entries by name (d1-s3-t5) in -v listings.
func shortPaths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = filepath.Base(filepath.Dir(p))
	}
	return out
}
