package main

import (
	"context"
	"slices"
	"testing"

	"github.com/somni-dev/somni/internal/index/rank"
)

// The baseline ranks by BM25: a rare term outweighs a common one, a match
// in a short entry outranks the same match in a long one, and entries
// with no query term are left out.
func TestBM25Ranking(t *testing.T) {
	docs := []rank.Doc{
		{Path: "long", Name: "cache", Body: "redis cache notes with many other words about nothing in particular at all"},
		{Path: "short", Name: "cache", Body: "redis cache"},
		{Path: "rare", Name: "sentinel", Body: "cache sentinel quorum"},
		{Path: "none", Name: "tea", Body: "oolong"},
	}
	s := bm25System(docs, false)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"redis", []string{"short", "long"}},
		{"cache sentinel", []string{"rare", "short", "long"}},
		{"banana", nil},
	} {
		got, err := s.search(context.Background(), tc.q, 10)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %v, %v; want %v", tc.q, got, err, tc.want)
		}
	}
}
