package dream

import (
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/frontmatter"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0}, {"abcd", 1}, {"abcde", 2}, {"你好", 2}, {"ab你好", 3},
	}
	for _, tc := range tests {
		if got := estimateTokens(tc.in); got != tc.want {
			t.Errorf("estimateTokens(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestCompactStubsOldToolOutputsOnly(t *testing.T) {
	big := strings.Repeat("x", 4000) // ~1000 tokens
	tests := []struct {
		name      string
		tools     int
		budget    int
		keep      int
		wantStubs int
	}{
		{"under budget", 3, 1 << 20, 6, 0},
		{"over budget stubs oldest until under", 10, 6000, 6, 6},
		{"recent window is never stubbed", 10, 0, 6, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newConversation(0)
			c.add(Message{Role: "system", Content: big})
			for i := 0; i < tc.tools; i++ {
				c.add(Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "a", Function: FunctionCall{Name: "read_item", Arguments: "{}"}}}})
				c.add(Message{Role: "tool", ToolCallID: "a", Content: big})
			}
			c.add(Message{Role: "tool", Content: "short"})
			n := c.compact(tc.budget, tc.keep)
			if n != tc.wantStubs {
				t.Fatalf("stubbed %d, want %d", n, tc.wantStubs)
			}
			if c.msgs[0].Content != big {
				t.Error("system prompt was stubbed")
			}
			stubs := 0
			for i, m := range c.msgs {
				if m.Content == compactedStub {
					stubs++
					if i >= len(c.msgs)-tc.keep {
						t.Errorf("message %d inside the recent window was stubbed", i)
					}
				}
			}
			if stubs != tc.wantStubs {
				t.Errorf("%d stubs in history", stubs)
			}
			// The running total matches a full recount.
			sum := 0
			for _, m := range c.msgs {
				sum += messageTokens(m)
			}
			if sum != c.total {
				t.Errorf("total %d, recount %d", c.total, sum)
			}
			if tc.budget > 0 && tc.wantStubs > 0 && c.total > tc.budget {
				t.Errorf("still over budget: %d", c.total)
			}
			// A second pass finds nothing new.
			if again := c.compact(tc.budget, tc.keep); again != 0 && tc.budget != 0 {
				t.Errorf("second pass stubbed %d", again)
			}
		})
	}
}

func TestStubProcessedLog(t *testing.T) {
	c := newConversation(0)
	i := c.add(Message{Role: "tool", Content: "raw log text"})
	c.noteLogRead("2026-01-01_001.md", i)
	if c.stubProcessedLog("other.md") {
		t.Fatal("stubbed an unknown log")
	}
	if !c.stubProcessedLog(logKey("/data/memory/session-log/2026-01-01_001.md")) || c.msgs[i].Content != processedLogStub {
		t.Fatalf("not stubbed: %q", c.msgs[i].Content)
	}
}

func TestLogKey(t *testing.T) {
	for _, in := range []string{"2026-01-01_001", "2026-01-01_001.md", "/x/memory/session-log/2026-01-01_001.md", "memory/session-log/2026-01-01_001.md", " session-log/2026-01-01_001.md "} {
		if got := logKey(in); got != "2026-01-01_001.md" {
			t.Errorf("logKey(%q) = %q", in, got)
		}
	}
}

func TestListedLogPathsRoundTrip(t *testing.T) {
	logs := []logRef{{Path: "/d/memory/session-log/a.md"}, {Path: "/d/memory/session-log/b.md"}}
	p := renderUserPrompt(logs, "idle", fixedTime, "x.md", "- c.md\nlast diary")
	got := ListedLogPaths(p)
	if len(got) != 2 || got[0] != logs[0].Path || got[1] != logs[1].Path {
		t.Fatalf("got %v from:\n%s", got, p)
	}
}

func TestEmbeddedStrategyStrips(t *testing.T) {
	if s := frontmatter.Strip(DefaultStrategy); !strings.Contains(s, "Never store") || strings.HasPrefix(s, "---") {
		t.Error("embedded strategy malformed")
	}
}

var fixedTime = mustTime("2026-03-04T10:00:00Z")

func mustTime(s string) (t time.Time) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
