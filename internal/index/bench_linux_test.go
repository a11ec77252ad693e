package index

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkChangeDetection compares the two ways to notice hand edits at
// 10k files on disk: a stat-only scan before each search, and setting up
// inotify watches on every entry directory (the watcher's start-up cost
// and kernel watch budget; events themselves are then free).
func BenchmarkChangeDetection(b *testing.B) {
	root := b.TempDir()
	for i := range 10000 {
		dir := filepath.Join(root, "knowledge", "note-"+strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: x\n---\nbody\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("mtime-scan/10000", func(b *testing.B) {
		src := dirSource{root}
		for b.Loop() {
			refs, err := src.Scan(context.Background())
			if err != nil || len(refs) != 10000 {
				b.Fatal(err, len(refs))
			}
		}
	})
	b.Run("inotify-setup/10000", func(b *testing.B) {
		var dirs []string
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for b.Loop() {
			fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
			if err != nil {
				b.Skip("inotify unavailable:", err)
			}
			for _, d := range dirs {
				if _, err := unix.InotifyAddWatch(fd, d, unix.IN_CREATE|unix.IN_DELETE|unix.IN_MODIFY|unix.IN_MOVED_TO|unix.IN_MOVED_FROM|unix.IN_CLOSE_WRITE); err != nil {
					unix.Close(fd)
					b.Fatalf("add watch %s: %v", d, err)
				}
			}
			unix.Close(fd)
		}
		if lim, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches"); err == nil {
			n, _ := strconv.Atoi(strings.TrimSpace(string(lim)))
			b.ReportMetric(float64(n), "max-user-watches")
		}
		b.ReportMetric(float64(len(dirs)), "watches-needed")
	})
	b.Run("watched-search-idle/10000", func(b *testing.B) {
		// what a search pays for freshness when nothing changed: one atomic load
		ix, err := Open(context.Background(), Options{Path: filepath.Join(b.TempDir(), "i.sqlite"),
			Source: dirSource{root}, Logger: quietLogger(), WatchDirs: []string{root}})
		if err != nil {
			b.Fatal(err)
		}
		defer ix.Close()
		if !ix.Watching() {
			b.Skip("no watcher")
		}
		ix.Sync(context.Background())
		for b.Loop() {
			if ix.stale() {
				ix.Sync(context.Background())
			}
		}
	})
}

// stale says whether a Search would sync before ranking.
func (ix *Index) stale() bool {
	iv := ix.opts.ScanInterval
	if iv < 0 {
		return false
	}
	last := ix.lastScanNS.Load()
	age := time.Duration(ix.now().UnixNano() - last)
	if ix.w != nil {
		return ix.changes.Pending() || (last != 0 && age >= WatchSafetyInterval)
	}
	return age >= iv
}
