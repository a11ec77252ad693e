package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/index/cache"
	"github.com/somni-dev/somni/internal/index/rank"
)

// TestQuickStart walks a QuickStart index through a restart: searches
// answer from the cache while the start's listing is held up, a sync asked
// for after a change lists again rather than use the older listing, and a
// change made between the first sync's listing and the watches is found
// once watching has started, with no search or sync asked for it.
func TestQuickStart(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	paths := seedTree(t, root, 20)
	db := filepath.Join(t.TempDir(), "i.sqlite")
	src := &listedGate{dirSource: dirSource{root}, listed: make(chan struct{}), release: make(chan struct{})}
	opts := Options{Path: db, Source: src, Logger: quietLogger(), WatchDirs: []string{root}, QuickStart: true}
	ix, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.SyncSince(ctx, time.Time{}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := os.Stat(db + "-snap"); err != nil {
		t.Fatalf("no snapshot after Close: %v", err)
	}

	// restart with the start's listing held up
	src.gate.Store(true)
	ix, err = Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	<-src.listed // the listing is taken and held up
	if ix.Cached() != 20 {
		t.Fatalf("%d entries read from the cache, want 20", ix.Cached())
	}
	searched := make(chan []rank.Hit, 1)
	go func() { h, _ := ix.Search(ctx, rank.Query{Text: "topic 3"}); searched <- h }()
	select {
	case h := <-searched:
		if len(h) == 0 || !strings.Contains(h[0].Doc.Path, "note-3") {
			t.Fatalf("search from the cache: %v", h)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a search waited for the start's listing")
	}

	// (the watches wait for the change below, made after this sync)
	edited := make(chan struct{})
	ix.beforeWatch = func() { <-edited }
	defer func() { // a failure before close(edited) must not leave Close waiting for the watches
		select {
		case <-edited:
		default:
			close(edited)
		}
	}()

	// a change after the listing was taken, then a sync asked for after
	// it: the held-up listing cannot serve it
	writeAtomic(t, paths[4], noteText("note-4", "quokkaberry topic", "edited after the listing began", 0.5))
	asked := time.Now()
	synced := make(chan error, 1)
	go func() { _, err := ix.SyncSince(ctx, asked); synced <- err }()
	src.gate.Store(false)     // the sync's own listing is not held up
	src.release <- struct{}{} // the start's listing goes on
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	if h, _ := ix.Search(ctx, rank.Query{Text: "quokkaberry"}); len(h) == 0 || h[0].Doc.Path != paths[4] {
		t.Fatalf("a change made before the sync was asked for is missing after it: %v", h)
	}

	// a change before the watches exist, found by the full sync after them
	writeAtomic(t, paths[5], noteText("note-5", "wallabyplum topic", "edited before the watches", 0.5))
	close(edited)
	select {
	case <-ix.Watched():
	case <-time.After(30 * time.Second):
		t.Fatal("never watched")
	}
	if !ix.Watching() {
		t.Skip("no inotify here")
	}
	if h, _ := ix.Search(ctx, rank.Query{Text: "wallabyplum"}); len(h) == 0 || h[0].Doc.Path != paths[5] {
		t.Fatalf("a change made before the watches is missing once they are set up: %v", h)
	}
	// and from then on the watcher names what changes
	writeAtomic(t, paths[6], noteText("note-6", "numbatfig topic", "edited under the watcher", 0.5))
	waitRecorded(t, ix, paths[6])
	if h, _ := ix.Search(ctx, rank.Query{Text: "numbatfig"}); len(h) == 0 || h[0].Doc.Path != paths[6] {
		t.Fatalf("a change under the watcher is missing: %v", h)
	}
}

// listedGate is a dirSource whose Scan, while gate is set, lists the tree
// and then waits for release before it returns that listing.
type listedGate struct {
	dirSource
	gate    atomic.Bool
	listed  chan struct{}
	release chan struct{}
}

func (g *listedGate) Scan(ctx context.Context) ([]FileRef, error) {
	refs, err := g.dirSource.Scan(ctx)
	if g.gate.Load() {
		g.listed <- struct{}{}
		<-g.release
	}
	return refs, err
}

// TestSnapshotFaithful: an index read from its snapshot ranks exactly as
// the one that wrote it, and one whose cache file moved on (another
// writer, or a rebuilt file) reads the rows instead.
func TestSnapshotFaithful(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	seedTree(t, root, 40)
	db := filepath.Join(t.TempDir(), "i.sqlite")
	opts := Options{Path: db, Source: dirSource{root}, Logger: quietLogger(), ScanInterval: -1}
	ix, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	queries := []string{"topic 7", "plain body note 12", "tree", "note-33"}
	ranked := func(ix *Index) [][]rank.Hit {
		var out [][]rank.Hit
		for _, q := range queries {
			h, err := ix.Search(ctx, rank.Query{Text: q, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, h)
		}
		return out
	}
	before := ranked(ix)
	ix.Close()

	ix, err = Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if ix.snapGen == 0 && ix.snapID == "" {
		t.Fatal("the reopen did not read the snapshot")
	}
	after := ranked(ix)
	for i := range before {
		if len(before[i]) != len(after[i]) {
			t.Fatalf("%q: %d hits before, %d from the snapshot", queries[i], len(before[i]), len(after[i]))
		}
		for j := range before[i] {
			b, a := before[i][j], after[i][j]
			if b.Doc.Path != a.Doc.Path || b.Hybrid != a.Hybrid || b.Keyword != a.Keyword || b.Doc.Body != a.Doc.Body {
				t.Errorf("%q hit %d: before %s %v %v, from the snapshot %s %v %v", queries[i], j, b.Doc.Path, b.Hybrid, b.Keyword, a.Doc.Path, a.Hybrid, a.Keyword)
			}
		}
	}
	// a write the snapshot does not hold: the next start reads the rows
	st := ix.st
	if err := st.SetState(ctx, "probe", "1"); err != nil { // not a row: the snapshot stays good
		t.Fatal(err)
	}
	ix.Close()
	other, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if other.snapID == "" {
		t.Fatal("a state write made the snapshot unusable")
	}
	// another process writes rows meanwhile: this one's corpus is no
	// longer the file's, so its Close writes no snapshot, and the next
	// start reads the rows
	st2, _, _, err := cache.Open(ctx, db, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	if err := st2.WriteLight(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st2.Close()
	other.Close()
	third, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if third.snapID != "" {
		t.Fatal("a snapshot older than the cache file was read")
	}
	if third.Cached() != 40 {
		t.Fatalf("%d rows read, want 40", third.Cached())
	}
}
