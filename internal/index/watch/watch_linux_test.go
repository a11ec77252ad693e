//go:build linux

package watch

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWatchEventsToChanges feeds the watcher synthetic inotify events and
// checks what it records: the file an event names, a directory's subtree,
// nothing for hidden names, everything after an overflow.
func TestWatchEventsToChanges(t *testing.T) {
	root := t.TempDir()
	var cs Changes
	w, err := Start([]string{root}, slog.New(slog.NewTextHandler(io.Discard, nil)), &cs)
	if err != nil {
		t.Skip("no inotify here:", err)
	}
	defer w.Close()
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
			full, paths := cs.Take()
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
