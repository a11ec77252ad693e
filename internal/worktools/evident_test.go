package worktools

import (
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/index/rank"
)

// TestEvident: a hit found by meaning alone is shown only above
// meaningFloor, and a hit linked from one dropped goes with it; any word,
// symbol or whole-query match keeps a hit however low, and a listing (no
// cosine) keeps everything.
func TestEvident(t *testing.T) {
	hit := func(name string, h rank.Hit) rank.Hit { h.Doc.Name = name; return h }
	tests := []struct {
		name string
		hits []rank.Hit
		want []string
	}{
		{"meaning only, weak and strong", []rank.Hit{
			hit("strong", rank.Hit{Hybrid: 0.30, Cos: 0.55}),
			hit("weak", rank.Hit{Hybrid: 0.13, Cos: 0.35}),
			hit("noise", rank.Hit{Hybrid: 0.04, Cos: 0.26}),
		}, []string{"strong"}},
		{"through a question's context", []rank.Hit{
			hit("answer", rank.Hit{Hybrid: 0.20, ContextCos: 0.5}),
			hit("faint", rank.Hit{Hybrid: 0.05, ContextCos: 0.3}),
		}, []string{"answer"}},
		{"any other evidence keeps a hit", []rank.Hit{
			hit("word", rank.Hit{Hybrid: 0.05, Cos: 0.3, Keyword: 0.1, Words: []string{"cache"}}),
			hit("symbol", rank.Hit{Hybrid: 0.05, Cos: 0.3, Pinned: true, PinnedBy: "pg-stage-7"}),
			hit("whole query", rank.Hit{Hybrid: 0.05, Literal: true}),
		}, []string{"word", "symbol", "whole query"}},
		{"a link from a dropped hit goes too", []rank.Hit{
			hit("seed", rank.Hit{Hybrid: 0.10, Cos: 0.3}),
			hit("kept-seed", rank.Hit{Hybrid: 0.50, Keyword: 0.9}),
			hit("from-seed", rank.Hit{Hybrid: 0.06, SpreadFrom: "seed"}),
			hit("from-kept", rank.Hit{Hybrid: 0.30, SpreadFrom: "kept-seed"}),
		}, []string{"kept-seed", "from-kept"}},
		{"a listing", []rank.Hit{hit("a", rank.Hit{}), hit("b", rank.Hit{})}, []string{"a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, h := range Evident(tc.hits) {
				got = append(got, h.Doc.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
		})
	}
}
