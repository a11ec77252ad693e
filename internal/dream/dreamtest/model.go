// Package dreamtest provides a scripted fake chat model for the dreamer's
// tests: it drives a Dreamer directly as a ChatBackend, or answers `llm.chat`
// for a fake host speaking JSON-RPC over pipes.
//
//	model.go   Model (NewModel): the fake backend and the requests it saw
//	script.go  Consolidate: a scripted dream's tool calls
package dreamtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/somni-dev/somni/internal/dream"
)

// Call is one scripted tool call. Args is marshalled to JSON unless it is a
// string, which is sent verbatim (to script malformed arguments). Any string
// value "$LOG<n>" is replaced by the path of the n-th log the dreamer listed.
type Call struct {
	Name string
	Args any
}

// Step is one scripted model turn.
type Step struct {
	// Content is the assistant text; with no Calls it is the dream's final summary.
	Content   string
	Reasoning string
	Calls     []Call
	Usage     dream.Usage
	// Err makes this turn fail, like a host answering with a JSON-RPC error.
	Err error
	// Block, when non-nil, holds the turn until it is closed or ctx ends;
	// Model.Blocked is signalled when the turn starts waiting.
	Block <-chan struct{}
	// IgnoreContext makes a Block step wait for Block alone, like a host
	// that never answers: the dreamer must abandon the call by itself.
	IgnoreContext bool
}

// ErrScriptExhausted is returned when the dreamer asks for more turns than scripted.
var ErrScriptExhausted = errors.New("dreamtest: script exhausted")

// Model is a scripted ChatBackend; it is safe for concurrent use.
type Model struct {
	// BackendName is what Name reports; "host" when empty.
	BackendName string
	// Blocked receives a value each time a Block step starts waiting.
	Blocked chan struct{}

	mu       sync.Mutex
	steps    []Step
	next     int
	requests [][]dream.Message
	tools    []dream.Tool
}

// NewModel returns a model that answers with steps in order.
func NewModel(steps ...Step) *Model {
	return &Model{steps: steps, Blocked: make(chan struct{}, 16)}
}

// Name implements dream.ChatBackend.
func (m *Model) Name() string {
	if m.BackendName == "" {
		return "host"
	}
	return m.BackendName
}

// Chat implements dream.ChatBackend.
func (m *Model) Chat(ctx context.Context, msgs []dream.Message, tools []dream.Tool) (dream.Message, dream.Usage, error) {
	m.mu.Lock()
	m.requests = append(m.requests, cloneMessages(msgs))
	m.tools = tools
	if m.next >= len(m.steps) {
		m.mu.Unlock()
		return dream.Message{}, dream.Usage{}, ErrScriptExhausted
	}
	st := m.steps[m.next]
	m.next++
	m.mu.Unlock()

	if st.Block != nil {
		select {
		case m.Blocked <- struct{}{}:
		default:
		}
		if st.IgnoreContext {
			<-st.Block
		} else {
			select {
			case <-st.Block:
			case <-ctx.Done():
				return dream.Message{}, dream.Usage{}, ctx.Err()
			}
		}
	}
	if st.Err != nil {
		return dream.Message{}, dream.Usage{}, st.Err
	}
	logs := LogPaths(msgs)
	reply := dream.Message{Role: "assistant", Content: st.Content, ReasoningContent: st.Reasoning}
	for i, c := range st.Calls {
		args, err := encodeArgs(c.Args, logs)
		if err != nil {
			return dream.Message{}, dream.Usage{}, fmt.Errorf("dreamtest: step %d call %s: %w", m.next-1, c.Name, err)
		}
		reply.ToolCalls = append(reply.ToolCalls, dream.ToolCall{
			ID: fmt.Sprintf("call_%d_%d", m.next-1, i), Type: "function",
			Function: dream.FunctionCall{Name: c.Name, Arguments: args},
		})
	}
	return reply, st.Usage, nil
}

// Requests returns a copy of every conversation the model was sent.
func (m *Model) Requests() [][]dream.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]dream.Message(nil), m.requests...)
}

// Tools returns the tools offered on the last call.
func (m *Model) Tools() []dream.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tools
}

// Turns reports how many turns were consumed.
func (m *Model) Turns() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next
}

// ToolReplies returns the tool messages of the last request, in order, so a
// test can read what each tool answered.
func (m *Model) ToolReplies() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.requests) == 0 {
		return nil
	}
	var out []string
	for _, msg := range m.requests[len(m.requests)-1] {
		if msg.Role == "tool" {
			out = append(out, msg.Content)
		}
	}
	return out
}

// ServeLLMChat answers one `llm.chat` request for a fake host: params is the
// raw request params, the result is the raw reply; an error should be sent
// back as a JSON-RPC error.
func (m *Model) ServeLLMChat(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Messages []dream.Message `json:"messages"`
		Tools    []dream.Tool    `json:"tools"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("dreamtest: bad llm.chat params: %w", err)
	}
	msg, u, err := m.Chat(ctx, p.Messages, p.Tools)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"message": msg, "usage": u})
}

// Host is a dream.HostCaller that answers `llm.chat` from a Model after a JSON
// round trip, exactly as a host on the other end of a pipe would see it.
type Host struct {
	Model *Model
	// Raw, when set, replaces the model's reply with this raw result (malformed-reply tests).
	Raw json.RawMessage
}

// Call implements dream.HostCaller.
func (h *Host) Call(ctx context.Context, method string, params, result any) error {
	if method != "llm.chat" {
		return fmt.Errorf("dreamtest: method not found: %s", method)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	out := h.Raw
	if out == nil {
		if out, err = h.Model.ServeLLMChat(ctx, raw); err != nil {
			return err
		}
	}
	return json.Unmarshal(out, result)
}

var logRef = regexp.MustCompile(`^"\$LOG(\d+)"$`)

// encodeArgs marshals args, substituting "$LOG<n>" string values.
func encodeArgs(args any, logs []string) (string, error) {
	if s, ok := args.(string); ok {
		return s, nil
	}
	if args == nil {
		return "{}", nil
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	v, err = substitute(v, logs)
	if err != nil {
		return "", err
	}
	raw, err = json.Marshal(v)
	return string(raw), err
}

func substitute(v any, logs []string) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			y, err := substitute(x, logs)
			if err != nil {
				return nil, err
			}
			t[k] = y
		}
	case string:
		q, _ := json.Marshal(t)
		if m := logRef.FindSubmatch(q); m != nil {
			n, _ := strconv.Atoi(string(m[1]))
			if n >= len(logs) {
				return nil, fmt.Errorf("$LOG%d: the dreamer listed only %d logs", n, len(logs))
			}
			return logs[n], nil
		}
	}
	return v, nil
}

// LogPaths extracts the session-log paths the dreamer listed in its first user
// message (lines of the form "- <path>").
func LogPaths(msgs []dream.Message) []string {
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		return dream.ListedLogPaths(m.Content)
	}
	return nil
}

func cloneMessages(msgs []dream.Message) []dream.Message {
	out := make([]dream.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		out[i].ToolCalls = append([]dream.ToolCall(nil), m.ToolCalls...)
	}
	return out
}

// Backend wraps h in the dreamer's host backend, so a test exercises the same
// `llm.chat` encoding and validation as the sidecar.
func (h Host) Backend() *dream.HostBackend { return dream.NewHostBackend(&h) }
