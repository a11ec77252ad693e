package bm25

import (
	"slices"
	"testing"
)

func postedDocs(ps []Posting) []int32 {
	var out []int32
	for _, p := range ps {
		out = append(out, p.Doc)
	}
	slices.Sort(out)
	return out
}

// TestWeightedPostings: Post and PostBytes post alike, Remove takes a
// document out of its terms' lists and the statistics, its id can be
// used again, and Compact keeps every list as it was.
func TestWeightedPostings(t *testing.T) {
	w := NewWeighted()
	w.Post(0, "ink", 2)
	w.PostBytes(0, []byte("tea"), 1)
	w.Add(0, 3)
	w.PostBytes(1, []byte("ink"), 1)
	w.Add(1, 1)
	w.Post(2, "tea", 3)
	w.Add(2, 3)
	var s Scores
	w.Score(NewQuery("tea"), 0, &s)
	before := s.Score[2]

	w.Remove(0, slices.Values([]string{"ink", "tea", "never-posted"}))
	w.Remove(0, slices.Values([]string{"ink"})) // twice: a no-op
	w.Remove(7, nil)                            // never added: a no-op
	tests := []struct {
		term string
		want []int32
	}{
		{"ink", []int32{1}},
		{"tea", []int32{2}},
		{"banana", nil},
	}
	check := func(when string) {
		t.Helper()
		for _, tc := range tests {
			if got := postedDocs(w.Postings(tc.term)); !slices.Equal(got, tc.want) {
				t.Errorf("%s: Postings(%q) = %v, want %v", when, tc.term, got, tc.want)
			}
		}
	}
	check("after Remove")
	if w.live != 2 || w.total != 4 {
		t.Errorf("after Remove: %d documents of total length %v, want 2 of 4", w.live, w.total)
	}
	w.Score(NewQuery("tea"), 0, &s)
	if before == 0 || s.Score[2] == before {
		t.Errorf("the scores did not follow the statistics: %v", before)
	}

	w.Compact()
	check("after Compact")
	for _, l := range w.lists {
		if cap(l) != len(l) {
			t.Errorf("a compacted list of %d holds %d", len(l), cap(l))
		}
	}
	w.Post(0, "tea", 1) // the id again, appending to a compacted list
	w.Add(0, 1)
	tests[1].want = []int32{0, 2}
	check("after reusing the id")
	if got := postedDocs(w.Postings("ink")); !slices.Equal(got, []int32{1}) {
		t.Errorf("appending to one compacted list changed another: ink = %v", got)
	}
}

// TestTermWeight: a word on nearly every document weighs little, a rare
// one, an unknown one and a stopword fully; too few documents weigh
// nothing down.
func TestTermWeight(t *testing.T) {
	texts := []string{"Tom: the kiln at the studio cracked my bowl"}
	for range 30 {
		texts = append(texts, "Maya: Maya note about the weekend")
	}
	w := weightedOf(texts...)
	tests := []struct {
		word     string
		min, max float64
	}{
		{"maya", 0, 0.3},
		{"kiln", 0.99, 1},
		{"banana", 1, 1},
		{"the", 1, 1},
		{"maya kiln", 0.5, 0.65}, // the mean of its terms
	}
	for _, tc := range tests {
		if got := w.TermWeight(tc.word); got < tc.min || got > tc.max {
			t.Errorf("TermWeight(%q) = %.3f, want in [%v, %v]", tc.word, got, tc.min, tc.max)
		}
	}
	if got := weightedOf("maya").TermWeight("maya"); got != 1 {
		t.Errorf("TermWeight over one document = %v, want 1", got)
	}
}
