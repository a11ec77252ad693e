//go:build linux

package index

import (
	"context"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWatchEventsToChanges feeds the watcher synthetic inotify events and
// checks what it records: the file an event names, a directory's subtree,
// nothing for hidden names, everything after an overflow.
func TestWatchEventsToChanges(t *testing.T) {
	root := t.TempDir()
	var cs changeSet
	w, err := startWatcher([]string{root}, quietLogger(), &cs)
	if err != nil {
		t.Skip("no inotify here:", err)
	}
	defer w.close()
	var rootWD int
	w.mu.Lock()
	for wd, p := range w.wds {
		if p == root {
			rootWD = wd
		}
	}
	w.mu.Unlock()
	cases := []struct {
		name      string
		mask      uint32
		file      string
		wantFull  bool
		wantPaths map[string]bool
	}{
		{"file written", unix.IN_CLOSE_WRITE, "SKILL.md", false, map[string]bool{filepath.Join(root, "SKILL.md"): false}},
		{"file renamed into place", unix.IN_MOVED_TO, "SKILL.md", false, map[string]bool{filepath.Join(root, "SKILL.md"): false}},
		{"hidden temporary", unix.IN_CREATE, ".SKILL.md.tmp-1", false, nil},
		{"directory removed", unix.IN_DELETE | unix.IN_ISDIR, "gone", false, map[string]bool{filepath.Join(root, "gone"): true}},
		{"directory moved away", unix.IN_MOVED_FROM | unix.IN_ISDIR, "old", false, map[string]bool{filepath.Join(root, "old"): true}},
		{"new directory (already gone again)", unix.IN_CREATE | unix.IN_ISDIR, "new", false, map[string]bool{filepath.Join(root, "new"): true}},
		{"root deleted", unix.IN_DELETE_SELF, "", false, map[string]bool{root: true}},
		{"queue overflow", unix.IN_Q_OVERFLOW, "", true, nil},
		{"unknown watch", unix.IN_CLOSE_WRITE, "x.md", false, nil}, // wd -1 below
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wd := rootWD
			if tc.name == "unknown watch" {
				wd = -1
			}
			w.handle(wd, tc.mask, tc.file)
			full, paths := cs.take()
			if full != tc.wantFull || len(paths) != len(tc.wantPaths) {
				t.Fatalf("recorded full=%v %v, want %v %v", full, paths, tc.wantFull, tc.wantPaths)
			}
			for p, d := range tc.wantPaths {
				if got, ok := paths[p]; !ok || got != d {
					t.Errorf("%s: got %v,%v want dir=%v", p, got, ok, d)
				}
			}
		})
	}
}

// TestWatchOverflowRescansEverything: after lost events the next search
// runs one full scan, then goes back to path syncs.
func TestWatchOverflowRescansEverything(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	seedTree(t, root, 5)
	ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "i.sqlite"), Source: dirSource{root},
		Logger: quietLogger(), WatchDirs: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !ix.Watching() {
		t.Skip("no inotify here")
	}
	ix.Search(ctx, Query{Text: "topic"}) // the first search scans everything
	c0 := ix.Counters()
	ix.w.handle(0, unix.IN_Q_OVERFLOW, "")
	ix.Search(ctx, Query{Text: "topic"})
	ix.Search(ctx, Query{Text: "topic"})
	if d := counterDelta(c0, ix.Counters()); d.FullScans != 1 {
		t.Errorf("overflow: %d full scans over two searches, want 1", d.FullScans)
	}
}
