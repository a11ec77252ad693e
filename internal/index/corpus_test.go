package index

import (
	"context"
	"math"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
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

// TestNewLexQueryRuns checks that every window of a CJK run is mapped to
// its term and stopword bigrams are left out.
func TestNewLexQueryRuns(t *testing.T) {
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
			lq := newLexQuery(tc.q)
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

// TestCJKMatchCountedOnce checks that a long CJK match is one piece of
// evidence, not one per overlapping window: separate query words beat a
// single long word, and keyword stays in (0, 1] with the exact text on top.
func TestCJKMatchCountedOnce(t *testing.T) {
	filler := []Doc{
		{Path: "f1", Body: "今天下雨了，记得带伞。"},
		{Path: "f2", Body: "明天早上开会讨论预算。"},
		{Path: "f3", Body: "晚饭吃了面条和饺子。"},
		{Path: "f4", Body: "周报已经发给经理了。"},
	}
	tests := []struct {
		name string
		q    string
		docs []Doc
		want string // top hit
	}{
		{"three separate words beat one long word", "宠物医院周末营业时间",
			[]Doc{{Path: "long", Body: "那家宠物医院挺远。"}, {Path: "words", Body: "周末照常营业，时间不变。"}}, "words"},
		{"the whole phrase beats a part of it", "宠物医院周末营业",
			[]Doc{{Path: "part", Body: "那家宠物医院挺远。"}, {Path: "whole", Body: "宠物医院周末营业吗"}}, "whole"},
		{"an artefact window adds nothing", "生日是哪天",
			[]Doc{{Path: "two", Body: "生日哪天过都行。"}, {Path: "artefact", Body: "生日是下周。"}}, "two"},
	}
	sc := NewScorer(embed.Off(), nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := sc.ScoreDocs(context.Background(), Query{Text: tc.q}, append(append([]Doc(nil), filler...), tc.docs...))
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Doc.Path != tc.want {
				t.Fatalf("top = %v, want %s", hits, tc.want)
			}
			for _, h := range hits {
				if h.Keyword <= 0 || h.Keyword > 1 {
					t.Errorf("%s: keyword %v outside (0, 1]", h.Doc.Path, h.Keyword)
				}
			}
		})
	}
}
