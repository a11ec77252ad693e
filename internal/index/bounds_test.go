package index

import (
	"context"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
)

// TestBoundedQueries: a query that limits itself to a stretch of time
// ("before March 2026", "只看 2026 年 3 月以前") leaves out the entries
// placed outside it, instead of lifting the ones on the day it names.
func TestBoundedQueries(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 10, 0, 0, 0, time.UTC) }
	docs := []Doc{
		{Path: "move-2025", Kind: KindEpisode, Name: "move-2025", Body: "我们搬家到了杭州。We moved house to Hangzhou.", When: day(2025, 1, 10)},
		{Path: "move-2026-feb", Kind: KindEpisode, Name: "move-2026-feb", Body: "我们又搬家到了上海。We moved house again, to Shanghai.", When: day(2026, 2, 20)},
		{Path: "move-2026-mar", Kind: KindEpisode, Name: "move-2026-mar", Body: "三月我们搬家到了北京。In March we moved house to Beijing.", When: day(2026, 3, 15)},
		{Path: "move-2026-may", Kind: KindEpisode, Name: "move-2026-may", Body: "我们搬家到了深圳。We moved house to Shenzhen.", When: day(2026, 5, 2)},
		{Path: "move-undated", Kind: KindKnowledge, Name: "moving-tips", Body: "我们搬家前先订好车。Book the van before you move house."},
	}
	sc := NewScorer(embed.Off(), nil)
	sc.now = func() time.Time { return day(2026, 12, 4) }
	for _, tc := range []struct {
		q          string
		want, gone []string
	}{
		{"只看 2026 年 3 月以前，我们搬过几次家？", []string{"move-2025", "move-2026-feb", "move-undated"}, []string{"move-2026-mar", "move-2026-may"}},
		{"where did we move house before March 2026?", []string{"move-2025", "move-2026-feb"}, []string{"move-2026-mar", "move-2026-may"}},
		{"where did we move house after March 2026?", []string{"move-2026-may"}, []string{"move-2025", "move-2026-feb", "move-2026-mar"}},
		{"2026年以来搬家", []string{"move-2026-feb", "move-2026-mar", "move-2026-may"}, []string{"move-2025"}},
		// a question about a month still lifts that month, and drops nothing
		{"where did we move house in March 2026?", []string{"move-2026-mar", "move-2025", "move-2026-may"}, nil},
	} {
		hits, err := sc.ScoreDocs(context.Background(), Query{Text: tc.q, Limit: 10}, docs)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, h := range hits {
			got[h.Doc.Path] = true
		}
		for _, p := range tc.want {
			if !got[p] {
				t.Errorf("%q: %s missing from %v", tc.q, p, got)
			}
		}
		for _, p := range tc.gone {
			if got[p] {
				t.Errorf("%q: %s is outside the bound, got %v", tc.q, p, got)
			}
		}
		if tc.gone == nil && hits[0].Doc.Path != "move-2026-mar" {
			t.Errorf("%q: first %s, want the March move", tc.q, hits[0].Doc.Path)
		}
	}
}
