package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/frontmatter"
)

// TestFullDreamThroughBinary is the dream as the host sees it: a captured
// conversation, sleep.run, the scripted model answering every llm.chat over
// the pipes, and afterwards the memory a person and the next session see.
func TestFullDreamThroughBinary(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, nil)
	for _, m := range []map[string]any{
		{"sessionId": "chat-1", "role": "user", "text": "我们的计费库 db-billing-02 监听 6432 端口，不是 5432。"},
		{"sessionId": "chat-1", "role": "assistant", "text": "记住了：db-billing-02 走 pgbouncer 的 6432。"},
	} {
		s.call("session.append", m, nil)
	}
	var closed struct{ Path string }
	s.call("session.close", map[string]any{"sessionId": "chat-1"}, &closed)
	logID := strings.TrimSuffix(filepath.Base(closed.Path), ".md")

	model := dreamtest.NewModel(dreamtest.Consolidate(dreamtest.Consolidation{
		Fact: dreamtest.Fact{Name: "db-billing-port", Type: "fact",
			Description: "计费库 db-billing-02 的连接端口（经 pgbouncer）",
			Body:        "db-billing-02 listens on 6432 (pgbouncer), not 5432."},
		Episode:  "用户纠正了计费库的端口",
		SourceID: logID,
		Diary:    "---\ntrigger: test\n---\n\n整理了一次关于计费库端口的对话。\n",
		Summary:  "1 log consolidated: db-billing-port",
		Usage:    dream.Usage{PromptTokens: 120, CompletionTokens: 12},
	})...)
	dreamHost(s, model)

	var run struct {
		Status, Summary, Reason string
		TokenUsage              struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		} `json:"token_usage"`
	}
	s.call("sleep.run", map[string]any{"trigger": "test"}, &run)
	if run.Status != "deep_sleep" || run.Summary != "1 log consolidated: db-billing-port" {
		t.Fatalf("sleep.run = %+v", run)
	}
	if turns := model.Turns(); run.TokenUsage.PromptTokens != 120*turns || run.TokenUsage.TotalTokens != 132*turns {
		t.Errorf("token usage %+v over %d turns", run.TokenUsage, turns)
	}

	mem := filepath.Join(dir, "memory")
	fact := readFile(t, filepath.Join(mem, "knowledge", "db-billing-port", "SKILL.md"))
	mustContain(t, "knowledge file", fact, "name: db-billing-port", "type: fact", "score: 0.5\n", "6432")
	episodes, _ := filepath.Glob(filepath.Join(mem, "episodes", "*", "SKILL.md"))
	if len(episodes) != 1 || filepath.Base(filepath.Dir(episodes[0])) != logID {
		t.Fatalf("episodes %v, want one named after the log %s", episodes, logID)
	}
	mustContain(t, "episode file", readFile(t, episodes[0]), "type: episode", "用户纠正了计费库的端口", "- source: "+logID)
	if _, err := os.Stat(closed.Path); !os.IsNotExist(err) {
		t.Errorf("the dreamt log is still pending at %s", closed.Path)
	}
	archived := readFile(t, filepath.Join(mem, "session-log", "archived", logID+".md"))
	mustContain(t, "archived log", archived, "status: processed", "db-billing-02 监听 6432")
	diaries, _ := filepath.Glob(filepath.Join(mem, "dream-log", "*_dream_*.md"))
	if len(diaries) != 1 {
		t.Fatalf("dream diaries %v, want 1", diaries)
	}
	mustContain(t, "dream diary", readFile(t, diaries[0]), "计费库端口")
	if _, err := frontmatter.Parse(diaries[0], []byte(readFile(t, diaries[0]))); err != nil {
		t.Errorf("diary does not parse: %v", err)
	}

	// The next session finds the new fact, by its exact symbol and in words.
	mustContain(t, "search_knowledge by symbol", s.tool("search_knowledge", map[string]any{"query": "db-billing-02"}), "db-billing-port")
	mustContain(t, "recall in Chinese", s.tool("recall_memories", map[string]any{"query": "计费库端口是多少"}), "db-billing-port")
	var st struct {
		Sleeping    bool
		PendingLogs int
	}
	s.call("sleep.status", nil, &st)
	if st.Sleeping || st.PendingLogs != 0 {
		t.Errorf("sleep.status after the dream = %+v", st)
	}

	s.call("shutdown", nil, nil)
	if code := s.waitExit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s.assertProtocolOnly()
}
