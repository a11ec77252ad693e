package dream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultOpenAIBaseURL is used when neither SLEEP_BASE_URL nor OPENAI_BASE_URL is set.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// ErrNoLLM is returned when the openai backend is selected without a key or model.
var ErrNoLLM = errors.New("no_llm_backend: set SLEEP_API_KEY and SLEEP_MODEL (or OPENAI_API_KEY and OPENAI_MODEL)")

// OpenAIConfig configures the backend that calls an OpenAI-compatible endpoint itself.
type OpenAIConfig struct {
	BaseURL string
	Model   string
	APIKey  string
	// HTTPClient is optional (tests, proxies); nil means a default client.
	HTTPClient *http.Client
}

// OpenAIConfigFromEnv reads SLEEP_BASE_URL/SLEEP_MODEL/SLEEP_API_KEY, each falling
// back to its OPENAI_* twin; getenv is os.Getenv in the binary.
func OpenAIConfigFromEnv(getenv func(string) string) OpenAIConfig {
	pick := func(a, b string) string {
		if v := strings.TrimSpace(getenv(a)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv(b))
	}
	c := OpenAIConfig{
		BaseURL: pick("SLEEP_BASE_URL", "OPENAI_BASE_URL"),
		Model:   pick("SLEEP_MODEL", "OPENAI_MODEL"),
		APIKey:  pick("SLEEP_API_KEY", "OPENAI_API_KEY"),
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultOpenAIBaseURL
	}
	return c
}

// OpenAIBackend calls an OpenAI-compatible chat-completions endpoint.
type OpenAIBackend struct {
	client *openai.Client
	model  string
}

// NewOpenAIBackend builds the backend, or returns ErrNoLLM when the key or the
// model is missing (the sidecar then reports llm "none").
func NewOpenAIBackend(cfg OpenAIConfig) (*OpenAIBackend, error) {
	if strings.TrimSpace(cfg.APIKey) == "" || strings.TrimSpace(cfg.Model) == "" {
		return nil, ErrNoLLM
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	oc.HTTPClient = cacheHitDoer{inner: hc}
	return &OpenAIBackend{client: openai.NewClientWithConfig(oc), model: cfg.Model}, nil
}

// Name reports "openai".
func (b *OpenAIBackend) Name() string { return "openai" }

// Chat performs one non-streaming chat completion.
func (b *OpenAIBackend) Chat(ctx context.Context, messages []Message, tools []Tool) (Message, Usage, error) {
	req := openai.ChatCompletionRequest{Model: b.model, Messages: make([]openai.ChatCompletionMessage, 0, len(messages))}
	for _, m := range messages {
		om := openai.ChatCompletionMessage{
			Role:             m.Role,
			Content:          m.Content,
			ReasoningContent: m.ReasoningContent,
			ToolCallID:       m.ToolCallID,
		}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
			})
		}
		req.Messages = append(req.Messages, om)
	}
	for _, t := range tools {
		req.Tools = append(req.Tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Function.Name,
				Description: t.Function.Description,
				Parameters:  t.Function.Parameters,
			},
		})
	}
	hits := &cacheHits{}
	resp, err := b.client.CreateChatCompletion(context.WithValue(ctx, cacheHitsKey{}, hits), req)
	if err != nil {
		return Message{}, Usage{}, fmt.Errorf("openai chat: %w", err)
	}
	if len(resp.Choices) == 0 {
		return Message{}, Usage{}, fmt.Errorf("openai chat: %w: no choices", ErrMalformedReply)
	}
	c := resp.Choices[0].Message
	out := Message{Role: c.Role, Content: c.Content, ReasoningContent: c.ReasoningContent}
	for _, tc := range c.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{
			ID: tc.ID, Type: string(tc.Type),
			Function: FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
		})
	}
	if err := normalizeReply(&out); err != nil {
		return Message{}, Usage{}, fmt.Errorf("openai chat: %w", err)
	}
	u := Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		u.CachedTokens = d.CachedTokens
	}
	if u.CachedTokens == 0 {
		u.CachedTokens = hits.get()
	}
	return out, u, nil
}

// cacheHitsKey carries a *cacheHits through the request context so the HTTP
// wrapper can report DeepSeek's prompt_cache_hit_tokens, which go-openai drops.
type cacheHitsKey struct{}

type cacheHits struct {
	mu sync.Mutex
	n  int
}

func (c *cacheHits) set(n int) { c.mu.Lock(); c.n = n; c.mu.Unlock() }
func (c *cacheHits) get() int  { c.mu.Lock(); defer c.mu.Unlock(); return c.n }

// cacheHitDoer reads the usage block of a chat response once more to pick up
// provider-specific cache counters.
type cacheHitDoer struct{ inner *http.Client }

// maxPeekBody bounds how much of a response is buffered to look for usage.
const maxPeekBody = 8 << 20

func (d cacheHitDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.inner.Do(req)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	hits, _ := req.Context().Value(cacheHitsKey{}).(*cacheHits)
	if hits == nil || resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxPeekBody+1))
	resp.Body.Close()
	if rerr != nil {
		return nil, fmt.Errorf("openai chat: read response: %w", rerr)
	}
	if len(body) > maxPeekBody {
		return nil, fmt.Errorf("openai chat: response larger than %d bytes", maxPeekBody)
	}
	var peek struct {
		Usage struct {
			PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &peek) == nil {
		hits.set(peek.Usage.PromptCacheHitTokens)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
