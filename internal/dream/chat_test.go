package dream

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawHost answers llm.chat with a fixed raw result or error.
type rawHost struct {
	raw    string
	err    error
	params json.RawMessage
}

func (h *rawHost) Call(ctx context.Context, method string, params, result any) error {
	if method != "llm.chat" {
		return errors.New("unexpected method " + method)
	}
	b, _ := json.Marshal(params)
	h.params = b
	if h.err != nil {
		return h.err
	}
	return json.Unmarshal([]byte(h.raw), result)
}

func TestHostBackendReplies(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		hostErr   error
		wantErr   string
		wantCalls int
		wantUsage Usage
		wantReas  string
	}{
		{name: "text", raw: `{"message":{"role":"assistant","content":"done"},"usage":{"prompt_tokens":10,"completion_tokens":2}}`,
			wantUsage: Usage{PromptTokens: 10, CompletionTokens: 2}},
		{name: "tool calls and reasoning", raw: `{"message":{"role":"assistant","content":null,"reasoning_content":"think","tool_calls":[{"id":"a","type":"function","function":{"name":"list_items","arguments":"{}"}}]},"usage":{"prompt_tokens":1,"completion_tokens":1,"cached_tokens":7}}`,
			wantCalls: 1, wantUsage: Usage{PromptTokens: 1, CompletionTokens: 1, CachedTokens: 7}, wantReas: "think"},
		{name: "missing role, id and arguments filled", raw: `{"message":{"tool_calls":[{"function":{"name":"decay_all_knowledge"}}]}}`, wantCalls: 1},
		{name: "host error", hostErr: errors.New("model overloaded"), wantErr: "model overloaded"},
		{name: "null result", raw: `null`, wantErr: "malformed"},
		{name: "no message", raw: `{"usage":{}}`, wantErr: "no message"},
		{name: "message not an object", raw: `{"message":"hi"}`, wantErr: "malformed"},
		{name: "wrong role", raw: `{"message":{"role":"user","content":"x"}}`, wantErr: "role"},
		{name: "tool call without name", raw: `{"message":{"role":"assistant","tool_calls":[{"id":"x","function":{"arguments":"{}"}}]}}`, wantErr: "no function name"},
		{name: "negative usage", raw: `{"message":{"role":"assistant","content":"x"},"usage":{"prompt_tokens":-1}}`, wantErr: "negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &rawHost{raw: tc.raw, err: tc.hostErr}
			b := NewHostBackend(h)
			msg, u, err := b.Chat(context.Background(), []Message{{Role: "user", Content: "hi"}}, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg.Role != "assistant" || len(msg.ToolCalls) != tc.wantCalls || u != tc.wantUsage || msg.ReasoningContent != tc.wantReas {
				t.Fatalf("got %+v %+v", msg, u)
			}
			for _, c := range msg.ToolCalls {
				if c.ID == "" || c.Type != "function" || c.Function.Arguments == "" {
					t.Fatalf("call not normalised: %+v", c)
				}
			}
			// tools must be sent as [] not null: hosts iterate it.
			if !strings.Contains(string(h.params), `"tools":[]`) {
				t.Fatalf("params = %s", h.params)
			}
		})
	}
}

func TestHostBackendTimeout(t *testing.T) {
	b := &HostBackend{Host: blockingHost{}, Timeout: 20 * time.Millisecond}
	_, _, err := b.Chat(context.Background(), nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}

type blockingHost struct{}

func (blockingHost) Call(ctx context.Context, _ string, _, _ any) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestOpenAIConfigFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want OpenAIConfig
	}{
		{"sleep wins", map[string]string{"SLEEP_MODEL": "m1", "OPENAI_MODEL": "m2", "SLEEP_API_KEY": "k1", "OPENAI_API_KEY": "k2", "SLEEP_BASE_URL": "http://a", "OPENAI_BASE_URL": "http://b"},
			OpenAIConfig{BaseURL: "http://a", Model: "m1", APIKey: "k1"}},
		{"fallback", map[string]string{"OPENAI_MODEL": "m2", "OPENAI_API_KEY": "k2"},
			OpenAIConfig{BaseURL: DefaultOpenAIBaseURL, Model: "m2", APIKey: "k2"}},
		{"empty", nil, OpenAIConfig{BaseURL: DefaultOpenAIBaseURL}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := OpenAIConfigFromEnv(func(k string) string { return tc.env[k] })
			if got != tc.want {
				t.Fatalf("got %+v want %+v", got, tc.want)
			}
		})
	}
}

