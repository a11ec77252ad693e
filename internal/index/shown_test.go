package index

import (
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/present"
)

// TestRenderHitBounds checks that a hit is at most a header, a reason and
// noteLines quoted lines however long its memory is, and that an episode
// shows its details on one line.
func TestRenderHitBounds(t *testing.T) {
	long := strings.Repeat("a line of a long runbook\n", 80)
	ep := "- when: 2026-12-01T10:14:00\n- actors: user, agent\n- outcome: success\n- tags: postgres\n- salience: mid\n- source: 2026-12-01_001"
	hits := []Hit{
		{Doc: Doc{Path: "/d/memory/knowledge/runbook/SKILL.md", Kind: KindKnowledge, Name: "runbook", Description: "the runbook",
			AppliesWhen: "on call", Body: long}, Hybrid: 0.5, Keyword: 0.3, Words: []string{"runbook"}},
		{Doc: Doc{Path: "/d/memory/episodes/e/SKILL.md", Kind: KindEpisode, Type: "episode", Name: "e", Description: "fixed the port",
			Body: ep, When: time.Date(2026, 12, 1, 10, 14, 0, 0, time.Local)}, Hybrid: 0.3},
	}
	out := present.RenderHits(Shown(hits), present.RenderOptions{BodyChars: 400, ShowPath: func(p string) string { return strings.TrimPrefix(p, "/d/") }})
	want := `1. runbook (knowledge, 0.50) · memory/knowledge/runbook/SKILL.md
   matched "runbook"
   > the runbook
   > applies when: on call
   > a line of a long runbook
   > a line of a long runbook
   > a line of a long runbook
   > … (13 more lines not shown)
2. e (episode, 2026-12-01 10:14, 0.30) · memory/episodes/e/SKILL.md
   > fixed the port
   > actors: user, agent; outcome: success; tags: postgres`
	if out != want {
		t.Errorf("render\n got:\n%s\nwant:\n%s", out, want)
	}
}

// TestEvident: a hit found by meaning alone is shown only above
// meaningFloor, and a hit linked from one dropped goes with it; any word,
// symbol or whole-query match keeps a hit however low, and a listing (no
// cosine) keeps everything.
func TestEvident(t *testing.T) {
	hit := func(name string, h Hit) Hit { h.Doc.Name = name; return h }
	tests := []struct {
		name string
		hits []Hit
		want []string
	}{
		{"meaning only, weak and strong", []Hit{
			hit("strong", Hit{Hybrid: 0.30, Cos: 0.55}),
			hit("weak", Hit{Hybrid: 0.13, Cos: 0.35}),
			hit("noise", Hit{Hybrid: 0.04, Cos: 0.26}),
		}, []string{"strong"}},
		{"through a question's context", []Hit{
			hit("answer", Hit{Hybrid: 0.20, ContextCos: 0.5}),
			hit("faint", Hit{Hybrid: 0.05, ContextCos: 0.3}),
		}, []string{"answer"}},
		{"any other evidence keeps a hit", []Hit{
			hit("word", Hit{Hybrid: 0.05, Cos: 0.3, Keyword: 0.1, Words: []string{"cache"}}),
			hit("symbol", Hit{Hybrid: 0.05, Cos: 0.3, Pinned: true, PinnedBy: "pg-stage-7"}),
			hit("whole query", Hit{Hybrid: 0.05, Literal: true}),
		}, []string{"word", "symbol", "whole query"}},
		{"a link from a dropped hit goes too", []Hit{
			hit("seed", Hit{Hybrid: 0.10, Cos: 0.3}),
			hit("kept-seed", Hit{Hybrid: 0.50, Keyword: 0.9}),
			hit("from-seed", Hit{Hybrid: 0.06, SpreadFrom: "seed"}),
			hit("from-kept", Hit{Hybrid: 0.30, SpreadFrom: "kept-seed"}),
		}, []string{"kept-seed", "from-kept"}},
		{"a listing", []Hit{hit("a", Hit{}), hit("b", Hit{})}, []string{"a", "b"}},
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
