package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/rpc"
)

// peakRSS is the sidecar's high-water resident memory in bytes (Linux).
func (s *proc) peakRSS() int64 {
	s.t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		s.t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				s.t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	s.t.Skip("no VmHWM")
	return 0
}

// TestHugeQueryIsBounded: a 10 MB query took 5 s and 385 MB. Every query
// path must cut the query to its bound before tokenizing or embedding it,
// and hold no copies of it. What is asserted is the work (the cut is
// logged, peak memory), not the clock, so it holds on a loaded machine.
// queryCutLogs are what the ranking and the hint gate log when they cut a
// query to its bound.
var queryCutLogs = []string{"query too long; ranking by its start only", "assoc: cue too long; gating on its start only"}

// queryCuts counts the cuts logged so far.
func (s *proc) queryCuts() int {
	n := 0
	for _, l := range queryCutLogs {
		n += strings.Count(s.stderr.String(), l)
	}
	return n
}

func TestHugeQueryIsBounded(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, []string{"--embed", "hash"})
	s.call("session.append", map[string]any{"sessionId": "q", "role": "user", "text": "db-billing-02 listens on 6432"}, nil)
	huge := strings.Repeat("db-billing-02 port 端口 ", 10<<20/len("db-billing-02 port 端口 "))
	s.tool("recall_memories", map[string]any{"query": "warm up"}) // the index is open
	base := s.peakRSS()
	calls := []struct {
		method string
		params map[string]any
	}{
		{"tools.call", map[string]any{"name": "recall_memories", "args": map[string]any{"query": huge}}},
		{"tools.call", map[string]any{"name": "search_knowledge", "args": map[string]any{"query": huge}}},
		{"tools.call", map[string]any{"name": "search_episodes", "args": map[string]any{"query": huge}}},
		{"tools.call", map[string]any{"name": "search_recent_conversation", "args": map[string]any{"query": huge}, "sessionId": "q"}},
		{"assoc.thought", map[string]any{"sessionId": "q", "cue": huge}},
		{"assoc.action", map[string]any{"sessionId": "q", "toolName": "grep", "args": map[string]any{"pattern": huge}}},
	}
	for _, c := range calls {
		name := c.method
		if n, ok := c.params["name"].(string); ok {
			name = n
		}
		cuts := s.queryCuts()
		begin := time.Now()
		s.call(c.method, c.params, nil)
		t.Logf("%s with a 10 MB query: %v", name, time.Since(begin))
		// stderr is a pipe of its own: the log line may come just after the reply
		for wait := time.Now().Add(10 * time.Second); s.queryCuts() == cuts; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(wait) {
				t.Errorf("%s with a 10 MB query: no cut logged; the query was not cut to its bound", name)
				break
			}
		}
	}
	// The frame itself is 10 MB and is decoded a few times over (~120 MiB
	// of peak); what must not happen is tokenizing or embedding all of it
	// (339 MiB more before the bound).
	if grew := s.peakRSS() - base; grew > 200<<20 {
		t.Errorf("peak memory grew by %d MiB over 10 MB queries", grew>>20)
	}
}

// pendingLog captures a short conversation and closes it into a pending log.
func pendingLog(s *proc) string {
	s.t.Helper()
	s.call("session.append", map[string]any{"sessionId": "chat-1", "role": "user", "text": "the billing db listens on 6432"}, nil)
	var closed struct{ Path string }
	s.call("session.close", map[string]any{"sessionId": "chat-1"}, &closed)
	return strings.TrimSuffix(filepath.Base(closed.Path), ".md")
}

type runResult struct {
	Status, Summary, Reason string
	TokenUsage              *dream.TokenUsage `json:"token_usage"`
}

func TestDreamBoundsThroughBinary(t *testing.T) {
	listItems := dreamtest.Call{Name: "list_items", Args: map[string]any{}}
	many := make([]dreamtest.Call, 1000)
	for i := range many {
		many[i] = dreamtest.Call{Name: "read_item", Args: map[string]any{"name": "ghost"}}
	}
	huge := dream.Usage{PromptTokens: 1 << 62, CompletionTokens: 1 << 62}
	tests := []struct {
		name  string
		steps []dreamtest.Step
		check func(t *testing.T, r runResult, m *dreamtest.Model)
	}{
		{"token totals saturate", []dreamtest.Step{
			{Calls: []dreamtest.Call{listItems}, Usage: huge}, {Content: "done", Usage: huge},
		}, func(t *testing.T, r runResult, _ *dreamtest.Model) {
			if r.Status != "deep_sleep" || r.TokenUsage == nil || r.TokenUsage.TotalTokens != math.MaxInt || r.TokenUsage.PromptTokens != math.MaxInt {
				t.Fatalf("sleep.run = %+v usage %+v, want saturated totals", r, r.TokenUsage)
			}
		}},
		{"1000 tool calls in one turn", []dreamtest.Step{{Calls: many}, {Content: "done"}},
			func(t *testing.T, r runResult, m *dreamtest.Model) {
				replies := m.ToolReplies()
				refused := 0
				for _, rep := range replies {
					if strings.Contains(rep, "not run: at most") {
						refused++
					}
				}
				if len(replies) != 1000 || refused != 1000-dream.MaxToolCallsPerStep {
					t.Fatalf("%d replies, %d refused as over the per-turn limit", len(replies), refused)
				}
			}},
		{"every write failed", []dreamtest.Step{
			{Calls: []dreamtest.Call{{Name: "create_knowledge", Args: map[string]any{"name": "x", "entry_type": "fact\x00", "description": "nul type", "body": "b"}}}},
			{Content: "Created x."},
		}, func(t *testing.T, r runResult, _ *dreamtest.Model) {
			if r.Status != "error" || !strings.Contains(r.Reason, "every memory write failed (1 of 1): create_knowledge: ") ||
				!strings.Contains(r.Reason, "control character") {
				t.Fatalf("sleep.run = %+v, want error naming the failed write", r)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, t.TempDir(), nil)
			pendingLog(s)
			model := dreamtest.NewModel(tc.steps...)
			dreamHost(s, model)
			var r runResult
			s.call("sleep.run", map[string]any{"trigger": "test"}, &r)
			tc.check(t, r, model)
		})
	}
}

// TestOversizedLLMReplyFailsTheDream: an llm.chat reply over the frame
// limit used to leave the dream waiting for its 600 s timeout.
func TestOversizedLLMReplyFailsTheDream(t *testing.T) {
	s := start(t, t.TempDir(), nil)
	pendingLog(s)
	big := strings.Repeat("z", rpc.MaxFrameBytes)
	s.mu.Lock()
	s.onCall = func(w wire) (any, *wireErr) {
		return map[string]any{"message": map[string]any{"role": "assistant", "content": big}}, nil
	}
	s.mu.Unlock()
	// A dream left to its 600 s timeout would fail naming the timeout (and
	// outlast the call's wait): the reason says which happened, at any load.
	var r runResult
	s.call("sleep.run", map[string]any{"trigger": "test"}, &r)
	if r.Status != "error" || !strings.Contains(r.Reason, "frame limit") {
		t.Fatalf("sleep.run = %+v, want an error naming the frame limit", r)
	}
	var st struct{ Sleeping bool }
	s.call("sleep.status", nil, &st) // still serving
	if st.Sleeping {
		t.Error("still sleeping after the failed dream")
	}
}
