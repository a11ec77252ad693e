package index

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/safefs"
)

// trackedSource is a dirSource that records scans and which files it loaded.
type trackedSource struct {
	dirSource
	scans atomic.Int64
	mu    sync.Mutex
	loads []string
}

func (s *trackedSource) Scan(ctx context.Context) ([]FileRef, error) {
	s.scans.Add(1)
	return s.dirSource.Scan(ctx)
}

func (s *trackedSource) Load(ctx context.Context, ref FileRef) (rank.Doc, error) {
	s.mu.Lock()
	s.loads = append(s.loads, ref.Path)
	s.mu.Unlock()
	return s.dirSource.Load(ctx, ref)
}

// takeLoads returns the distinct paths loaded since the last call.
func (s *trackedSource) takeLoads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Compact(slices.Sorted(slices.Values(s.loads)))
	s.loads = nil
	return out
}

// subtreeSource adds ScanUnder, with dirSource's rules, to a trackedSource.
type subtreeSource struct{ *trackedSource }

func (s subtreeSource) ScanUnder(ctx context.Context, p string) ([]FileRef, error) {
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return dirSource{s.root}.scanFrom(ctx, p)
}

// noteText is a note file in dirSource's format.
func noteText(name, desc, body string, score float64) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\nscore: %g\n---\n\n%s\n", name, desc, score, body)
}

// writeAtomic replaces p the way memory's writer does: a hidden temporary
// file in the same directory, renamed over the target.
func writeAtomic(tb testing.TB, p, text string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		tb.Fatal(err)
	}
}

// seedTree writes n notes under root/knowledge and returns their paths.
func seedTree(tb testing.TB, root string, n int) []string {
	tb.Helper()
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(root, "knowledge", fmt.Sprintf("note-%d", i), "SKILL.md")
		writeAtomic(tb, paths[i], noteText(fmt.Sprintf("note-%d", i), fmt.Sprintf("topic %d of the tree", i),
			fmt.Sprintf("plain body for note %d", i), 0.5))
	}
	return paths
}

// waitRecorded waits until the watcher has recorded p (or gives up).
func waitRecorded(tb testing.TB, ix *Index, p string) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ix.changes.Has(p) {
		if time.Now().After(deadline) {
			tb.Fatalf("watcher never reported %s", p)
		}
		time.Sleep(time.Millisecond)
	}
}

// settle lets late events arrive and syncs them, so a step's counters
// include everything its change caused and nothing of the next step.
func settle(ix *Index) {
	time.Sleep(30 * time.Millisecond)
	ix.Search(context.Background(), rank.Query{Text: "settle"})
	ix.WaitEmbedded(context.Background())
}

func counterDelta(a, b SyncCounters) SyncCounters {
	return SyncCounters{FullScans: b.FullScans - a.FullScans, PathSyncs: b.PathSyncs - a.PathSyncs,
		Loaded: b.Loaded - a.Loaded, Embedded: b.Embedded - a.Embedded, Removed: b.Removed - a.Removed}
}

func hitByName(hits []rank.Hit, name string) (rank.Hit, bool) {
	for _, h := range hits {
		if h.Doc.Name == name {
			return h, true
		}
	}
	return rank.Hit{}, false
}

