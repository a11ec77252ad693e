package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// summary gathers every set's numbers for the tables make eval ends with:
// per set and language, each embedder's hit@5, hit@10 and R@5 beside
// BM25's, with hit@5 over BM25's. The sets with real pools (RealMem,
// LifeBench, MemoryCode) come first, held-out then tuning half; MADial's
// small archives and the synthetic dialogues apart, held-out only, since
// they predicted gains the real pools did not show.
type summary struct {
	rows   []summaryRow
	orders []summaryOrder
}

// summaryRow is one set × language, by half.
type summaryRow struct {
	set, lang string
	real      bool                              // a pool as large as the set makes it
	n         map[string]int                    // half → questions
	base      map[string]summaryCell            // half → the plain BM25 baseline
	by        map[string]map[string]summaryCell // half → embedder column → its hybrid system's numbers
	columns   []string                          // in systems' order
}

// summaryCell is one system's hit@5, hit@10 and R@5 on one half.
type summaryCell struct{ hit5, hit10, r5 float64 }

// summaryOrder is a set's latest-version-first share per embedder column, by half.
type summaryOrder struct {
	set string
	by  map[string]map[string]*orderTally // half → column (or "BM25") → tally
}

// summaryHalves are the halves a row keeps.
var summaryHalves = []string{halfHeld, halfTune}

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

// add starts a row; cell adds each system's numbers on a half to it.
func (s *summary) add(set, lang string, real bool) *summaryRow {
	s.rows = append(s.rows, summaryRow{set: set, lang: lang, real: real, n: map[string]int{},
		base: map[string]summaryCell{}, by: map[string]map[string]summaryCell{}})
	return &s.rows[len(s.rows)-1]
}

func (r *summaryRow) cell(system, half string, c summaryCell) {
	if system == "bm25 baseline" {
		r.base[half] = c
		return
	}
	col := summaryColumn(system)
	if col == "" {
		return // the baseline with the previous turn: not the textbook baseline
	}
	if r.by[half] == nil {
		r.by[half] = map[string]summaryCell{}
	}
	r.by[half][col] = c
	if !slices.Contains(r.columns, col) {
		r.columns = append(r.columns, col)
	}
}

// addBenchmark adds a benchmark's halves.
func (s *summary) addBenchmark(bs *benchScores) {
	r := s.add(bs.b.name, bs.b.lang, false)
	for _, half := range summaryHalves {
		for _, row := range bs.rows {
			t := row.by[half]
			r.n[half] = max(r.n[half], t.n)
			d := float64(max(1, t.n))
			r.cell(row.name, half, summaryCell{float64(t.hit5) / d, float64(t.hit10) / d, t.r5 / d})
		}
	}
}

// addDialogues adds a dialogue representation's halves.
func (s *summary) addDialogues(sc *dialogueScores, set, lang string) {
	s.addKind(sc, set, lang, "all", false)
}

// addKind adds one question kind of sc ("all" for every question).
func (s *summary) addKind(sc *dialogueScores, set, lang, kind string, real bool) {
	r := s.add(set, lang, real)
	for _, half := range summaryHalves {
		r.n[half] = sc.rows[0].by[half].n[kind]
		for _, row := range sc.rows {
			t := row.by[half]
			d := float64(max(1, t.n[kind]))
			r.cell(row.name, half, summaryCell{float64(t.hit5[kind]) / d, float64(t.hit10[kind]) / d, t.r5[kind] / d})
		}
	}
}

// addStreams adds a set with real pools: every question, then the
// updated instructions alone where the set marks them, and the order of
// versions.
func (s *summary) addStreams(ss *streamScores) {
	if len(ss.sc.rows) == 0 {
		return
	}
	rs := ss.set
	s.addKind(ss.sc, rs.name, rs.lang, "all", true)
	if slices.Contains(rs.kinds, "updated") {
		s.addKind(ss.sc, rs.name+", updated instructions", rs.lang, "updated", true)
	}
	if len(ss.order) == 0 {
		return
	}
	o := summaryOrder{set: rs.name, by: map[string]map[string]*orderTally{}}
	for _, half := range summaryHalves {
		o.by[half] = map[string]*orderTally{}
		for _, row := range ss.sc.rows {
			col := summaryColumn(row.name)
			if row.name == "bm25 baseline" {
				col = "BM25"
			}
			if t := ss.order[row.name]; col != "" && t != nil {
				o.by[half][col] = t[half]
			}
		}
	}
	s.orders = append(s.orders, o)
}

// report prints the tables: one column per embedder seen, in first-seen order.
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
	for _, part := range []struct {
		real  bool
		half  string
		title string
	}{
		{true, halfHeld, "sets with real pools (RealMem, LifeBench, MemoryCode), held-out half"},
		{true, halfTune, "sets with real pools, tuning half"},
		{false, halfHeld, "MADial-Bench's small archives and the synthetic dialogues, held-out half"},
		{false, halfTune, "MADial-Bench's small archives and the synthetic dialogues, tuning half"},
	} {
		s.table(w, cols, part.real, part.half, part.title)
		if part.real {
			s.orderTable(w, cols, part.half)
		}
	}
}

// table prints the rows of one kind on one half.
func (s *summary) table(w io.Writer, cols []string, real bool, half, title string) {
	var rows []summaryRow
	for _, r := range s.rows {
		if r.real == real {
			rows = append(rows, r)
		}
	}
	asked := 0
	for _, r := range rows {
		asked += r.n[half]
	}
	if asked == 0 {
		return // -half kept the other half
	}
	fmt.Fprintf(w, "\n## summary, %s: hit@5 / hit@10 / R@5, and hit@5 × BM25 in the same run on the same entries\n\n", title)
	fmt.Fprintf(w, "| set | language | questions | BM25 | %s |\n|---|---|---|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, r := range rows {
		base := r.base[half]
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = "–"
			if v, ok := r.by[half][c]; ok {
				ratio := "–"
				if base.hit5 > 0 {
					ratio = fmt.Sprintf("%.2f×", v.hit5/base.hit5)
				}
				cells[i] = fmt.Sprintf("%.2f / %.2f / %.2f (%s)", v.hit5, v.hit10, v.r5, ratio)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.2f / %.2f / %.2f | %s |\n", r.set, r.lang, r.n[half], base.hit5, base.hit10, base.r5, strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
}

// orderTable prints, per set that measures it, the share of updated
// questions whose latest version ranks first.
func (s *summary) orderTable(w io.Writer, cols []string, half string) {
	if len(s.orders) == 0 {
		return
	}
	all := append([]string{"BM25"}, cols...)
	fmt.Fprintf(w, "Latest version of an updated instruction above every earlier one (share of the updated questions; latest / earlier first / neither found):\n\n")
	fmt.Fprintf(w, "| set | %s |\n|---|%s\n", strings.Join(all, " | "), strings.Repeat("---|", len(all)))
	for _, o := range s.orders {
		cells := make([]string, len(all))
		for i, c := range all {
			cells[i] = orderCell(o.by[half], c)
		}
		fmt.Fprintf(w, "| %s | %s |\n", o.set, strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
}
