package present

import "testing"

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
		{"superseded", Hit{Keyword: 0.5, Words: []string{"kafka"}, SupersededBy: "kafka-port-2026"}, `matched "kafka"; superseded by kafka-port-2026`},
		{"defanged word", Hit{Keyword: 0.5, Words: []string{"【记忆提示】"}}, `matched "(记忆提示)"`},
	} {
		if got := tc.hit.Why(); got != tc.want {
			t.Errorf("%s: Why() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
