package browse_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/browse"
	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/dreamlog"
	"github.com/somni-dev/somni/internal/memory"
)

var revertNow = time.Date(2026, 3, 4, 9, 0, 0, 0, time.Local)

// dreamt is a store where one dream created, updated and archived entries,
// and the id of its run record.
func dreamt(t *testing.T) (*memory.Store, *browse.Browser, string) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := memory.Open(memory.Config{DataDir: t.TempDir(), Now: func() time.Time { return revertNow }, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	logDir := filepath.Join(st.MemoryDir(), "session-log")
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dream", "session-log", "2026-03-02_001.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logDir, "2026-03-02_001.md"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, in := range []memory.KnowledgeInput{
		{Name: "port", Type: "fact", Description: "somni metrics port", Body: "9464\n", Verified: true},
		{Name: "stale", Type: "fact", Description: "an old note nobody needs", Body: "old\n", Verified: true},
		{Name: "wifi", Type: "fact", Description: "the office wifi network name", Body: "somni-guest\n", Verified: true},
	} {
		if _, err := st.CreateKnowledge(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	model := dreamtest.NewModel(
		dreamtest.Step{Calls: []dreamtest.Call{
			{Name: "create_knowledge", Args: map[string]any{"name": "api-gw-healthz", "entry_type": "pitfall", "description": "staging gateway healthz path is /ready", "body": "Use /ready."}},
			{Name: "update_knowledge", Args: map[string]any{"name": "port", "body": "9464 (SOMNI_METRICS_ADDR overrides)"}},
			{Name: "update_knowledge", Args: map[string]any{"name": "wifi", "body": "somni-staff"}},
			{Name: "archive_item", Args: map[string]any{"name": "stale"}},
			{Name: "write_dream_log", Args: map[string]any{"content": "---\ntrigger: test\n---\n\nchanged four entries\n"}},
		}},
		dreamtest.Step{Content: "ok"},
	)
	res := dream.New(dream.Config{Store: st, Backend: model, Now: func() time.Time { return revertNow }, Logger: quiet}).Run(ctx, "test")
	if res.Status != dream.StatusDeepSleep {
		t.Fatalf("dream %+v (replies %q)", res, model.ToolReplies())
	}
	runs, err := dreamlog.New(st).Runs(1)
	if err != nil || len(runs) != 1 || len(runs[0].Changes) != 4 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	return st, browse.New(st, nil), runs[0].ID
}

func readRel(t *testing.T, st *memory.Store, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(st.DataDir(), filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// TestRevertDream: a dream undone entry by entry, each a compare-and-swap on
// what the dream wrote — an update put back, a creation archived, an
// archived entry restored, an entry a person edited since kept as it is and
// said so; undoing twice changes nothing; then the rest of the dream whole.
func TestRevertDream(t *testing.T) {
	st, b, id := dreamt(t)
	ctx := context.Background()
	const (
		port  = "memory/knowledge/port/SKILL.md"
		wifi  = "memory/knowledge/wifi/SKILL.md"
		stale = "memory/knowledge/stale/SKILL.md"
		api   = "memory/knowledge/api-gw-healthz/SKILL.md"
	)
	portBefore := "9464\n"
	// A person edits wifi after the dream: its undo must keep the edit.
	r, err := b.Read(ctx, wifi)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(r.Raw, "somni-staff", "somni-staff (5 GHz)", 1)
	if _, err := b.Write(ctx, wifi, edited, r.Version); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		paths []string
		want  map[string]string // path → outcome
		check func(t *testing.T)
	}{
		{"an update put back", []string{port}, map[string]string{port: browse.UndoReverted}, func(t *testing.T) {
			if got, _ := readRel(t, st, port); !strings.Contains(got, portBefore) || strings.Contains(got, "SOMNI_METRICS_ADDR") {
				t.Errorf("port after undo:\n%s", got)
			}
		}},
		{"edited since: kept", []string{wifi}, map[string]string{wifi: browse.UndoEdited}, func(t *testing.T) {
			if got, _ := readRel(t, st, wifi); got != edited {
				t.Errorf("wifi overwritten:\n%s", got)
			}
		}},
		{"a creation archived", []string{api}, map[string]string{api: browse.UndoReverted}, func(t *testing.T) {
			if _, ok := readRel(t, st, api); ok {
				t.Error("api-gw-healthz still active")
			}
			if _, ok := readRel(t, st, "memory/archived/api-gw-healthz/SKILL.md"); !ok {
				t.Error("api-gw-healthz not in the archive")
			}
		}},
		{"an archived entry restored", []string{stale}, map[string]string{stale: browse.UndoReverted}, func(t *testing.T) {
			if got, ok := readRel(t, st, stale); !ok || !strings.Contains(got, "old\n") {
				t.Errorf("stale not restored: %q", got)
			}
		}},
		{"twice: nothing more", nil, map[string]string{port: browse.UndoGone, wifi: browse.UndoEdited, stale: browse.UndoGone, api: browse.UndoGone}, func(t *testing.T) {
			if got, _ := readRel(t, st, wifi); got != edited {
				t.Errorf("wifi overwritten:\n%s", got)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := b.RevertDream(ctx, id, c.paths)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("undone %+v, want %v", got, c.want)
			}
			for _, u := range got {
				if c.want[u.Path] != u.Outcome {
					t.Errorf("%s: %s (%s), want %s", u.Path, u.Outcome, u.Why, c.want[u.Path])
				}
				if u.Outcome == browse.UndoEdited && (u.ChangedAt == "" || u.Now != u.Path) {
					t.Errorf("kept %+v: no time or place", u)
				}
			}
			c.check(t)
		})
	}
}

// TestRevertDreamWhole: the whole dream undone at once, and what a caller
// may not ask.
func TestRevertDreamWhole(t *testing.T) {
	st, b, id := dreamt(t)
	ctx := context.Background()
	got, err := b.RevertDream(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range got {
		if u.Outcome != browse.UndoReverted {
			t.Errorf("%+v", u)
		}
	}
	if len(got) != 4 {
		t.Errorf("undone %+v", got)
	}
	if s, _ := readRel(t, st, "memory/knowledge/wifi/SKILL.md"); !strings.Contains(s, "somni-guest\n") {
		t.Errorf("wifi:\n%s", s)
	}
	for _, c := range []struct {
		name  string
		id    string
		paths []string
	}{
		{"no such dream", "2020-01-01_000000", nil},
		{"a bad id", "../../knowledge", nil},
		{"a path the dream did not change", id, []string{"memory/knowledge/other/SKILL.md"}},
	} {
		if _, err := b.RevertDream(ctx, c.id, c.paths); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
