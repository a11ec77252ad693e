package dream_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/memory"
)

// TestDreamReconcilesSyncConflicts: a sibling git sync left beside an
// entry (conflicts_with naming it) is listed in the dream's first message
// with what to do; a dream that merges the text into the original and
// archives the sibling leaves nothing for the next one to list. A folder
// merely named like a sibling, without the header, is not listed.
func TestDreamReconcilesSyncConflicts(t *testing.T) {
	ctx := context.Background()
	st := newStore(t, "2026-03-02_002.md")
	if _, err := st.CreateKnowledge(ctx, memory.KnowledgeInput{Name: "office-printer", Type: "fact", Description: "Which printer the office uses", Body: "The 3rd floor printer is prn-3f.", Verified: true}); err != nil {
		t.Fatal(err)
	}
	knowledge := filepath.Join(st.MemoryDir(), "knowledge")
	write := func(folder, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(knowledge, folder), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(knowledge, folder, "SKILL.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("office-printer-conflict-1a2b3c4d", "---\nname: office-printer-conflict-1a2b3c4d\ndescription: Which printer the office uses\ntype: fact\nconflicts_with: office-printer\n---\n\nThe 3rd floor printer is prn-3f, duplex by default.\n")
	write("build-conflict-deadbeef", "---\nname: build-conflict-deadbeef\ndescription: A note about a build conflict\ntype: fact\n---\n\nA merge conflict in the build broke CI once.\n")

	first := dreamtest.NewModel(
		dreamtest.Step{Calls: []dreamtest.Call{
			{Name: "update_knowledge", Args: map[string]any{"name": "office-printer", "body": "The 3rd floor printer is prn-3f, duplex by default."}},
			{Name: "archive_item", Args: map[string]any{"name": "office-printer-conflict-1a2b3c4d"}},
			{Name: "mark_log_processed", Args: map[string]any{"path": "$LOG0"}},
		}},
		dreamtest.Step{Content: "reconciled"})
	newDreamer(st, first).Run(ctx, "test")
	msg := firstUserMessage(t, first)
	for _, want := range []string{"changed the same lines of 1 entry", "- office-printer-conflict-1a2b3c4d conflicts with office-printer", "archive_item the sibling"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the dream's first message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "build-conflict-deadbeef") {
		t.Errorf("a folder only named like a sibling is listed:\n%s", msg)
	}
	if replies := first.ToolReplies(); len(replies) != 3 || strings.HasPrefix(replies[0], "Error") || strings.HasPrefix(replies[1], "Error") {
		t.Fatalf("the reconciling calls: %q", replies)
	}
	if got := readFile(t, filepath.Join(knowledge, "office-printer", "SKILL.md")); !strings.Contains(got, "duplex by default") {
		t.Errorf("the original does not hold the merged text:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(knowledge, "office-printer-conflict-1a2b3c4d")); !os.IsNotExist(err) {
		t.Errorf("the sibling is still active: %v", err)
	}

	// A new session's log, so that there is a next dream.
	log, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dream", "session-log", "2026-03-02_001.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.MemoryDir(), "session-log", "2026-03-02_001.md"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	next := dreamtest.NewModel(dreamtest.Step{Content: "nothing to do"})
	if res := newDreamer(st, next).Run(ctx, "test"); len(next.Requests()) == 0 {
		t.Fatalf("the next dream did not run: %+v", res)
	}
	if msg := firstUserMessage(t, next); strings.Contains(msg, "conflicts with") {
		t.Errorf("the next dream still lists a conflict:\n%s", msg)
	}
}

// firstUserMessage is the user message of a model's first request.
func firstUserMessage(t *testing.T, m *dreamtest.Model) string {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was never asked")
	}
	for _, msg := range reqs[0] {
		if msg.Role == "user" {
			return msg.Content
		}
	}
	t.Fatal("no user message in the first request")
	return ""
}
