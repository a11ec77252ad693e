package dream_test

import (
	"context"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/dreamlog"
	"github.com/somni-dev/somni/internal/memory"
)

// TestRunRecord: the dreamer records each dream's changes itself — created,
// updated and archived paths with a unified diff, its diary, status and
// tokens — whatever the model's diary says.
func TestRunRecord(t *testing.T) {
	st := newStore(t, "2026-03-02_001.md")
	ctx := context.Background()
	if _, err := st.CreateKnowledge(ctx, memory.KnowledgeInput{Name: "port", Type: "fact", Description: "somni metrics port", Body: "9464\n", Verified: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateKnowledge(ctx, memory.KnowledgeInput{Name: "stale", Type: "fact", Description: "an old note nobody needs", Body: "old\n", Verified: true}); err != nil {
		t.Fatal(err)
	}
	model := dreamtest.NewModel(
		dreamtest.Step{Calls: []dreamtest.Call{
			{Name: "create_knowledge", Args: map[string]any{"name": "api-gw-healthz", "entry_type": "pitfall", "description": "staging gateway healthz path is /ready", "body": "Use /ready."}},
			{Name: "update_knowledge", Args: map[string]any{"name": "port", "body": "9464 (SOMNI_METRICS_ADDR overrides)"}},
			{Name: "archive_item", Args: map[string]any{"name": "stale"}},
			{Name: "write_dream_log", Args: map[string]any{"content": dreamDiary}},
		}, Usage: dream.Usage{PromptTokens: 100, CompletionTokens: 20}},
		dreamtest.Step{Content: "ok"},
	)
	res := newDreamer(st, model).Run(ctx, "test")
	if res.Status != dream.StatusDeepSleep {
		t.Fatalf("dream %+v (replies %q)", res, model.ToolReplies())
	}
	runs, err := dreamlog.New(st).Runs(10)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	r := runs[0]
	for _, c := range []struct {
		name string
		got  []string
		want string
	}{
		{"created", r.Created, "memory/knowledge/api-gw-healthz/SKILL.md"},
		{"updated", r.Updated, "memory/knowledge/port/SKILL.md"},
		{"archived", r.Archived, "memory/knowledge/stale/SKILL.md"},
	} {
		if strings.Join(c.got, ",") != c.want {
			t.Errorf("%s %v, want %s", c.name, c.got, c.want)
		}
	}
	for _, want := range []string{"+++ b/memory/knowledge/api-gw-healthz/SKILL.md", "-9464\n+9464 (SOMNI_METRICS_ADDR overrides)", "+++ /dev/null"} {
		if !strings.Contains(r.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, r.Diff)
		}
	}
	if r.Status != dream.StatusDeepSleep || r.Trigger != "test" || r.Tokens != 120 || !strings.HasPrefix(r.Path, "memory/dream-log/2026-03-04_dream_") {
		t.Errorf("record %+v", r)
	}
}
