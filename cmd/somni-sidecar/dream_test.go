package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/testutil"
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
	fact := testutil.ReadFile(t, filepath.Join(mem, "knowledge", "db-billing-port", "SKILL.md"))
	mustContain(t, "knowledge file", fact, "name: db-billing-port", "type: fact", "score: 0.5\n", "6432")
	episodes, _ := filepath.Glob(filepath.Join(mem, "episodes", "*", "SKILL.md"))
	if len(episodes) != 1 || filepath.Base(filepath.Dir(episodes[0])) != logID {
		t.Fatalf("episodes %v, want one named after the log %s", episodes, logID)
	}
	mustContain(t, "episode file", testutil.ReadFile(t, episodes[0]), "type: episode", "用户纠正了计费库的端口", "- source: "+logID)
	if _, err := os.Stat(closed.Path); !os.IsNotExist(err) {
		t.Errorf("the dreamt log is still pending at %s", closed.Path)
	}
	archived := testutil.ReadFile(t, filepath.Join(mem, "session-log", "archived", logID+".md"))
	mustContain(t, "archived log", archived, "status: processed", "db-billing-02 监听 6432")
	diaries, _ := filepath.Glob(filepath.Join(mem, "dream-log", "*_dream_*.md"))
	if len(diaries) != 1 {
		t.Fatalf("dream diaries %v, want 1", diaries)
	}
	mustContain(t, "dream diary", testutil.ReadFile(t, diaries[0]), "计费库端口")
	if _, err := frontmatter.Parse(diaries[0], []byte(testutil.ReadFile(t, diaries[0]))); err != nil {
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

// TestDreamRecordsSupersession: the user says a value changed, and after the
// dream the memory folder holds both versions, linked both ways: the new
// entry lists the old one under supersedes, the old one (kept, still saying
// what held before) names the new one under superseded_by — in English and
// in Chinese, over real pipes with the scripted model answering llm.chat.
func TestDreamRecordsSupersession(t *testing.T) {
	tests := []struct {
		name                     string
		said, answered           string
		oldName, oldDesc, oldDoc string // the entry an earlier dream wrote
		newFact                  dreamtest.Fact
		oldValue                 string // what the old entry must still say
	}{
		{
			name: "en",
			said: "Heads up: the staging kafka port is now 9094, not 9092.", answered: "Noted: staging kafka is on 9094 now.",
			oldName: "staging-kafka-port", oldDesc: "The port clients use for the staging kafka broker",
			oldDoc: "The staging kafka broker listens on 9092.",
			newFact: dreamtest.Fact{Name: "staging-kafka-port-9094", Type: "fact", Supersedes: "staging-kafka-port",
				Description: "The port clients use for the staging kafka broker, since it moved",
				Body:        "The staging kafka broker listens on 9094 (it was 9092)."},
			oldValue: "listens on 9092.",
		},
		{
			name: "zh",
			said: "staging kafka 端口改成 9094 了", answered: "好的，staging 的 kafka 现在是 9094。",
			oldName: "staging-kafka-端口", oldDesc: "staging 环境 kafka 的连接端口", oldDoc: "staging 的 kafka 监听 9092。",
			newFact: dreamtest.Fact{Name: "staging-kafka-端口-9094", Type: "fact", Supersedes: "staging-kafka-端口",
				Description: "staging 环境 kafka 的连接端口（改端口之后）",
				Body:        "staging 的 kafka 端口改成了 9094（原来是 9092）。"},
			oldValue: "监听 9092。",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mem := filepath.Join(dir, "memory")
			oldPath := filepath.Join(mem, "knowledge", tc.oldName, "SKILL.md")
			if err := os.MkdirAll(filepath.Dir(oldPath), 0o755); err != nil {
				t.Fatal(err)
			}
			// Written yesterday, as by yesterday's dream: this dream's decay
			// rewrites it (one day's decay) but does not retire it.
			day := time.Now().AddDate(0, 0, -1).Format("2006-01-02")
			old := "---\nname: " + tc.oldName + "\ndescription: " + tc.oldDesc +
				"\ntype: fact\nstability: 0\nscore: 0.5\ncreated: " + day + "\nlast_used: " + day + "\nlast_decay: " + day + "\n---\n\n" + tc.oldDoc + "\n"
			if err := os.WriteFile(oldPath, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			s := start(t, dir, nil)
			s.call("session.append", map[string]any{"sessionId": "chat-1", "role": "user", "text": tc.said}, nil)
			s.call("session.append", map[string]any{"sessionId": "chat-1", "role": "assistant", "text": tc.answered}, nil)
			var closed struct{ Path string }
			s.call("session.close", map[string]any{"sessionId": "chat-1"}, &closed)
			logID := strings.TrimSuffix(filepath.Base(closed.Path), ".md")

			model := dreamtest.NewModel(dreamtest.Consolidate(dreamtest.Consolidation{
				Fact: tc.newFact, Episode: "The staging kafka port changed to 9094", SourceID: logID,
				Diary: "---\ntrigger: test\n---\n\nRecorded the staging kafka port change.\n", Summary: "superseded " + tc.oldName,
			})...)
			dreamHost(s, model)
			var run struct{ Status, Summary, Reason string }
			s.call("sleep.run", map[string]any{"trigger": "test"}, &run)
			if run.Status != "deep_sleep" || run.Summary != "superseded "+tc.oldName {
				t.Fatalf("sleep.run = %+v", run)
			}
			reqs := model.Requests()
			var answered bool
			for _, m := range reqs[len(reqs)-1] {
				answered = answered || m.Role == "tool" && strings.Contains(m.Content, "it supersedes "+tc.oldName+", which is kept and now marked superseded_by "+tc.newFact.Name)
			}
			if !answered {
				t.Errorf("no create_knowledge answer names the supersession")
			}

			// The files as a person reads them: the new value names what it
			// replaced; the old value is still there, marked. The dream's decay
			// rewrote the old entry after the mark, and the mark stayed.
			newFile := testutil.ReadFile(t, filepath.Join(mem, "knowledge", tc.newFact.Name, "SKILL.md"))
			mustContain(t, "new entry", newFile, "name: "+tc.newFact.Name+"\n", "supersedes: "+tc.oldName+"\n", "9094")
			if strings.Contains(newFile, "superseded_by") {
				t.Errorf("the new entry reads as superseded:\n%s", newFile)
			}
			oldFile := testutil.ReadFile(t, oldPath)
			mustContain(t, "old entry", oldFile, "name: "+tc.oldName+"\n", "superseded_by: "+tc.newFact.Name+"\n", tc.oldValue)
			if strings.Contains(oldFile, "score: 0.5\n") {
				t.Errorf("the old entry was not decayed after it was marked; the mark is untested against a rewrite:\n%s", oldFile)
			}
			for _, f := range []string{newFile, oldFile} {
				if _, err := frontmatter.Parse("SKILL.md", []byte(f)); err != nil {
					t.Errorf("does not parse: %v\n%s", err, f)
				}
			}

			s.call("shutdown", nil, nil)
			if code := s.waitExit(); code != 0 {
				t.Fatalf("exit %d", code)
			}
			s.assertProtocolOnly()
		})
	}
}
