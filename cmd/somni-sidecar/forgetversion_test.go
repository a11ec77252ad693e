package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// TestForgetIntentionChecksVersion: the Memory tab's Forget of an
// intention compares the version it read with the file as it is when the
// forget runs. A hand edit or a complete_intention made after the read
// refuses the forget (the conflict with the text now, or no such file) and
// the change stays as it was made; a forget with the current version
// cancels the intention and says where it went.
func TestForgetIntentionChecksVersion(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, []string{"--timezone", "UTC"}, "SOMNI_TEST_NOW=2026-12-02T09:00:00Z")
	for _, what := range []string{"buy green tea", "call the plumber", "water the plants"} {
		s.tool("add_intention", map[string]any{"what": what, "due": "2026-12-04"})
	}
	rel := func(id string) string { return "memory/intentions/" + id + "/INTENT.md" }
	type doc struct {
		Raw     string `json:"raw"`
		Version string `json:"version"`
	}
	read := func(id string) doc {
		var d doc
		s.call("memory.read", map[string]any{"path": rel(id)}, &d)
		return d
	}

	// A hand edit between the read and the forget.
	old := read("pi-20261202-001")
	edited := strings.Replace(old.Raw, "- due: 2026-12-04", "- due: 2026-12-24", 1)
	if err := os.WriteFile(filepath.Join(dir, rel("pi-20261202-001")), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, msg := s.callErr("memory.forget", map[string]any{"path": rel("pi-20261202-001"), "version": old.Version})
	if code != -32010 {
		t.Fatalf("forget with the version read before a hand edit: %d %s, want the conflict -32010", code, msg)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, rel("pi-20261202-001"))); got != edited {
		t.Fatalf("after the refused forget INTENT.md holds:\n%s\nwant the hand edit", got)
	}

	// complete_intention between the read and the forget.
	old = read("pi-20261202-002")
	mustContain(t, "complete", s.tool("complete_intention", map[string]any{"intention_id": "pi-20261202-002"}), "Completed intention")
	code, msg = s.callErr("memory.forget", map[string]any{"path": rel("pi-20261202-002"), "version": old.Version})
	mustContain(t, "forget of a completed intention", msg, "no such file")
	if code == 0 {
		t.Fatal("forget of a completed intention answered no error code")
	}
	done := testutil.ReadFile(t, filepath.Join(dir, "memory/intentions/archived/pi-20261202-002/INTENT.md"))
	if !strings.Contains(done, "(completed)") || strings.Contains(done, "(cancelled)") {
		t.Fatalf("the completed intention was changed by the refused forget:\n%s", done)
	}

	// The current version forgets it.
	cur := read("pi-20261202-003")
	var forgot struct {
		ArchivedTo string `json:"archivedTo"`
	}
	s.call("memory.forget", map[string]any{"path": rel("pi-20261202-003"), "version": cur.Version}, &forgot)
	if forgot.ArchivedTo != "memory/intentions/archived/pi-20261202-003/INTENT.md" {
		t.Fatalf("archivedTo %q", forgot.ArchivedTo)
	}
	mustContain(t, "forgotten intention", testutil.ReadFile(t, filepath.Join(dir, forgot.ArchivedTo)), "- due: 2026-12-04", "(cancelled)")
}
