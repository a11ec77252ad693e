//go:build unix

package intentions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/memory/memtest"
)

// errStale is what a caller's compare answers when the bytes on disk are
// not the version it read (browse's Conflict, in the Memory tab).
var errStale = errors.New("version conflict")

// TestTwoWritersOneDataDir opens two stores on one data dir, as two sidecars
// (or a sidecar and a tool) would: intention ids are never reused. flock
// locks belong to open files, so two stores in one process conflict exactly
// as two processes do.
func TestTwoWritersOneDataDir(t *testing.T) {
	ctx := context.Background()
	a := memtest.NewStore(t)
	b := memtest.SecondStore(t, a)
	const each = 60
	ids := make(chan string, 2*each)
	var wg sync.WaitGroup
	for _, s := range []*memory.Store{a, b} {
		wg.Add(1)
		go func(s *memory.Store) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				it, err := Of(s).Add(ctx, Input{What: fmt.Sprintf("task %d", i)})
				if err != nil {
					t.Error(err)
					return
				}
				ids <- it.Entry.Name
			}
		}(s)
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("intention id %s given out twice", id)
		}
		seen[id] = true
	}
	open, _, err := Of(a).List(ctx)
	if err != nil || len(open) != 2*each {
		t.Fatalf("%d open intentions on disk, want %d (%v)", len(open), 2*each, err)
	}

}

// TestCloseIntentionOnceAcrossStores completes and cancels one intention
// from two stores at once: one wins, the other is told it is gone, and the
// archived file says closed exactly once.
func TestCloseIntentionOnceAcrossStores(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 30; round++ {
		a := memtest.NewStore(t)
		b := memtest.SecondStore(t, a)
		it, err := Of(a).Add(ctx, Input{What: "renew the certificate"})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, s := range []*memory.Store{a, b} {
			wg.Add(1)
			go func(i int, s *memory.Store) {
				defer wg.Done()
				if i == 0 {
					_, errs[i] = Of(s).Complete(ctx, it.ID)
				} else {
					_, errs[i] = Of(s).Cancel(ctx, it.ID)
				}
			}(i, s)
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: want exactly one close to succeed: %v / %v", round, errs[0], errs[1])
		}
		data, err := os.ReadFile(filepath.Join(a.MemoryDir(), "intentions", "archived", it.ID, "INTENT.md"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "- closed:"); n != 1 {
			t.Fatalf("round %d: %d closed lines:\n%s", round, n, data)
		}
		if des, _ := os.ReadDir(filepath.Join(a.MemoryDir(), "intentions", "archived")); len(des) != 1 {
			t.Fatalf("round %d: %d archived copies", round, len(des))
		}
	}
}

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
	a := memtest.NewStore(t)
	b := memtest.SecondStore(t, a)
	it, err := Of(a).Add(ctx, Input{What: "buy green tea", Due: "2026-12-04"})
	if err != nil {
		t.Fatal(err)
	}
	path := it.Entry.Path
	read, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	moveDue := func(e *memory.Entry) error {
		e.Body = strings.Replace(e.Body, "- due: 2026-12-04", "- due: 2026-12-24", 1)
		return nil
	}
	now, cancel := context.WithCancel(ctx)
	cancel()
	var otherErr error
	tried := false
	dest, err := Of(a).CancelFile(ctx, path, func(cur []byte) error {
		if !bytes.Equal(cur, read) {
			return errStale
		}
		if !tried {
			tried = true
			_, otherErr = memory.EditorOf(b).Rewrite(now, path, moveDue)
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
	if _, err := memory.EditorOf(b).Rewrite(ctx, path, moveDue); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("the other writer's retry after the forget: %v, want not found", err)
	}
}

// TestForgetIntentionHandEditAfterCompare: a hand edit takes no lock, so
// one can land after the forget compared the version; the close note is
// written by compare-and-swap, which sees the edit, compares again and is
// refused, and the intention stays open with the edit.
func TestForgetIntentionHandEditAfterCompare(t *testing.T) {
	s := memtest.NewStore(t)
	it, err := Of(s).Add(context.Background(), Input{What: "buy green tea", Due: "2026-12-04"})
	if err != nil {
		t.Fatal(err)
	}
	path := it.Entry.Path
	read, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(read), "- due: 2026-12-04", "- due: 2026-12-24", 1)
	_, err = Of(s).CancelFile(context.Background(), path, func(cur []byte) error {
		if !bytes.Equal(cur, read) {
			return errStale
		}
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		return nil
	})
	if !errors.Is(err, errStale) {
		t.Fatalf("forget over a hand edit made after its compare: %v, want the version conflict", err)
	}
	if now, err := os.ReadFile(path); err != nil || string(now) != edited {
		t.Fatalf("INTENT.md holds %q (%v), want the hand edit, still open", now, err)
	}
}