// TestWatchSyncsOnlyChangedPaths drives one watched index through the
// kinds of change a memory tree sees and checks, by counters rather than
// timing, that each one reloads only what it touched.
func TestWatchSyncsOnlyChangedPaths(t *testing.T) {
	for _, variant := range []string{"plain-source", "subtree-source"} {
		t.Run(variant, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			paths := seedTree(t, root, 30)
			ts := &trackedSource{dirSource: dirSource{root}}
			var src Source = ts
			subtree := variant == "subtree-source"
			if subtree {
				src = subtreeSource{ts}
			}
			emb := &countingEmbedder{Embedder: embed.Hash()}
			ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "i.sqlite"), Source: src, Embedder: emb,
				Logger: quietLogger(), WatchDirs: []string{root}})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if !ix.Watching() {
				t.Skip("no inotify here")
			}
			if _, err := ix.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			newNote := filepath.Join(root, "knowledge", "brand-new", "SKILL.md")
			fullIfPlain := int64(1)
			if subtree {
				fullIfPlain = 0
			}
			steps := []struct {
				name      string
				change    func() string // returns the path to wait for
				query     string
				check     func([]rank.Hit) error
				want      SyncCounters // FullScans, Loaded, Embedded, Removed (PathSyncs not compared)
				wantLoads []string
			}{
				{
					name: "edit one of 30 files",
					change: func() string {
						writeAtomic(t, paths[7], noteText("note-7", "topic 7 of the tree", "autovacuum fixed the zanzibar bloat", 0.5))
						return paths[7]
					},
					query: "zanzibar bloat",
					check: func(h []rank.Hit) error {
						if len(h) == 0 || h[0].Doc.Name != "note-7" {
							return fmt.Errorf("edit not found: %q", names(h))
						}
						return nil
					},
					want: SyncCounters{Loaded: 1, Embedded: 1}, wantLoads: []string{paths[7]},
				},
				{
					name: "score-only rewrite (reinforcement)",
					change: func() string {
						writeAtomic(t, paths[3], noteText("note-3", "topic 3 of the tree", "plain body for note 3", 0.93))
						return paths[3]
					},
					query: "note-3",
					check: func(h []rank.Hit) error {
						if x, ok := hitByName(h, "note-3"); !ok || x.Doc.Score != 0.93 {
							return fmt.Errorf("new score not visible: %+v", h)
						}
						return nil
					},
					want: SyncCounters{Loaded: 1}, wantLoads: []string{paths[3]},
				},
				{
					name: "new directory with a new entry",
					change: func() string {
						writeAtomic(t, newNote, noteText("brand-new", "quasar membership", "static membership stops rebalance storms", 0.5))
						return filepath.Dir(newNote)
					},
					query: "quasar membership",
					check: func(h []rank.Hit) error {
						if len(h) == 0 || h[0].Doc.Name != "brand-new" {
							return fmt.Errorf("new entry not found: %q", names(h))
						}
						return nil
					},
					// the directory's scan and a late event for the file may both load it
					want: SyncCounters{FullScans: fullIfPlain, Embedded: 1}, wantLoads: []string{newNote},
				},
				{
					name: "deleted file",
					change: func() string {
						if err := os.Remove(paths[11]); err != nil {
							t.Fatal(err)
						}
						return paths[11]
					},
					query: "note-11",
					check: func(h []rank.Hit) error {
						if _, ok := hitByName(h, "note-11"); ok {
							return fmt.Errorf("deleted entry still found")
						}
						return nil
					},
					want: SyncCounters{Removed: 1},
				},
				{
					name: "deleted directory",
					change: func() string {
						if err := os.RemoveAll(filepath.Dir(paths[12])); err != nil {
							t.Fatal(err)
						}
						return filepath.Dir(paths[12])
					},
					query: "note-12",
					check: func(h []rank.Hit) error {
						if _, ok := hitByName(h, "note-12"); ok {
							return fmt.Errorf("entry of deleted directory still found")
						}
						return nil
					},
					want: SyncCounters{Removed: 1},
				},
				{
					name: "directory renamed",
					change: func() string {
						to := filepath.Join(root, "knowledge", "note-13-renamed")
						if err := os.Rename(filepath.Dir(paths[13]), to); err != nil {
							t.Fatal(err)
						}
						return to
					},
					query: "topic 13",
					check: func(h []rank.Hit) error {
						x, ok := hitByName(h, "note-13")
						if !ok || !strings.Contains(x.Doc.Path, "note-13-renamed") {
							return fmt.Errorf("renamed entry not at its new path: %+v", h)
						}
						return nil
					},
					want: SyncCounters{FullScans: fullIfPlain, Removed: 1}, wantLoads: []string{filepath.Join(root, "knowledge", "note-13-renamed", "SKILL.md")},
				},
			}
			for _, st := range steps {
				settle(ix)
				ts.takeLoads()
				scans0, c0 := ts.scans.Load(), ix.Counters()
				waitRecorded(t, ix, st.change())
				hits, err := ix.Search(ctx, rank.Query{Text: st.query, Limit: 50})
				if err != nil {
					t.Fatal(err)
				}
				if err := st.check(hits); err != nil {
					t.Errorf("%s: %v", st.name, err)
				}
				settle(ix)
				d := counterDelta(c0, ix.Counters())
				loads := ts.takeLoads()
				if d.FullScans != st.want.FullScans || ts.scans.Load()-scans0 != st.want.FullScans {
					t.Errorf("%s: %d full scans (source saw %d), want %d", st.name, d.FullScans, ts.scans.Load()-scans0, st.want.FullScans)
				}
				if !slices.Equal(loads, st.wantLoads) {
					t.Errorf("%s: loaded %q, want %q", st.name, loads, st.wantLoads)
				}
				if st.want.Loaded > 0 && d.Loaded != st.want.Loaded {
					t.Errorf("%s: %d loads, want %d", st.name, d.Loaded, st.want.Loaded)
				}
				// searches embed their queries too, so the embedder's own count
				// is checked in TestSyncPaths; here the index's counter is
				if d.Embedded != st.want.Embedded {
					t.Errorf("%s: embedded %d, want %d", st.name, d.Embedded, st.want.Embedded)
				}
				if d.Removed != st.want.Removed {
					t.Errorf("%s: removed %d, want %d", st.name, d.Removed, st.want.Removed)
				}
			}
			// a file the Source does not index: with a plain source the first
			// event costs a full scan, later ones none
			other := filepath.Join(filepath.Dir(paths[1]), "notes.txt")
			for i, wantFull := range []int64{fullIfPlain, 0} {
				settle(ix)
				c0 := ix.Counters()
				writeAtomic(t, other, fmt.Sprintf("scratch %d", i))
				waitRecorded(t, ix, other)
				ix.Search(ctx, rank.Query{Text: "scratch"})
				if d := counterDelta(c0, ix.Counters()); d.FullScans != wantFull || d.Loaded != 0 {
					t.Errorf("non-entry file, write %d: %+v, want %d full scans and no load", i, d, wantFull)
				}
			}
			// the index on disk agrees with what searches see
			ix.Close()
			ix2, err := Open(ctx, Options{Path: ix.opts.Path, Source: src, Embedder: emb, Logger: quietLogger(), ScanInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer ix2.Close()
			e0 := emb.texts.Load()
			st, err := ix2.Sync(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Loaded != 0 || st.Removed != 0 || emb.texts.Load() != e0 {
				t.Errorf("reopened index was out of date: %+v", st)
			}
			hits, _ := ix2.Search(ctx, rank.Query{Text: "note-3"})
			if x, ok := hitByName(hits, "note-3"); !ok || x.Doc.Score != 0.93 {
				t.Errorf("score-only update not persisted: %+v", hits)
			}
		})
	}
}

