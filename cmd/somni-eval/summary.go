package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// summary gathers every set's held-out numbers for the one table make eval
// ends with: per set and language, each embedder's hit@5, hit@10 and R@5
// beside BM25's, with hit@5 over BM25's.
type summary struct {
	rows []summaryRow
}

// summaryRow is one set × language on the held-out half.
type summaryRow struct {
	set, lang string
	n         int
	base      summaryCell            // the plain BM25 baseline
	by        map[string]summaryCell // embedder column → its hybrid system's numbers
	columns   []string               // in systems' order
}

// summaryCell is one system's held-out hit@5, hit@10 and R@5.
type summaryCell struct{ hit5, hit10, r5 float64 }

// summaryColumn is the embedder column of a system's name ("hybrid/local:use-lite…" → "local"), "" for a baseline.
func summaryColumn(system string) string {
	id, ok := strings.CutPrefix(system, "hybrid/")
	if !ok {
		return ""
	}
	for i, c := range id {
		if c == ':' || c == '-' {
			return id[:i]
		}
	}
	return id
}

// add starts a row; cell adds each system to it.
func (s *summary) add(set, lang string, n int) *summaryRow {
	s.rows = append(s.rows, summaryRow{set: set, lang: lang, n: n, by: map[string]summaryCell{}})
	return &s.rows[len(s.rows)-1]
}

func (r *summaryRow) cell(system string, c summaryCell) {
	if system == "bm25 baseline" {
		r.base = c
		return
	}
	col := summaryColumn(system)
	if col == "" {
		return // the baseline with the previous turn: not the textbook baseline
	}
	r.by[col] = c
	r.columns = append(r.columns, col)
}

// addBenchmark adds a benchmark's held-out half.
func (s *summary) addBenchmark(bs *benchScores) {
	var n int
	for _, row := range bs.rows {
		n = max(n, row.by[halfHeld].n)
	}
	r := s.add(bs.b.name, bs.b.lang, n)
	for _, row := range bs.rows {
		t := row.by[halfHeld]
		d := float64(max(1, t.n))
		r.cell(row.name, summaryCell{float64(t.hit5) / d, float64(t.hit10) / d, t.r5 / d})
	}
}

// addDialogues adds a dialogue representation's held-out half.
func (s *summary) addDialogues(sc *dialogueScores, set, lang string) {
	r := s.add(set, lang, sc.rows[0].by[halfHeld].n["all"])
	for _, row := range sc.rows {
		t := row.by[halfHeld]
		d := float64(max(1, t.n["all"]))
		r.cell(row.name, summaryCell{float64(t.hit5["all"]) / d, float64(t.hit10["all"]) / d, t.r5["all"] / d})
	}
}

// report prints the table: one column per embedder seen, in first-seen order.
func (s *summary) report(w io.Writer) {
	if len(s.rows) == 0 {
		return
	}
	var cols []string
	for _, r := range s.rows {
		for _, c := range r.columns {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	fmt.Fprint(w, "\n## summary, held-out half: hit@5 / hit@10 / R@5, and hit@5 × BM25 in the same run on the same entries\n\n")
	fmt.Fprintf(w, "| set | language | questions | BM25 | %s |\n|---|---|---|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, r := range s.rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = "–"
			if v, ok := r.by[c]; ok {
				ratio := "–"
				if r.base.hit5 > 0 {
					ratio = fmt.Sprintf("%.2f×", v.hit5/r.base.hit5)
				}
				cells[i] = fmt.Sprintf("%.2f / %.2f / %.2f (%s)", v.hit5, v.hit10, v.r5, ratio)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.2f / %.2f / %.2f | %s |\n", r.set, r.lang, r.n, r.base.hit5, r.base.hit10, r.base.r5, strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
}
