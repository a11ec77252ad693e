package sidecar

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/browse"
	"github.com/somni-dev/somni/internal/team"
	"github.com/somni-dev/somni/internal/testutil"
)

// teamTabServer is tabServer with a folder pool "backend" mounted beside
// the data dir, holding one entry Alice shared; it returns the pool folder.
func teamTabServer(t *testing.T) (*Server, string) {
	t.Helper()
	dir := testutil.Pydata(t)
	pool := t.TempDir()
	entry := filepath.Join(pool, "knowledge", "ci-cache-key", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(entry), 0o755); err != nil {
		t.Fatal(err)
	}
	raw := "---\nname: ci-cache-key\ndescription: How the CI cache key is built\ntype: fact\ncreated: 2026-11-02\nshared_by: Alice\nshared: 2026-11-02\n---\nThe CI cache key hashes go.sum and the Go version; bump CACHE_EPOCH to invalidate it.\n"
	if err := os.WriteFile(entry, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{DataDir: dir, Embed: embedOff(), Logger: quiet(), Now: func() time.Time { return tabNow },
		Teams: []team.Pool{{Name: "backend", Root: pool}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, pool
}

// TestMemoryTeamEntries: a team pool's entry is found by a search and
// listed beside the personal memory with its origin, read through the
// pool's own store, and refused to every change the tab can ask for.
func TestMemoryTeamEntries(t *testing.T) {
	srv, pool := teamTabServer(t)
	const wire = "team:backend/knowledge/ci-cache-key/SKILL.md"
	if _, err := srv.syncedIndex(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := browse.Origin{Team: "backend", SharedBy: "Alice", Path: "knowledge/ci-cache-key/SKILL.md"}
	for _, params := range []string{`{"query":"CI cache key"}`, `{}`, `{"kind":"knowledge"}`} {
		var res browse.ListResult
		if err := call(t, srv, "memory.list", params, &res); err != nil {
			t.Fatal(err)
		}
		var got *browse.Item
		for i, it := range res.Entries {
			if it.Path == wire {
				got = &res.Entries[i]
			} else if it.Origin != nil {
				t.Errorf("%s: personal entry %s carries an origin %+v", params, it.Path, it.Origin)
			}
		}
		if got == nil || got.Origin == nil || *got.Origin != want || got.Description != "How the CI cache key is built" {
			t.Fatalf("%s: the team entry is %+v in %+v", params, got, res.Entries)
		}
		if params == `{"query":"CI cache key"}` && got.Hit == nil {
			t.Errorf("a ranked team entry has no hit: %+v", got)
		}
	}
	// Kinds a pool does not hold list none of its entries.
	var eps browse.ListResult
	if err := call(t, srv, "memory.list", `{"kind":"episode"}`, &eps); err != nil {
		t.Fatal(err)
	}
	for _, it := range eps.Entries {
		if it.Origin != nil {
			t.Errorf("episode listing holds a team entry %+v", it)
		}
	}

	var doc browse.Document
	if err := call(t, srv, "memory.read", jsonObj("path", wire), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Path != wire || doc.Origin == nil || *doc.Origin != want || doc.Kind != "knowledge" || doc.Name != "ci-cache-key" ||
		!strings.Contains(doc.Body, "CACHE_EPOCH") || doc.Version == "" {
		t.Fatalf("read %+v", doc)
	}

	// Nothing the tab does changes a pool.
	before, _ := os.ReadFile(filepath.Join(pool, "knowledge", "ci-cache-key", "SKILL.md"))
	for name, params := range map[string]string{
		"memory.write":   `{"path":"` + wire + `","raw":` + jsonString(doc.Raw+"\nmore\n") + `,"version":"` + doc.Version + `"}`,
		"memory.pin":     `{"path":"` + wire + `","pinned":true}`,
		"memory.forget":  `{"path":"` + wire + `"}`,
		"memory.restore": `{"path":"` + wire + `"}`,
	} {
		err := call(t, srv, name, params, nil)
		if rpcCode(err) != -32602 || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("%s on a team entry: %v, want -32602 saying read-only", name, err)
		}
	}
	after, _ := os.ReadFile(filepath.Join(pool, "knowledge", "ci-cache-key", "SKILL.md"))
	if string(before) != string(after) {
		t.Errorf("the pool's file changed:\n%s", after)
	}

	// A read stays inside the pool's folder and names a mounted team.
	outside := filepath.Join(filepath.Dir(pool), "outside.md")
	if err := os.WriteFile(outside, []byte("---\nname: x\ndescription: y\n---\nsecret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(outside) })
	// A link in the pool leading out is the pool store's boundary's to refuse.
	link := filepath.Join(pool, "knowledge", "linked", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"team:backend/knowledge/linked/SKILL.md", "team:backend/../outside.md", "team:backend//etc/passwd", "team:frontend/knowledge/x/SKILL.md", "team:backend/knowledge/ci-cache-key/notes.txt", "team:backend"} {
		err := call(t, srv, "memory.read", jsonObj("path", bad), nil)
		if rpcCode(err) != -32602 {
			t.Errorf("read %q: %v, want -32602", bad, err)
		}
	}
}

// TestMemorySessionTeamPaths: a recall that returns a team entry records
// it in the session ring under its wire path, which memory.read opens.
func TestMemorySessionTeamPaths(t *testing.T) {
	srv, _ := teamTabServer(t)
	ctx := context.Background()
	if _, err := srv.syncedIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if err := call(t, srv, "tools.call", `{"name":"recall_memories","args":{"query":"CI cache key CACHE_EPOCH"},"sessionId":"s-team"}`, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Events []browse.Event `json:"events"`
	}
	if err := call(t, srv, "memory.session", `{"sessionId":"s-team"}`, &got); err != nil {
		t.Fatal(err)
	}
	found := ""
	for _, ev := range got.Events {
		for _, it := range ev.Items {
			if it.Name == "ci-cache-key" {
				found = it.Path
			}
		}
	}
	if found != "team:backend/knowledge/ci-cache-key/SKILL.md" {
		t.Fatalf("the team entry in the session ring: %q in %+v", found, got.Events)
	}
	if err := call(t, srv, "memory.read", jsonObj("path", found), nil); err != nil {
		t.Errorf("read %s: %v", found, err)
	}
}

func jsonObj(key, val string) string { return `{` + jsonString(key) + `:` + jsonString(val) + `}` }
