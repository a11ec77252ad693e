package mcpserver

import (
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/somni-dev/somni/internal/dream"
)

// TestSamplingParams: system messages become the system prompt, a turn's
// tool calls tool_use blocks, and all the tool messages answering them one
// user message of tool_result blocks.
func TestSamplingParams(t *testing.T) {
	msgs := []dream.Message{
		{Role: "system", Content: "you dream"},
		{Role: "user", Content: "logs: a.md"},
		{Role: "assistant", Content: "reading", ReasoningContent: "hidden", ToolCalls: []dream.ToolCall{
			{ID: "c1", Function: dream.FunctionCall{Name: "read_session_log", Arguments: `{"path":"a.md"}`}},
			{ID: "c2", Function: dream.FunctionCall{Name: "list_items", Arguments: `not json`}},
		}},
		{Role: "tool", ToolCallID: "c1", Content: "the log"},
		{Role: "tool", ToolCallID: "c2", Content: "Error: list_items: bad arguments"},
		{Role: "assistant", ToolCalls: []dream.ToolCall{{ID: "c3", Function: dream.FunctionCall{Name: "decay_all_knowledge", Arguments: "{}"}}}},
		{Role: "tool", ToolCallID: "c3", Content: "done"},
	}
	p, err := samplingParams(msgs, dream.Tools())
	if err != nil {
		t.Fatal(err)
	}
	if p.SystemPrompt != "you dream" || len(p.Messages) != 5 || len(p.Tools) != len(dream.Tools()) || p.MaxTokens != SamplingMaxTokens {
		t.Fatalf("params %+v", p)
	}
	a := p.Messages[1]
	if a.Role != "assistant" || len(a.Content) != 3 {
		t.Fatalf("assistant turn %+v", a)
	}
	if tu := a.Content[1].(*mcp.ToolUseContent); tu.ID != "c1" || tu.Input["path"] != "a.md" {
		t.Errorf("tool_use %+v", tu)
	}
	if tu := a.Content[2].(*mcp.ToolUseContent); tu.Input["_raw_arguments"] != "not json" {
		t.Errorf("malformed arguments dropped: %+v", tu)
	}
	r := p.Messages[2]
	if r.Role != "user" || len(r.Content) != 2 {
		t.Fatalf("tool results %+v", r)
	}
	if tr := r.Content[1].(*mcp.ToolResultContent); tr.ToolUseID != "c2" || !tr.IsError {
		t.Errorf("tool_result %+v", tr)
	}
	if _, err := samplingParams([]dream.Message{{Role: "developer"}}, nil); err == nil {
		t.Error("an unknown role was sent")
	}
}

func TestReplyMessage(t *testing.T) {
	msg, err := replyMessage(&mcp.CreateMessageWithToolsResult{Role: "assistant", Content: []mcp.Content{
		&mcp.TextContent{Text: "filing"},
		&mcp.ToolUseContent{ID: "x", Name: "create_knowledge", Input: map[string]any{"name": "n"}},
		&mcp.ToolUseContent{Name: "decay_all_knowledge"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if msg.Content != "filing" || len(msg.ToolCalls) != 2 || msg.ToolCalls[0].Function.Arguments != `{"name":"n"}` ||
		msg.ToolCalls[1].ID != "call_2" || msg.ToolCalls[1].Function.Arguments != "{}" {
		t.Errorf("reply %+v", msg)
	}
	for name, res := range map[string]*mcp.CreateMessageWithToolsResult{
		"nil":       nil,
		"user role": {Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: "x"}}},
		"image":     {Role: "assistant", Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png"}}},
		"no name":   {Role: "assistant", Content: []mcp.Content{&mcp.ToolUseContent{ID: "1"}}},
	} {
		if _, err := replyMessage(res); !errors.Is(err, dream.ErrMalformedReply) {
			t.Errorf("%s: err %v, want a malformed reply", name, err)
		}
	}
}