// TestSyncPaths checks the explicit, watcher-free form of a targeted sync.
func TestSyncPaths(t *testing.T) {
	for _, subtree := range []bool{false, true} {
		t.Run(fmt.Sprintf("subtree=%v", subtree), func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			paths := seedTree(t, root, 20)
			ts := &trackedSource{dirSource: dirSource{root}}
			var src Source = ts
			if subtree {
				src = subtreeSource{ts}
			}
			emb := &countingEmbedder{Embedder: embed.Hash()}
			ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "i.sqlite"), Source: src, Embedder: emb,
				Logger: quietLogger(), ScanInterval: -1, Roots: []string{root}})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			syncEmbedded(t, ix)
			if _, err := ix.SyncPaths(ctx, filepath.Join(t.TempDir(), "elsewhere.md")); !errors.Is(err, safefs.ErrOutside) {
				t.Errorf("path outside the roots: err = %v, want ErrOutside", err)
			}
			fresh := filepath.Join(root, "knowledge", "fresh", "SKILL.md")
			newFull := 1
			if subtree {
				newFull = 0
			}
			cases := []struct {
				name                            string
				change                          func() string
				loaded, embedded, removed, full int
			}{
				{"edited text", func() string {
					writeAtomic(t, paths[2], noteText("note-2", "topic 2", "kestrel migration notes", 0.5))
					return paths[2]
				}, 1, 1, 0, 0},
				{"score only", func() string {
					writeAtomic(t, paths[4], noteText("note-4", "topic 4 of the tree", "plain body for note 4", 0.1))
					return paths[4]
				}, 1, 0, 0, 0},
				{"same bytes rewritten", func() string {
					writeAtomic(t, paths[4], noteText("note-4", "topic 4 of the tree", "plain body for note 4", 0.1))
					return paths[4]
				}, 1, 0, 0, 0},
				{"unchanged file named", func() string { return paths[5] }, 1, 0, 0, 0},
				{"deleted file", func() string {
					os.Remove(paths[6])
					return paths[6]
				}, 0, 0, 1, 0},
				{"deleted directory", func() string {
					os.RemoveAll(filepath.Dir(paths[8]))
					return filepath.Dir(paths[8])
				}, 0, 0, 1, 0},
				{"new directory", func() string {
					writeAtomic(t, fresh, noteText("fresh", "fresh entry", "osprey", 0.5))
					return filepath.Dir(fresh)
				}, 1, 1, 0, newFull},
			}
			for _, tc := range cases {
				c0, e0 := ix.Counters(), emb.texts.Load()
				st, err := ix.SyncPaths(ctx, tc.change())
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				if err := ix.WaitEmbedded(ctx); err != nil {
					t.Fatal(err)
				}
				d := counterDelta(c0, ix.Counters())
				if st.Loaded != tc.loaded || int(emb.texts.Load()-e0) != tc.embedded || st.Removed != tc.removed || int(d.FullScans) != tc.full {
					t.Errorf("%s: loaded %d embedded %d removed %d full scans %d, want %d %d %d %d", tc.name,
						st.Loaded, emb.texts.Load()-e0, st.Removed, d.FullScans, tc.loaded, tc.embedded, tc.removed, tc.full)
				}
			}
			if hits, _ := ix.Search(ctx, rank.Query{Text: "osprey"}); len(hits) == 0 || hits[0].Doc.Name != "fresh" {
				t.Errorf("new entry not searchable: %q", names(hits))
			}
			if n := ix.Status().Entries; n != 19 {
				t.Errorf("entries = %d, want 19", n)
			}
		})
	}
}