func TestNewOpenAIBackendNeedsKeyAndModel(t *testing.T) {
	for _, c := range []OpenAIConfig{{Model: "m"}, {APIKey: "k"}, {}} {
		if _, err := NewOpenAIBackend(c); !errors.Is(err, ErrNoLLM) {
			t.Fatalf("%+v: err = %v", c, err)
		}
	}
}

// fakeOpenAI is a chat-completions endpoint that records requests and answers
// from a list of canned bodies.
type fakeOpenAI struct {
	mu     sync.Mutex
	bodies []string
	reqs   []map[string]any
	auth   []string
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var req map[string]any
	_ = json.Unmarshal(b, &req)
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	body := `{"error":{"message":"script exhausted"}}`
	status := http.StatusInternalServerError
	if len(f.bodies) > 0 {
		body, f.bodies = f.bodies[0], f.bodies[1:]
		status = http.StatusOK
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func TestOpenAIBackendReasoningRoundTrip(t *testing.T) {
	f := &fakeOpenAI{bodies: []string{
		`{"id":"1","object":"chat.completion","model":"deepseek-reasoner","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"","reasoning_content":"I should list items first","tool_calls":[{"id":"call_1","type":"function","function":{"name":"list_items","arguments":"{\"scope\":\"all\"}"}}]}}],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}`,
		`{"id":"2","object":"chat.completion","model":"deepseek-reasoner","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"summary"}}],"usage":{"prompt_tokens":150,"completion_tokens":5,"total_tokens":155,"prompt_tokens_details":{"cached_tokens":120}}}`,
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	b, err := NewOpenAIBackend(OpenAIConfig{BaseURL: srv.URL + "/v1/", Model: "deepseek-reasoner", APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "openai" {
		t.Fatal(b.Name())
	}
	ctx := context.Background()
	msgs := []Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "go"}}
	reply, u, err := b.Chat(ctx, msgs, Tools())
	if err != nil {
		t.Fatal(err)
	}
	if reply.ReasoningContent != "I should list items first" || len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Function.Name != "list_items" {
		t.Fatalf("reply = %+v", reply)
	}
	if u != (Usage{PromptTokens: 100, CompletionTokens: 20, CachedTokens: 64}) {
		t.Fatalf("usage = %+v (DeepSeek cache hits must be kept)", u)
	}
	msgs = append(msgs, reply, Message{Role: "tool", ToolCallID: "call_1", Content: "nothing yet"})
	reply2, u2, err := b.Chat(ctx, msgs, Tools())
	if err != nil {
		t.Fatal(err)
	}
	if reply2.Content != "summary" || u2.CachedTokens != 120 {
		t.Fatalf("reply2 = %+v %+v", reply2, u2)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if f.auth[0] != "Bearer sk-test" || f.reqs[0]["model"] != "deepseek-reasoner" {
		t.Fatalf("auth/model = %q %v", f.auth[0], f.reqs[0]["model"])
	}
	if tools, _ := f.reqs[0]["tools"].([]any); len(tools) != len(Tools()) {
		t.Fatalf("sent %d tools", len(tools))
	}
	sent, _ := f.reqs[1]["messages"].([]any)
	if len(sent) != 4 {
		t.Fatalf("second request has %d messages", len(sent))
	}
	asst, _ := sent[2].(map[string]any)
	if asst["reasoning_content"] != "I should list items first" {
		t.Fatalf("reasoning_content not passed back: %v", asst)
	}
	tool, _ := sent[3].(map[string]any)
	if tool["role"] != "tool" || tool["tool_call_id"] != "call_1" {
		t.Fatalf("tool message = %v", tool)
	}
}

func TestOpenAIBackendErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"http error", "", "script exhausted"},
		{"no choices", `{"id":"x","choices":[],"usage":{}}`, "no choices"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeOpenAI{}
			if tc.body != "" {
				f.bodies = []string{tc.body}
			}
			srv := httptest.NewServer(f)
			defer srv.Close()
			b, err := NewOpenAIBackend(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = b.Chat(context.Background(), []Message{{Role: "user", Content: "x"}}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
