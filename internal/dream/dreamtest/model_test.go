package dreamtest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/dream"
)

func TestServeLLMChat(t *testing.T) {
	user := dream.Message{Role: "user", Content: "x\n\nSession logs to process, oldest first / 待处理的 session-log（旧→新）:\n- /d/memory/session-log/a.md\n"}
	params, _ := json.Marshal(map[string]any{"messages": []dream.Message{{Role: "system", Content: "s"}, user}, "tools": dream.Tools()})
	m := NewModel(
		Step{Reasoning: "r", Calls: []Call{{Name: "read_session_log", Args: map[string]any{"path": "$LOG0"}}}, Usage: dream.Usage{PromptTokens: 7}},
		Step{Calls: []Call{{Name: "read_session_log", Args: map[string]any{"path": "$LOG3"}}}},
		Step{Err: errors.New("host says no")},
	)
	ctx := context.Background()
	raw, err := m.ServeLLMChat(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Message dream.Message `json:"message"`
		Usage   dream.Usage   `json:"usage"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.Usage.PromptTokens != 7 || res.Message.ReasoningContent != "r" || len(res.Message.ToolCalls) != 1 ||
		res.Message.ToolCalls[0].Function.Arguments != `{"path":"/d/memory/session-log/a.md"}` {
		t.Fatalf("reply = %s", raw)
	}
	if len(m.Tools()) != 15 {
		t.Fatalf("tools not decoded: %d", len(m.Tools()))
	}
	if _, err := m.ServeLLMChat(ctx, params); err == nil || !strings.Contains(err.Error(), "$LOG3") {
		t.Fatalf("bad $LOG index: %v", err)
	}
	if _, err := m.ServeLLMChat(ctx, params); err == nil || err.Error() != "host says no" {
		t.Fatalf("scripted error: %v", err)
	}
	if _, err := m.ServeLLMChat(ctx, params); !errors.Is(err, ErrScriptExhausted) {
		t.Fatalf("exhausted: %v", err)
	}
	if _, err := m.ServeLLMChat(ctx, json.RawMessage(`[1]`)); err == nil {
		t.Fatal("bad params accepted")
	}
}
