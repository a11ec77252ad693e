package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/testutil"
)

// TestChangesWhileStoppedFoundAfterRestart stops the sidecar, edits the
// memory by hand while nothing watches it — an entry rewritten in place
// at the same size, a new entry, an entry deleted — and starts it again
// on the same data dir: a start reads the index from its cache (the
// snapshot a clean stop wrote, or the rows after a kill), answers from it
// at once, and reconciles it with the files in the background. Each
// change must be in recall, once index.sync has answered (it answers
// once the index matches the files) and without it (the reconciling
// finds it by itself), after a clean stop and after kill -9.
func TestChangesWhileStoppedFoundAfterRestart(t *testing.T) {
	dir := t.TempDir()
	entry := func(name, desc, body string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\ntype: fact\nstability: 1\nscore: 0.6\ncreated: 2026-11-01\nlast_used: 2026-11-01\nlast_decay: 2026-11-01\n---\n\n" + body + "\n"
	}
	path := func(name string) string { return filepath.Join(dir, "memory", "knowledge", name, "SKILL.md") }
	write := func(name, content string) {
		if err := os.MkdirAll(filepath.Dir(path(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		write(fmt.Sprintf("note-%03d", i), entry(fmt.Sprintf("note-%03d", i), fmt.Sprintf("filler topic%03d", i), "plain words about nothing much"))
	}
	recall := func(s *proc, q string) string {
		return s.tool("recall_memories", map[string]any{"query": q, "limit": 5})
	}
	synced := func(s *proc) {
		var ok struct{ OK bool }
		s.call("index.sync", map[string]any{"reason": "test"}, &ok)
		if !ok.OK {
			t.Fatal("index.sync did not answer ok")
		}
	}
	// the first start builds the cache; a clean stop leaves its snapshot
	s := start(t, dir, nil)
	synced(s)
	mustContain(t, "first start", recall(s, "topic007"), "note-007")
	s.call("shutdown", nil, nil)
	if code := s.waitExit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.sqlite-snap")); err != nil {
		t.Fatalf("no snapshot after a clean stop: %v", err)
	}

	round := 0
	// change edits while stopped: one entry rewritten at its own size
	// (only its mtime tells), one new, one new in a subfolder of an entry
	// folder (only that folder's link count and mtime tell: a listing
	// that looked only at the file each folder held would miss it), one
	// deleted; it returns the words each change is found by.
	change := func() (edited, added, nested, deleted string) {
		round++
		edited = fmt.Sprintf("zebra%03d", round)
		victim := fmt.Sprintf("note-%03d", 10+round)
		old := testutil.ReadFile(t, path(victim))
		now := strings.Replace(old, "plain words", edited+" wd", 1) // "plain words" and "zebraNNN wd" are 11 bytes
		if len(now) != len(old) {
			t.Fatalf("edit changed the size: %d → %d", len(old), len(now))
		}
		// the same size and, within a coarse clock, the same mtime is
		// what only a watcher would tell: give the edit a later second
		time.Sleep(10 * time.Millisecond)
		if err := os.WriteFile(path(victim), []byte(now), 0o644); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(2 * time.Second)
		if err := os.Chtimes(path(victim), later, later); err != nil {
			t.Fatal(err)
		}
		added = fmt.Sprintf("okapi%03d", round)
		write("fresh-"+added, entry("fresh-"+added, added+" a note written by hand", "new"))
		nested = fmt.Sprintf("lemur%03d", round)
		write(fmt.Sprintf("note-%03d/sub-%s", 100+round, nested), entry("sub-"+nested, nested+" a note filed inside another", "new"))
		deleted = fmt.Sprintf("topic%03d", 200+round)
		if err := os.RemoveAll(filepath.Dir(path(fmt.Sprintf("note-%03d", 200+round)))); err != nil {
			t.Fatal(err)
		}
		return edited, added, nested, deleted
	}
	found := func(s *proc, edited, added, nested, deleted string) bool {
		return strings.Contains(recall(s, edited), fmt.Sprintf("note-%03d", 10+round)) &&
			strings.Contains(recall(s, added), "fresh-"+added) &&
			strings.Contains(recall(s, nested), "sub-"+nested) &&
			!strings.Contains(recall(s, deleted), fmt.Sprintf("note-%03d", 200+round))
	}
	for _, tc := range []struct {
		name      string
		sync      bool // ask index.sync before recalling
		afterKill bool // the run before was killed
		kill      bool // end this run with kill -9, not shutdown (the next case's start)
	}{
		{"index.sync after a clean stop", true, false, false},
		{"background reconcile after a clean stop", false, false, true},
		{"index.sync after kill -9", true, true, true},
		{"background reconcile after kill -9", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited, added, nested, deleted := change()
			s := start(t, dir, nil)
			if tc.sync {
				synced(s)
				if !found(s, edited, added, nested, deleted) {
					t.Fatalf("after index.sync, recall misses a change made while stopped:\n%s\n%s\n%s\n%s",
						recall(s, edited), recall(s, added), recall(s, nested), recall(s, deleted))
				}
			} else {
				deadline := time.Now().Add(liveWait)
				for !found(s, edited, added, nested, deleted) {
					if time.Now().After(deadline) {
						t.Fatalf("recall still misses a change made while stopped after %v:\n%s\n%s\n%s\n%s",
							liveWait, recall(s, edited), recall(s, added), recall(s, nested), recall(s, deleted))
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
			// after a clean stop the start read the snapshot, not the rows
			// (after a kill it may read either: the cache may have moved
			// past the snapshot or not)
			if opened := "index: opened"; !tc.afterKill && !strings.Contains(s.stderr.String(), "snapshot=true") {
				t.Errorf("a start after a clean stop did not read the snapshot: %q", lineWith(s.stderr.String(), opened))
			}
			// the next round starts from a kill or a clean stop
			synced(s)
			recall(s, "topic001") // a reinforcement: the cache moves past the snapshot
			if tc.kill {
				s.kill()
				return
			}
			s.call("shutdown", nil, nil)
			if code := s.waitExit(); code != 0 {
				t.Fatalf("exit %d", code)
			}
			s.assertProtocolOnly()
		})
	}
}

// lineWith is the first line of s holding sub, or "".
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
