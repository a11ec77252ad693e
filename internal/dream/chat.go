package dream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Message is one chat message in the OpenAI chat-completions shape; it is what
// goes over `llm.chat` and what the openai backend sends.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ReasoningContent is kept from thinking models (DeepSeek) and sent back on
	// the assistant message in later turns, which those APIs require.
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one function call proposed by the model.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its arguments as a raw JSON string.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool describes one tool offered to the model.
type Tool struct {
	Type     string      `json:"type"`
	Function FunctionDef `json:"function"`
}

// FunctionDef is a tool's name, description and JSON Schema of its parameters.
type FunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Usage is the token accounting of one model call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens"`
}

// ChatBackend is one way to reach a chat model; the loop has a single code path
// over it whether the host or an OpenAI-compatible endpoint answers.
type ChatBackend interface {
	// Chat sends the conversation and the tools and returns the assistant's
	// reply. It must return promptly once ctx is done.
	Chat(ctx context.Context, messages []Message, tools []Tool) (Message, Usage, error)
	// Name is what sleep.status and ping report as `llm`: "host" or "openai".
	Name() string
}

// HostCaller sends a JSON-RPC request to the host and decodes its result; the
// sidecar passes its connection so that dream does not depend on internal/rpc.
type HostCaller interface {
	Call(ctx context.Context, method string, params, result any) error
}

// HostChatTimeout bounds one reverse `llm.chat` call, as the original sidecar did.
const HostChatTimeout = 600 * time.Second

// ErrMalformedReply marks a model reply that does not have the chat shape.
var ErrMalformedReply = errors.New("malformed llm.chat result")

// HostBackend asks the host's own model through the reverse `llm.chat` call.
type HostBackend struct {
	Host HostCaller
	// Timeout overrides HostChatTimeout when positive (tests).
	Timeout time.Duration
}

// NewHostBackend returns the default backend that reuses the host's model.
func NewHostBackend(h HostCaller) *HostBackend { return &HostBackend{Host: h} }

// Name reports "host".
func (b *HostBackend) Name() string { return "host" }

type hostChatParams struct {
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools"`
}

type hostChatResult struct {
	Message *Message `json:"message"`
	Usage   *Usage   `json:"usage"`
}

// Chat sends `llm.chat {messages, tools}` and validates the reply's shape.
func (b *HostBackend) Chat(ctx context.Context, messages []Message, tools []Tool) (Message, Usage, error) {
	if b.Host == nil {
		return Message{}, Usage{}, errors.New("host backend: no host connection")
	}
	timeout := b.Timeout
	if timeout <= 0 {
		timeout = HostChatTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if tools == nil {
		tools = []Tool{}
	}
	var raw json.RawMessage
	if err := b.Host.Call(ctx, "llm.chat", hostChatParams{Messages: messages, Tools: tools}, &raw); err != nil {
		return Message{}, Usage{}, fmt.Errorf("llm.chat: %w", err)
	}
	return decodeHostReply(raw)
}

// decodeHostReply turns the raw `llm.chat` result into a message, refusing
// anything that would make the loop misbehave instead of crashing on it.
func decodeHostReply(raw json.RawMessage) (Message, Usage, error) {
	var res hostChatResult
	if len(raw) == 0 || string(raw) == "null" {
		return Message{}, Usage{}, fmt.Errorf("%w: empty result", ErrMalformedReply)
	}
	if len(raw) > MaxReplyBytes {
		return Message{}, Usage{}, fmt.Errorf("llm.chat result is %d bytes; the limit is %d", len(raw), MaxReplyBytes)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return Message{}, Usage{}, fmt.Errorf("%w: %v", ErrMalformedReply, err)
	}
	if res.Message == nil {
		return Message{}, Usage{}, fmt.Errorf("%w: no message", ErrMalformedReply)
	}
	msg := *res.Message
	if err := normalizeReply(&msg); err != nil {
		return Message{}, Usage{}, err
	}
	var u Usage
	if res.Usage != nil {
		u = *res.Usage
	}
	if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.CachedTokens < 0 {
		return Message{}, Usage{}, fmt.Errorf("%w: negative token usage", ErrMalformedReply)
	}
	return msg, u, nil
}

// normalizeReply checks an assistant reply from any backend and fills the
// fields the OpenAI shape makes optional (role, call type, empty arguments).
func normalizeReply(m *Message) error {
	switch m.Role {
	case "", "assistant":
		m.Role = "assistant"
	default:
		return fmt.Errorf("%w: role %q, want assistant", ErrMalformedReply, m.Role)
	}
	m.ToolCallID = ""
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		if strings.TrimSpace(tc.Function.Name) == "" {
			return fmt.Errorf("%w: tool call %d has no function name", ErrMalformedReply, i)
		}
		if tc.Type == "" {
			tc.Type = "function"
		}
		if tc.ID == "" {
			// Some hosts omit ids; the tool message must still be paired.
			tc.ID = fmt.Sprintf("call_%d", i)
		}
		if strings.TrimSpace(tc.Function.Arguments) == "" {
			tc.Function.Arguments = "{}"
		}
	}
	return nil
}
