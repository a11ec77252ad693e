package bm25

import (
	"math"
	"slices"
	"testing"

	"github.com/somni-dev/somni/internal/textseg"
)

// TestSegment checks the dynamic programme that scores one CJK run by its
// best set of non-overlapping windows.
func TestSegment(t *testing.T) {
	// a 4-char run "ABCD": term 0 AB, 1 BC, 2 CD, 3 ABC, 4 BCD, 5 ABCD,
	// 6 A, 7 B, 8 C, 9 D
	run := [][4]int16{{6, 0, 3, 5}, {7, 1, 4, -1}, {8, 2, -1, -1}, {9, -1, -1, -1}}
	tests := []struct {
		name string
		vals map[int16]float64
		want float64
	}{
		{"nothing held", nil, 0},
		{"one bigram", map[int16]float64{1: 2}, 2},
		{"overlapping windows count once", map[int16]float64{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1}, 2},
		{"long window worth more than its pieces", map[int16]float64{0: 1, 2: 1, 5: 3}, 3},
		{"pieces worth more than the long window", map[int16]float64{0: 2, 2: 2, 5: 3}, 4},
		{"bigram and trigram may not overlap", map[int16]float64{0: 1, 4: 1.5}, 1.5},
		{"overlap resolved to the better pair", map[int16]float64{1: 3, 0: 1, 2: 1}, 3},
		{"characters fill what no window covers", map[int16]float64{1: 2, 6: 0.5, 9: 0.5}, 3},
		{"a window beats its own characters when worth more", map[int16]float64{0: 2, 6: 0.5, 7: 0.5}, 2},
	}
	best := make([]float64, len(run)+1)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := textseg.Segment(run, func(i int16) float64 { return tc.vals[i] }, best)
			if math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("segment = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestNewQueryRuns checks that every window of a CJK run is mapped to
// its term and stopword bigrams are left out.
func TestNewQueryRuns(t *testing.T) {
	tests := []struct {
		q        string
		runs     int
		windowAt map[[2]int]string // (run start, length) → window
		absent   [][2]int          // (start, length) with no term
	}{
		{q: "宠物医院", runs: 1, windowAt: map[[2]int]string{{0, 2}: "宠物", {0, 4}: "宠物医院", {1, 3}: "物医院", {2, 2}: "医院", {3, 1}: "院"}, absent: [][2]int{{3, 2}, {2, 3}}},
		{q: "我们的猫", runs: 1, windowAt: map[[2]int]string{{1, 2}: "们的", {0, 3}: "我们的", {3, 1}: "猫", {1, 1}: "们"}, absent: [][2]int{{0, 2}, {0, 1}, {2, 1}}}, // 我们, 我 and 的 are stopwords
		{q: "redis 猫", runs: 0}, // a 1-char run is a plain term
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			lq := NewQuery(tc.q)
			if len(lq.runs) != tc.runs {
				t.Fatalf("runs = %d, want %d", len(lq.runs), tc.runs)
			}
			for at, w := range tc.windowAt {
				i := lq.runs[0][at[0]][at[1]-1]
				if i < 0 || lq.terms[i] != w || !lq.inRun[i] {
					t.Errorf("window at %v = %d, want %q", at, i, w)
				}
			}
			for _, at := range tc.absent {
				if i := lq.runs[0][at[0]][at[1]-1]; i >= 0 {
					t.Errorf("window at %v = %q, want none", at, lq.terms[i])
				}
			}
		})
	}
}

// weightedOf indexes texts as documents 0, 1, … with every term counted
// once per occurrence, as one field of weight 1.
func weightedOf(texts ...string) *Weighted {
	w := NewWeighted()
	for i, s := range texts {
		tf := map[string]float32{}
		var dl float32
		for _, t := range textseg.IndexTerms(s) {
			tf[t]++
			dl++
		}
		for t, f := range tf {
			w.Post(int32(i), t, f)
		}
		w.Add(int32(i), dl)
	}
	return w
}

// ranked is the documents s scored above zero, best first, ties by id.
func ranked(s *Scores) []int32 {
	out := slices.Clone(s.Touched)
	slices.SortStableFunc(out, func(a, b int32) int {
		if s.Score[a] != s.Score[b] {
			if s.Score[a] > s.Score[b] {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	return out
}

// TestScore: the order Score gives, with every score in (0, 1]; the
// Scores are reused from case to case, as a pooled one is.
func TestScore(t *testing.T) {
	w := weightedOf([]string{
		0: "redis cache eviction policy and other notes about nothing much",
		1: "redis cache",
		2: "postgres replica lag",
		3: "宠物医院周末营业吗",
		4: "那家宠物医院挺远",
		5: "周末照常营业，时间不变",
		6: "tea oolong",
	}...)
	tests := []struct {
		q    string
		want []int32
	}{
		{"redis cache", []int32{1, 0}},      // the shorter document first
		{"redis replica", []int32{2, 1, 0}}, // the rarer term first
		{"banana", nil},
		// the document holding most comes first, and three separate
		// words beat one long word (its windows count once)
		{"宠物医院周末营业时间", []int32{3, 5, 4}},
		{"oolong redis", []int32{6, 1, 0}},
	}
	var s Scores
	for _, tc := range tests {
		w.Score(NewQuery(tc.q), 0.3, &s)
		if got := ranked(&s); !slices.Equal(got, tc.want) {
			t.Errorf("Score(%q) ranks %v, want %v", tc.q, got, tc.want)
		}
		for d, v := range s.Score {
			if touched := slices.Contains(s.Touched, int32(d)); touched != (v > 0) || v > 1 {
				t.Errorf("Score(%q): document %d scores %v, touched %v", tc.q, d, v, touched)
			}
		}
	}
}

// TestScoreEvidence: what Score says of each document besides its score.
func TestScoreEvidence(t *testing.T) {
	texts := []string{"Tom: the kiln at the studio cracked my bowl", "ox"}
	for range 30 {
		texts = append(texts, "Maya: Maya note about the weekend")
	}
	w := weightedOf(texts...)
	var s Scores
	w.Score(NewQuery("maya kiln bowl ox"), 0.3, &s)
	tests := []struct {
		doc             int32
		matched         uint16
		strong, telling bool
	}{
		{0, 2, true, true},  // kiln and bowl: rare words
		{1, 1, false, true}, // ox: too short to count on its own
		{2, 1, true, false}, // maya: on nearly every document
	}
	for _, tc := range tests {
		if s.Matched[tc.doc] != tc.matched || s.Strong[tc.doc] != tc.strong || s.Telling[tc.doc] != tc.telling {
			t.Errorf("document %d: matched %d strong %v telling %v, want %d %v %v", tc.doc,
				s.Matched[tc.doc], s.Strong[tc.doc], s.Telling[tc.doc], tc.matched, tc.strong, tc.telling)
		}
	}
	w.Score(NewQuery("maya"), 0, &s)
	if !s.Telling[2] {
		t.Error("a telling bar of 0 must let every term tell")
	}
	if s.Score[0] != 0 || s.Matched[0] != 0 || s.Strong[0] {
		t.Error("a reused Scores kept the last query's evidence")
	}
}