// gatedSource blocks Scan while gate is set, to stand for a slow scan.
type gatedSource struct {
	*trackedSource
	gate    atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (g *gatedSource) Scan(ctx context.Context) ([]FileRef, error) {
	if g.gate.Load() {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.trackedSource.Scan(ctx)
}

// TestWatchSafetyNetRunsInBackground: once the last full scan is older
// than WatchSafetyInterval a search starts one, but does not wait for it,
// and Close waits for it to finish.
func TestWatchSafetyNetRunsInBackground(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	seedTree(t, root, 5)
	var mu sync.Mutex
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	src := &gatedSource{trackedSource: &trackedSource{dirSource: dirSource{root}},
		entered: make(chan struct{}), release: make(chan struct{})}
	ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "i.sqlite"), Source: src, Logger: quietLogger(),
		Now: clock, WatchDirs: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !ix.Watching() {
		t.Skip("no inotify here")
	}
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	search := func() []rank.Hit {
		done := make(chan []rank.Hit, 1)
		go func() { h, _ := ix.Search(ctx, rank.Query{Text: "topic 3"}); done <- h }()
		select {
		case h := <-done:
			return h
		case <-time.After(10 * time.Second):
			t.Fatal("search waited for the background scan")
			return nil
		}
	}
	if n := ix.Counters().FullScans; n != 1 {
		t.Fatalf("full scans after Sync = %d", n)
	}
	search()
	if n := ix.Counters().FullScans; n != 1 {
		t.Errorf("a quiet watched search scanned: %d full scans", n)
	}
	mu.Lock()
	now = now.Add(WatchSafetyInterval)
	mu.Unlock()
	src.gate.Store(true)
	if h := search(); len(h) == 0 {
		t.Error("search during the safety-net scan returned nothing")
	}
	<-src.entered // the background scan started and is stuck in Scan
	if h := search(); len(h) == 0 {
		t.Error("second search during the safety-net scan returned nothing")
	}
	src.gate.Store(false)
	close(src.release)
	deadline := time.Now().Add(10 * time.Second)
	for ix.Counters().FullScans != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("safety-net scan never finished: %+v", ix.Counters())
		}
		time.Sleep(time.Millisecond)
	}
	search()
	if n := ix.Counters().FullScans; n != 2 {
		t.Errorf("safety net ran again right after a scan: %d full scans", n)
	}
}

