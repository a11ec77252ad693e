//go:build unix

package memory

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForgetIntentionRace: another process (a second store on the data dir)
// changes an intention at the very moment a forget compares its version.
// The race is made deterministic by doing the change from inside the
// compare, with a context already cancelled: the other writer gets the
// write lock only if it is free at once, as it would be when the compare
// runs unlocked. Then its change would be archived by a forget that never
// saw it; under the lock it is shut out, and finds the intention gone
// after the forget.
func TestForgetIntentionRace(t *testing.T) {
	ctx := context.Background()
	a := newTestStore(t)
	b, err := Open(Config{DataDir: a.DataDir(), Now: a.now, Logger: a.log})
	if err != nil {
		t.Fatal(err)
	}
	it, err := a.Intentions().Add(ctx, IntentionInput{What: "buy green tea", Due: "2026-12-04"})
	if err != nil {
		t.Fatal(err)
	}
	path := it.Entry.Path
	read, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	moveDue := func(e *Entry) error {
		e.Body = strings.Replace(e.Body, "- due: 2026-12-04", "- due: 2026-12-24", 1)
		return nil
	}
	now, cancel := context.WithCancel(ctx)
	cancel()
	var otherErr error
	tried := false
	dest, err := EditorOf(a).ArchiveEntry(ctx, path, func(cur []byte) error {
		if !bytes.Equal(cur, read) {
			return errStale
		}
		if !tried {
			tried = true
			_, otherErr = EditorOf(b).Rewrite(now, path, moveDue)
		}
		return nil
	})
	if otherErr == nil {
		if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
			dest = filepath.Join(dest, "INTENT.md")
		}
		archived, _ := os.ReadFile(dest)
		t.Fatalf("another process changed the intention after the forget compared its version (forget: %v); archived:\n%s", err, archived)
	}
	if err != nil {
		t.Fatalf("forget with the current version: %v", err)
	}
	if !errors.Is(otherErr, context.Canceled) {
		t.Fatalf("the other writer: %v, want it waiting for the write lock", otherErr)
	}
	archived, err := os.ReadFile(filepath.Join(dest, "INTENT.md"))
	if err != nil || !strings.Contains(string(archived), "- due: 2026-12-04") || !strings.Contains(string(archived), "(cancelled)") {
		t.Fatalf("archived intention %q (%v): want the version the forget compared, cancelled", archived, err)
	}
	if _, err := EditorOf(b).Rewrite(ctx, path, moveDue); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the other writer's retry after the forget: %v, want not found", err)
	}
}
