//go:build linux

package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/somni-dev/somni/internal/index/rank"
)

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
	ix.Search(ctx, rank.Query{Text: "topic"}) // the first search scans everything
	c0 := ix.Counters()
	ix.changes.MarkFull() // what the watcher records on a queue overflow
	ix.Search(ctx, rank.Query{Text: "topic"})
	ix.Search(ctx, rank.Query{Text: "topic"})
	if d := counterDelta(c0, ix.Counters()); d.FullScans != 1 {
		t.Errorf("overflow: %d full scans over two searches, want 1", d.FullScans)
	}
}