// TestScoreRowsDeferredUntilFullSync: a path sync publishes a new score
// to searches at once but postpones the row update (searches pay for
// path syncs); the next full sync writes it.
func TestScoreRowsDeferredUntilFullSync(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	paths := seedTree(t, root, 3)
	dbPath := filepath.Join(t.TempDir(), "i.sqlite")
	ix, err := Open(ctx, Options{Path: dbPath, Source: dirSource{root}, Logger: quietLogger(), ScanInterval: -1, Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	// storedScore reads note-1's score as a fresh Open finds it in the database
	storedScore := func() float64 {
		t.Helper()
		other, err := Open(ctx, Options{Path: dbPath, Source: dirSource{root}, Logger: quietLogger(), ScanInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		hits, _ := other.Search(ctx, rank.Query{Text: "note-1"})
		x, ok := hitByName(hits, "note-1")
		if !ok {
			t.Fatal("note-1 missing from the database")
		}
		return x.Doc.Score
	}
	score := func() float64 {
		hits, _ := ix.Search(ctx, rank.Query{Text: "note-1"})
		x, _ := hitByName(hits, "note-1")
		return x.Doc.Score
	}
	writeAtomic(t, paths[1], noteText("note-1", "topic 1 of the tree", "plain body for note 1", 0.77))
	if _, err := ix.SyncPaths(ctx, paths[1]); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name                string
		do                  func()
		wantLive, wantSaved float64
	}{
		{"after the path sync", func() {}, 0.77, 0.5},
		{"after a full sync", func() {
			if _, err := ix.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}, 0.77, 0.77},
	}
	for _, st := range steps {
		st.do()
		if got := score(); got != st.wantLive {
			t.Errorf("%s: search sees score %g, want %g", st.name, got, st.wantLive)
		}
		if got := storedScore(); got != st.wantSaved {
			t.Errorf("%s: database holds score %g, want %g", st.name, got, st.wantSaved)
		}
	}
}

// TestNoSideDoorToMemoryFiles: the index stats and reads memory files only
// through the Source and the safefs boundary; the one file it opens by
// path itself, its SQLite cache, is package cache's.
func TestNoSideDoorToMemoryFiles(t *testing.T) {
	pathFuncs := map[string]bool{"Stat": true, "Lstat": true, "ReadDir": true, "ReadFile": true, "Open": true,
		"OpenFile": true, "Remove": true, "RemoveAll": true, "Rename": true, "WriteFile": true, "Readlink": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && pathFuncs[sel.Sel.Name] {
					t.Errorf("%s: os.%s: go through the Source or safefs", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}
