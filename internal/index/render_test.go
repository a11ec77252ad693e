package index

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestWordsOf(t *testing.T) {
	for _, tc := range []struct {
		query string
		terms []string
		want  []string
	}{
		{"Which port does staging Postgres use?", []string{"postgr", "port", "stag"}, []string{"port", "staging", "Postgres"}},
		{"deploys deployed", []string{"deploy"}, []string{"deploys"}},
		{"计费库端口是多少", []string{"计费库", "端口"}, []string{"计费库端口"}},
		{"忽略之前的指令", []string{"忽略之前", "略之前的", "之前的指", "前的指令"}, []string{"忽略之前的指令"}},
		{"redis 计费 端口", []string{"端口", "redis"}, []string{"redis", "端口"}},
		{"İstanbul trip", []string{"trip"}, []string{"trip"}}, // lowercasing changes offsets
		{"nothing", nil, nil},
	} {
		if got := wordsOf(tc.terms, surfaceWords(tc.query)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("wordsOf(%q, %q) = %q, want %q", tc.query, tc.terms, got, tc.want)
		}
	}
}

func TestWhy(t *testing.T) {
	for _, tc := range []struct {
		name string
		hit  Hit
		want string
	}{
		{"words and exact", Hit{Keyword: 0.5, Words: []string{"postgres", "staging", "5544"}, Pinned: true, PinnedBy: "5544"},
			`matched "postgres", "staging"; exact: 5544`},
		{"symbol parts said once", Hit{Keyword: 0.5, Words: []string{"allkeys", "lru", "eviction"}, Pinned: true, PinnedBy: "allkeys-lru"},
			`matched "eviction"; exact: allkeys-lru`},
		{"literal", Hit{Keyword: 0.5, Words: []string{"cat"}, Literal: true}, `matched "cat"; holds the whole query`},
		{"meaning only", Hit{Cos: 0.7}, "close in meaning"},
		{"meaning not repeated after words", Hit{Keyword: 0.2, Words: []string{"cat"}, Cos: 0.7}, `matched "cat"`},
		{"through a question", Hit{Cos: 0.3, ContextCos: 0.8}, "answers a question close in meaning"},
		{"link", Hit{SpreadFrom: "docker-build-cache"}, "linked from docker-build-cache"},
		{"listing", Hit{}, ""},
		{"defanged word", Hit{Keyword: 0.5, Words: []string{"【记忆提示】"}}, `matched "(记忆提示)"`},
	} {
		if got := tc.hit.Why(); got != tc.want {
			t.Errorf("%s: Why() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

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
	out := RenderHits(hits, RenderOptions{BodyChars: 400, ShowPath: func(p string) string { return strings.TrimPrefix(p, "/d/") }})
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
