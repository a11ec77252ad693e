package sidecar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/browse"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
)

// TestMemoryRevertDream: memory.revertDream over a real dream — one entry
// undone on disk, one edited since kept and answered so, then the rest of
// the dream whole; a bad request is -32602.
func TestMemoryRevertDream(t *testing.T) {
	model := dreamtest.NewModel(
		dreamtest.Step{Calls: []dreamtest.Call{
			{Name: "create_knowledge", Args: map[string]any{"name": "staging-db-port", "entry_type": "fact", "description": "staging database listens on 6543", "body": "Port 6543."}},
			{Name: "create_knowledge", Args: map[string]any{"name": "staging-db-host", "entry_type": "fact", "description": "staging database host is db.staging", "body": "db.staging"}},
			{Name: "write_dream_log", Args: map[string]any{"content": "---\ndream_id: x\ntrigger: idle\n---\n\n## Created\n- staging-db-port\n"}},
			{Name: "mark_log_processed", Args: map[string]any{"path": "$LOG0"}},
		}},
		dreamtest.Step{Content: "done"},
	)
	dir := t.TempDir()
	srv, err := New(Config{DataDir: dir, Embed: embedOff(), Logger: quiet(), HostModel: model, Now: func() time.Time { return tabNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if _, err := srv.capture.Append("chat-a", "user", "Our staging database is db.staging, port 6543.", "default", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.capture.Close("chat-a"); err != nil {
		t.Fatal(err)
	}
	if err := call(t, srv, "sleep.run", `{"trigger":"idle"}`, nil); err != nil {
		t.Fatal(err)
	}
	var got struct{ Dreams []browse.Dream }
	if err := call(t, srv, "memory.dreams", `{"limit":5}`, &got); err != nil || len(got.Dreams) != 1 {
		t.Fatalf("dreams %+v %v", got, err)
	}
	d := got.Dreams[0]
	if len(d.Changes) != 2 {
		t.Fatalf("changes %+v", d.Changes)
	}
	const port, host = "memory/knowledge/staging-db-port/SKILL.md", "memory/knowledge/staging-db-host/SKILL.md"
	// A person edits host after the dream.
	var r browse.Document
	if err := call(t, srv, "memory.read", `{"path":"`+host+`"}`, &r); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(r.Raw, "db.staging\n", "db.staging (moved to db2 in May)\n", 1)
	if err := call(t, srv, "memory.write", `{"path":"`+host+`","raw":`+jsonString(edited)+`,"version":"`+r.Version+`"}`, nil); err != nil {
		t.Fatal(err)
	}
	type answer struct{ Undone []browse.Undone }
	for _, c := range []struct {
		name   string
		params string
		want   map[string]string
	}{
		{"one entry", `{"dream":"` + d.ID + `","paths":["` + port + `"]}`, map[string]string{port: browse.UndoReverted}},
		{"the whole dream", `{"dream":"` + d.ID + `"}`, map[string]string{port: browse.UndoGone, host: browse.UndoEdited}},
	} {
		var a answer
		if err := call(t, srv, "memory.revertDream", c.params, &a); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(a.Undone) != len(c.want) {
			t.Errorf("%s: %+v", c.name, a.Undone)
		}
		for _, u := range a.Undone {
			if c.want[u.Path] != u.Outcome {
				t.Errorf("%s: %s %s (%s), want %s", c.name, u.Path, u.Outcome, u.Why, c.want[u.Path])
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, port)); !os.IsNotExist(err) {
		t.Errorf("staging-db-port still active: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "memory", "archived", "staging-db-port", "SKILL.md")); err != nil {
		t.Errorf("staging-db-port not archived: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, host)); string(b) != edited {
		t.Errorf("edited host overwritten:\n%s", b)
	}
	for _, params := range []string{`{"dream":"../x"}`, `{"dream":"2020-01-01_000000"}`, `{"dream":"` + d.ID + `","paths":["memory/knowledge/x/SKILL.md"]}`, `{}`} {
		if err := call(t, srv, "memory.revertDream", params, nil); rpcCode(err) != -32602 {
			t.Errorf("%s: %v", params, err)
		}
	}
}
