package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/testutil"
)

// fakeOpenAI serves chat completions from a scripted dream model: the
// dreamer's messages already have the OpenAI shape.
func fakeOpenAI(t testing.TB, model *dreamtest.Model) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []dream.Message `json:"messages"`
			Tools    []dream.Tool    `json:"tools"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		reply, u, err := model.Chat(r.Context(), req.Messages, req.Tools)
		if err != nil {
			http.Error(w, `{"error":{"message":"script exhausted"}}`, http.StatusInternalServerError)
			return
		}
		finish := "stop"
		if len(reply.ToolCalls) > 0 {
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "1", "object": "chat.completion", "model": "fake",
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": reply}},
			"usage":   map[string]int{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.PromptTokens + u.CompletionTokens}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestMCPDreamNowWithOpenAI: under a client without sampling, --llm openai
// dreams through the endpoint; without a key it says what is missing.
func TestMCPDreamNowWithOpenAI(t *testing.T) {
	t.Run("no key", func(t *testing.T) {
		m := startMCP(t, t.TempDir(), nil, append([]string{"--llm", "openai"}, mcpArgs...), mcpEnv,
			"OPENAI_API_KEY=", "SLEEP_API_KEY=")
		text, isErr := m.call("dream_now", nil)
		if !isErr {
			t.Errorf("dream_now without a key succeeded: %s", text)
		}
		mustContain(t, "dream_now", text, "--llm openai is set, but OPENAI_API_KEY")
		m.stop()
	})
	t.Run("endpoint", func(t *testing.T) {
		dir := t.TempDir()
		model := dreamtest.NewModel(dreamtest.Consolidate(dreamtest.Consolidation{
			Fact:     dreamtest.Fact{Name: "release-day", Type: "decision", Description: "releases go out on tuesdays", Body: "We release on Tuesdays."},
			Episode:  "the user set the release day",
			SourceID: "2026-11-29_001",
			Diary:    "---\ntrigger: mcp\n---\n\nRelease day noted.\n",
			Summary:  "release-day filed",
			Usage:    dream.Usage{PromptTokens: 7, CompletionTokens: 3},
		})...)
		srv := fakeOpenAI(t, model)
		m := startMCP(t, dir, nil, append([]string{"--llm", "openai"}, mcpArgs...), mcpEnv,
			"OPENAI_API_KEY=sk-test", "SLEEP_BASE_URL="+srv.URL+"/v1", "SLEEP_MODEL=fake")
		m.tool("remember", map[string]any{"text": "We release on Tuesdays."})
		mustContain(t, "dream_status", m.tool("dream_status", nil), "OpenAI-compatible endpoint")
		mustContain(t, "dream_now", m.tool("dream_now", nil), "Dream deep_sleep: release-day filed [60 tokens]")
		mustContain(t, "knowledge", testutil.ReadFile(t, filepath.Join(dir, "memory", "knowledge", "release-day", "SKILL.md")), "Tuesdays")
		m.stop()
	})
}
