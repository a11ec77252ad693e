package worktools

import (
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/index"
)

// TestEvident: a hit found by meaning alone is shown only above
// meaningFloor, and a hit linked from one dropped goes with it; any word,
// symbol or whole-query match keeps a hit however low, and a listing (no
// cosine) keeps everything.
func TestEvident(t *testing.T) {
	hit := func(name string, h index.Hit) index.Hit { h.Doc.Name = name; return h }
	tests := []struct {
		name string
		hits []index.Hit
		want []string
	}{
		{"meaning only, weak and strong", []index.Hit{
			hit("strong", index.Hit{Hybrid: 0.30, Cos: 0.55}),
			hit("weak", index.Hit{Hybrid: 0.13, Cos: 0.35}),
			hit("noise", index.Hit{Hybrid: 0.04, Cos: 0.26}),
		}, []string{"strong"}},
		{"through a question's context", []index.Hit{
			hit("answer", index.Hit{Hybrid: 0.20, ContextCos: 0.5}),
			hit("faint", index.Hit{Hybrid: 0.05, ContextCos: 0.3}),
		}, []string{"answer"}},
		{"any other evidence keeps a hit", []index.Hit{
			hit("word", index.Hit{Hybrid: 0.05, Cos: 0.3, Keyword: 0.1, Words: []string{"cache"}}),
			hit("symbol", index.Hit{Hybrid: 0.05, Cos: 0.3, Pinned: true, PinnedBy: "pg-stage-7"}),
			hit("whole query", index.Hit{Hybrid: 0.05, Literal: true}),
		}, []string{"word", "symbol", "whole query"}},
		{"a link from a dropped hit goes too", []index.Hit{
			hit("seed", index.Hit{Hybrid: 0.10, Cos: 0.3}),
			hit("kept-seed", index.Hit{Hybrid: 0.50, Keyword: 0.9}),
			hit("from-seed", index.Hit{Hybrid: 0.06, SpreadFrom: "seed"}),
			hit("from-kept", index.Hit{Hybrid: 0.30, SpreadFrom: "kept-seed"}),
		}, []string{"kept-seed", "from-kept"}},
		{"a listing", []index.Hit{hit("a", index.Hit{}), hit("b", index.Hit{})}, []string{"a", "b"}},
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
