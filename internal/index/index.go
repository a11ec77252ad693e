package index

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/cache"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/index/watch"
	"github.com/somni-dev/somni/internal/safefs"
)

// compactAfter is how many entries a sync must add before it compacts
// the posting lists (bm25.Weighted.Compact): a first sync of a large
// store, a bulk copy; copying 1M postings takes a few milliseconds under
// the lock.
const compactAfter = 512

// Index is the recall index: an in-memory corpus serving searches, backed
// by a SQLite cache that makes restarts cheap (no re-embedding). Search and
// Sync are safe to call concurrently; one Sync runs at a time, and one
// background embedder per Index computes the vectors syncs leave out.
//
// Lock order: syncMu → pubMu → mu → eq.mu. Entries are immutable once
// published: a change (a vector arriving, a new mtime) swaps in a copy,
// so a pointer read under mu stays safe to read after it is released.
type Index struct {
	opts   Options
	log    *slog.Logger
	now    func() time.Time
	scorer *rank.Scorer
	embID  string
	off    bool // the embedder produces no vectors: nothing is queued

	mu       sync.RWMutex // guards c, lastSync
	c        *rank.Corpus
	lastSync time.Time

	// pubMu orders writing rows or vectors with publishing them, so the
	// SQLite file and the corpus agree on which vector an entry has; it
	// also guards the st pointer against reopenIfGone, and unsaved and
	// dropped. Holders: a sync while it writes and publishes, the
	// embedder per batch.
	pubMu sync.Mutex
	// unsaved: a write to the cache file failed (a full disk), so it lacks
	// rows the corpus holds; dropped: paths whose rows it should no
	// longer hold. The next sync rewrites the file whole (see cacheFailed).
	unsaved bool
	dropped map[string]struct{}

	// the background embedder (embedq.go)
	eq        embedQueue
	embCtx    context.Context
	embCancel context.CancelFunc
	embDone   chan struct{}

	syncMu     sync.Mutex // serialises syncs; guards failed, ignored, deferred
	st         *cache.Store
	failed     map[string]FileRef
	ignored    map[string]struct{}    // existing files a full scan did not report (see noteIgnored)
	deferred   map[string]*rank.Entry // score/mtime-only rows not yet written (see applyLocked)
	synced     bool
	lastScanNS atomic.Int64
	syncing    atomic.Bool
	closed     atomic.Bool
	changes    watch.Changes  // what the watcher saw change since it was last synced
	w          *watch.Watcher // nil without WatchDirs or when watching failed; set before wstate says watchOn
	wstate     atomic.Int32   // watchOff, watchPending (QuickStart, until watchLater is done) or watchOn
	fs         *safefs.FS     // the boundary named paths are stat'ed through; nil without Roots (see lstat)
	counters   syncCounters
	prescan    *listing      // the Source as Open listed it, for the first full sync
	loadDone   chan struct{} // closed once watchThenList is done (not QuickStart)

	// QuickStart: firstFull closes when the first full sync has run,
	// watched when watchLater is done (watching, or given up).
	firstFull, watched chan struct{}
	firstOnce          sync.Once
	beforeWatch        func() // tests: runs in watchLater before the watches

	// the snapshot file (snapshot.go) holds the corpus at this cache
	// generation; snapshotDue: the start read rows, write one after the
	// first full sync
	snapID      string
	snapGen     uint64
	snapshotDue bool
	cached      int // entries the start read from the cache

	// background safety-net scans (watched indexes only)
	bgMu      sync.Mutex // orders bg.Add against Close
	bg        sync.WaitGroup
	bgRunning atomic.Bool
	// the structures built apart from searches (apart.go)
	apartRunning atomic.Bool
	bgCtx        context.Context
	bgCancel     context.CancelFunc
}

// Open loads the cached index at opts.Path (creating it, or replacing a
// broken one). It does not sync: call Sync, typically in the background, so
// the caller can answer at once. When it watches, it lists the Source
// beside the load (QuickStart: once the cache is read), and the first full
// Sync uses that listing unless a watch event came after it began. It
// reads the corpus from the cache's snapshot when that is a copy of the
// file (snapshot.go), else the rows. With Options.QuickStart it returns
// once the cache is read and watches later (watchLater).
func Open(ctx context.Context, opts Options) (*Index, error) {
	if opts.Path == "" {
		return nil, errors.New("index: Options.Path is required")
	}
	if opts.Source == nil {
		return nil, errors.New("index: Options.Source is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Embedder == nil {
		opts.Embedder = embed.Off()
	}
	if opts.LinkSpread == 0 {
		opts.LinkSpread = 1
	}
	ix := &Index{opts: opts, log: opts.Logger, now: opts.Now, c: rank.NewCorpus(opts.Shared),
		scorer: rank.NewScorer(opts.Embedder, opts.Calibration), embID: opts.Embedder.ID(),
		off: embed.IsOff(opts.Embedder), failed: map[string]FileRef{}}
	ix.scorer.SetLog(opts.Logger, opts.Now)
	roots := opts.Roots
	if len(roots) == 0 {
		roots = opts.WatchDirs
	}
	if len(roots) > 0 {
		fsys, err := safefs.New(roots...)
		if err != nil {
			return nil, fmt.Errorf("index: open: %w", err)
		}
		ix.fs = fsys
	}
	ix.changes.MarkFull() // nothing scanned yet: the first search scans everything
	ix.bgCtx, ix.bgCancel = context.WithCancel(context.Background())
	t0 := time.Now()
	if opts.QuickStart {
		// The Source is listed once the cache is read, unwatched; Open
		// returns then, and the first full sync uses
		// the listing (when it was taken after the sync was asked for:
		// see SyncSince). Watching starts after that sync, in the
		// background (watchLater).
		ix.firstFull = make(chan struct{})
		ix.watched = make(chan struct{})
	} else if err := ix.watchThenList(ctx); err != nil {
		return nil, err
	}
	if err := ix.load(ctx); err != nil {
		ix.bgCancel()
		ix.bg.Wait()
		if w := ix.w; w != nil {
			w.Close()
		}
		return nil, err
	}
	ix.log.Debug("index: opened", "entries", ix.c.Len(), "snapshot", ix.snapID != "", "took", time.Since(t0))
	if opts.QuickStart {
		// listed once the cache is read, not beside it: the two shared
		// the cores, so the read (and recall from it) waited for much of
		// the listing, and the sync was not answered sooner for it
		// (docs/ARCHITECTURE.md, Measurements)
		ix.prescan = ix.listAsync()
	}
	// Entries loaded without a current vector are queued by the first
	// full sync (plan.stale), once it knows which of them still exist.
	ix.startEmbedder()
	if opts.QuickStart {
		if len(opts.WatchDirs) > 0 {
			ix.wstate.Store(watchPending)
		}
		ix.goBg(ix.watchLater)
	}
	return ix, nil
}

// watchThenList is the start of an index that is not QuickStart: watching
// walks every folder, then the Source is listed, in that order as a sync
// must (a change after the listing is a watch event), beside reading the
// cache; Open waits for both, and the first full sync uses the listing.
func (ix *Index) watchThenList(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if len(ix.opts.WatchDirs) > 0 {
			w, err := watch.Start(ix.opts.WatchDirs, ix.log, &ix.changes)
			if err != nil { // nil with an error
				ix.log.Warn("index: not watching memory for hand edits; searches rescan by mtime instead",
					"err", err, "scan_interval", ix.opts.ScanInterval)
			} else {
				ix.w = w
				ix.wstate.Store(watchOn)
			}
		}
		if ix.w != nil { // unwatched, a change before the first sync would go unseen
			ix.prescan = ix.list(ctx)
		}
	}()
	ix.loadDone = done
	return nil
}

// load reads the cache into the corpus: its snapshot when it has one of
// the file's generation, else its rows.
func (ix *Index) load(ctx context.Context) error {
	var restored *rank.Corpus
	st, rows, _, err := cache.OpenSkipping(ctx, ix.opts.Path, ix.log, func(id string, gen uint64) bool {
		if restored = ix.readSnapshot(id, gen); restored != nil {
			ix.snapID, ix.snapGen = id, gen
		}
		return restored != nil
	})
	if ix.loadDone != nil {
		<-ix.loadDone
	}
	if err != nil {
		return err
	}
	ix.st = st
	if restored != nil {
		ix.c, ix.cached = restored, restored.Len()
		return nil
	}
	ix.cached = len(rows)
	entries, lexes := entriesOf(rows)
	rows = nil
	var backfill []cache.Row // views missing (an older cache) or stale: counted here, stored for the next start
	for i, e := range entries {
		if e.Embedder != ix.embID {
			e.SetVec(nil, e.Embedder) // another embedder's space: useless until re-embedded
		}
		if !rank.LexCurrent(lexes[i]) {
			lexes[i] = rank.NewEntry(e.Doc).Lex()
			backfill = append(backfill, cache.Row{Path: e.Doc.Path, DocHash: e.DocHash, Lex: lexes[i]})
		}
		ix.c.Put(e, lexes[i])
	}
	ix.c.Compact()
	if err := st.WriteLex(ctx, backfill); err != nil {
		ix.log.Warn("index: lexical views not stored; the next start counts them again", "err", err)
	}
	if len(entries) > 0 {
		ix.snapshotDue = true // written once the first full sync is done
	}
	return nil
}

// Watching reports whether a file watcher keeps the index fresh (with
// QuickStart, only once watchLater has started it).
func (ix *Index) Watching() bool { return ix.wstate.Load() == watchOn }

// Cached is how many entries Open read from the cache: an index that
// starts with some can answer searches before its first sync.
func (ix *Index) Cached() int { return ix.cached }

// Watched is closed once a QuickStart index has set up its watcher (or
// given up on it) and run the full sync that follows; at once otherwise.
// Housekeeping that walks the tree waits for it, not to compete with it.
func (ix *Index) Watched() <-chan struct{} {
	if ix.watched == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return ix.watched
}

// The watcher's states (Index.wstate).
const (
	watchOff     = iota // no WatchDirs, or watching failed: searches rescan by mtime
	watchPending        // QuickStart: watchLater has not set it up yet
	watchOn
)

// goBg runs f on a goroutine Close waits for; after Close it runs
// nothing and returns false.
func (ix *Index) goBg(f func(ctx context.Context)) bool {
	ix.bgMu.Lock()
	defer ix.bgMu.Unlock()
	if ix.closed.Load() {
		return false
	}
	ix.bg.Add(1)
	go func() {
		defer ix.bg.Done()
		f(ix.bgCtx)
	}()
	return true
}

// listAsync lists the Source in the background; the listing's done
// closes when it is there.
func (ix *Index) listAsync() *listing {
	l := &listing{at: ix.now(), started: time.Now(), gen: ix.changes.Gen(), done: make(chan struct{})}
	ix.bg.Add(1) // Open has not returned: nothing closes meanwhile
	go func() {
		defer ix.bg.Done()
		defer close(l.done)
		l.refs, l.err = ix.opts.Source.Scan(ix.bgCtx)
		ix.log.Debug("index: listed", "files", len(l.refs), "took", time.Since(l.started), "err", l.err)
	}()
	return l
}

// watchAfter bounds how long a QuickStart index waits for its first full
// sync before it sets up its watcher anyway.
const watchAfter = 10 * time.Second

// watchLater is a QuickStart index's watching: after the first full sync
// (or watchAfter), it watches every folder, then runs a full sync on a new
// listing, which finds what changed between the first sync's listing and
// the watches; from then on the watcher names what changes. Where
// watching fails, searches rescan by mtime as without WatchDirs.
func (ix *Index) watchLater(ctx context.Context) {
	defer close(ix.watched)
	select {
	case <-ix.firstFull:
	case <-time.After(watchAfter):
	case <-ctx.Done():
		return
	}
	if ix.beforeWatch != nil {
		ix.beforeWatch()
	}
	if len(ix.opts.WatchDirs) > 0 {
		start := time.Now()
		w, err := watch.StartContext(ctx, ix.opts.WatchDirs, ix.log, &ix.changes)
		if err != nil {
			ix.wstate.Store(watchOff)
			if ctx.Err() != nil {
				return
			}
			ix.log.Warn("index: not watching memory for hand edits; searches rescan by mtime instead",
				"err", err, "scan_interval", ix.opts.ScanInterval)
		} else {
			ix.syncMu.Lock()
			ix.w = w
			ix.wstate.Store(watchOn)
			_, named := ix.changes.Take()
			_, err = ix.syncLocked(ctx, named, start)
			ix.syncMu.Unlock()
			ix.log.Debug("index: watching", "took", time.Since(start), "err", err)
		}
	}
	// a start that read the rows leaves the snapshot the next one reads
	ix.syncMu.Lock()
	if ix.snapshotDue && ctx.Err() == nil {
		ix.snapshotDue = false
		ix.pubMu.Lock()
		ix.writeSnapshot(ctx)
		ix.pubMu.Unlock()
	}
	ix.syncMu.Unlock()
}

// Close closes the database. The embedder belongs to the caller.
func (ix *Index) Close() error {
	if ix.closed.Swap(true) {
		return nil
	}
	ix.bgCancel()
	ix.bgMu.Lock() // no background sync starts after this
	ix.bgMu.Unlock()
	ix.bg.Wait()
	if ix.w != nil {
		ix.w.Close()
	}
	// Rows are written before they are published, so what is still
	// queued is in the file without its vector; the next Open's first
	// sync queues it again.
	ix.stopEmbedder()
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	ix.flushDeferred()
	ix.pubMu.Lock()
	ix.writeSnapshot(context.Background())
	ix.pubMu.Unlock()
	if err := ix.st.Close(); err != nil {
		return fmt.Errorf("index: close: %w", err)
	}
	return nil
}

// Scorer is the hybrid scorer this index ranks with, for ad-hoc doc sets.
func (ix *Index) Scorer() *rank.Scorer { return ix.scorer }

// EmbedQuery embeds a query with the index's embedder (nil when off or
// backing off after a failure), so callers can cache it and pass it back
// as Query.Vector.
func (ix *Index) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return ix.scorer.EmbedQueryWeighted(ctx, text, ix.termWeight)
}

// termWeight is the corpus' bm25.Weighted.TermWeight under the read
// lock: the embedder calls it while building a query vector, outside any
// lock of the index.
func (ix *Index) termWeight(word string) float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.c.TermWeight(word)
}

// Embedder is the live embedder, for callers that ask it about its
// capabilities (assoc asks whether it is too noisy for hints).
func (ix *Index) Embedder() embed.Embedder { return ix.opts.Embedder }

// Status reports the live embedder, how far embedding has got and whether
// queries rank by vectors. It costs one pass over the corpus under the
// read lock (about 20 µs at 10k entries).
func (ix *Index) Status() Status {
	pending, backingOff := ix.embedState()
	ix.mu.RLock()
	st := Status{Embedder: ix.embID, Entries: ix.c.Len(), LastSync: ix.lastSync, Syncing: ix.syncing.Load(),
		Pending: pending, BackingOff: backingOff}
	if !ix.off {
		for e := range ix.c.All() {
			if e.Vec() != nil && e.Embedder == ix.embID {
				st.Embedded++
			}
		}
	}
	ix.mu.RUnlock()
	if ix.off {
		return st
	}
	st.SemanticReady = !st.LastSync.IsZero() && st.Embedded == st.Entries
	// A query ranks by cosine when it gets a vector (the scorer embeds it
	// unless it is backing off after a failure, its own or the
	// embedder's) and some entry has one to compare with; the rest score
	// by keyword meanwhile. An empty index counts as ranking by vectors:
	// the first entry written is embedded, and a fresh install whose
	// model works must not read as one that fell back.
	st.Vectors = (st.Embedded > 0 || st.Entries == 0) && !st.BackingOff && !ix.scorer.Guard().Down()
	return st
}

// Links lists stored related: links, or only the unresolved ones.
func (ix *Index) Links(ctx context.Context, orphansOnly bool) ([]Link, error) {
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	return ix.st.Links(ctx, orphansOnly)
}

// Search ranks the index for q. It first brings the index up to date the
// cheap way (see refresh): with a watcher only the paths it saw change are
// reloaded, without one the mtime scan runs when the last one is older
// than ScanInterval. If a sync is already running it searches what is
// indexed so far instead of waiting.
func (ix *Index) Search(ctx context.Context, q rank.Query) ([]rank.Hit, error) {
	if ix.closed.Load() {
		return nil, errors.New("index: search on closed index")
	}
	ix.refresh(ctx)
	qvec := q.Vector
	if qvec == nil {
		v, err := ix.EmbedQuery(ctx, q.Text)
		if err != nil {
			ix.log.Warn("query embedding failed; keyword recall only", "err", err)
		}
		qvec = v
	}
	spread := ix.opts.LinkSpread
	ix.mu.RLock()
	hits := ix.scorer.Rank(ix.c, q, qvec, spread)
	wantFloor := ix.c.PlainWanted()
	ix.mu.RUnlock()
	if wantFloor {
		ix.apartLater()
	}
	return hits, nil
}

// Sync brings the index up to date with the Source: a cheap mtime/size
// scan, then loading only changed files, re-embedding only entries whose
// embedded text (or the embedder) changed, and dropping deleted files. A
// deleted or replaced database file is recreated from memory. It returns
// once the BM25 floor's index is built too, where the corpus wants one
// (apart.go), so a caller that synced ranks as make eval measures.
func (ix *Index) Sync(ctx context.Context) (SyncStats, error) {
	return ix.SyncSince(ctx, time.Now())
}

// SyncSince is Sync for a caller that asked for it at asked: a listing
// of the Source taken since then (QuickStart's, once the cache is read)
// serves it. A zero asked takes any listing Open made (the start's own
// sync).
func (ix *Index) SyncSince(ctx context.Context, asked time.Time) (SyncStats, error) {
	if ix.closed.Load() {
		return SyncStats{}, errors.New("index: sync on closed index")
	}
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	_, named := ix.changes.Take()
	stats, err := ix.syncLocked(ctx, named, asked)
	if err == nil {
		ix.apartLocked(ctx)
	}
	return stats, err
}

// reopenIfGone recreates a deleted or replaced database file; true means
// every entry must be written to the new one.
func (ix *Index) reopenIfGone(ctx context.Context, stats *SyncStats) (bool, error) {
	if !ix.st.Gone() {
		return false, nil
	}
	ix.log.Info("index file deleted or replaced; rebuilding", "path", ix.opts.Path)
	ix.pubMu.Lock() // the embedder writes vectors through ix.st
	defer ix.pubMu.Unlock()
	ix.st.Close()
	st, _, _, err := cache.Open(ctx, ix.opts.Path, ix.log)
	if err != nil {
		return false, err
	}
	ix.st, stats.Rebuilt = st, true
	return true, nil
}

// syncLocked is the full sync: scan the whole Source and apply the
// difference. named are paths a watcher saw change (taken from
// ix.changes by the caller): they are reloaded even when their mtime and
// size look unchanged, since two writes can share a coarse mtime. On
// failure they are put back, so the next search retries.
func (ix *Index) syncLocked(ctx context.Context, named map[string]bool, asked time.Time) (stats SyncStats, err error) {
	start := time.Now()
	ix.syncing.Store(true)
	defer ix.syncing.Store(false)
	defer func() {
		if err != nil {
			ix.changes.Restore(true, named)
		}
		if ix.firstFull != nil && ctx.Err() == nil {
			ix.firstOnce.Do(func() { close(ix.firstFull) })
		}
	}()
	persistAll, err := ix.reopenIfGone(ctx, &stats)
	if err != nil {
		return stats, err
	}
	candidates := ix.ignoreCandidates(named) // stat before the scan; see noteIgnored
	l := ix.prescan
	ix.prescan = nil
	if l != nil {
		select {
		case <-l.done:
		case <-ctx.Done():
			ix.prescan = l // still the start's: the next sync may use it
			return stats, fmt.Errorf("index: scan: %w", ctx.Err())
		}
	}
	if l == nil || l.err != nil || l.gen != ix.changes.Gen() || !l.watched && l.started.Before(asked) {
		l = ix.list(ctx) // none, or something changed since it was taken, or it is older than the ask
	}
	refs, err := l.refs, l.err
	if err != nil {
		return stats, fmt.Errorf("index: scan: %w", err)
	}
	ix.lastScanNS.Store(l.at.UnixNano())
	ix.counters.fullScans.Add(1)
	stats.Scanned = len(refs)

	// compare the scan with what is indexed (read lock only)
	plan := syncPlan{persistAll: persistAll}
	// what the scan reported: indexed entries by slot (a map of every
	// path cost a restart at 100k notes 10 MB and 30 ms), the few failed
	// or candidate paths by name
	var seen, wanted map[string]bool
	if len(ix.failed) > 0 || len(candidates) > 0 {
		seen, wanted = map[string]bool{}, make(map[string]bool, len(ix.failed)+len(candidates))
		for p := range ix.failed {
			wanted[p] = true
		}
		for _, p := range candidates {
			wanted[p] = true
		}
	}
	ix.mu.RLock()
	seenSlot := make([]bool, ix.c.Slots())
	for _, r := range refs {
		if wanted[r.Path] {
			seen[r.Path] = true
		}
		force := hasKey(named, r.Path)
		s, e := ix.c.Find(r.Path)
		if e != nil {
			seenSlot[s] = true
		}
		if e != nil && sameRef(refOf(e), r) && !force {
			if !ix.off && !ix.current(e) {
				plan.stale = append(plan.stale, e.Doc.Path)
			}
			continue
		}
		if f, ok := ix.failed[r.Path]; ok && sameRef(f, r) && !force {
			continue
		}
		plan.changed = append(plan.changed, r)
	}
	for s, e := range ix.c.Slotted() {
		if !seenSlot[s] {
			plan.removed = append(plan.removed, e.Doc.Path)
		}
	}
	ix.mu.RUnlock()
	for p := range ix.failed {
		if !seen[p] {
			delete(ix.failed, p)
		}
	}
	ix.noteIgnored(candidates, seen)

	err = ix.applyLocked(ctx, plan, &stats)
	stats.Duration = time.Since(start)
	ix.logSync(stats, "full")
	return stats, err
}

// listing is the Source's files at a moment, with the watcher's change
// count then.
type listing struct {
	refs    []FileRef
	err     error
	at      time.Time // by ix.now, for lastScanNS
	started time.Time // by the wall clock, against a sync's ask
	gen     uint64
	watched bool          // taken under a watcher: a change since shows in gen
	done    chan struct{} // closed once refs and err are set
}

// list lists the Source now (listAsync: in the background).
func (ix *Index) list(ctx context.Context) *listing {
	l := &listing{at: ix.now(), started: time.Now(), gen: ix.changes.Gen(), watched: ix.wstate.Load() == watchOn, done: make(chan struct{})}
	l.refs, l.err = ix.opts.Source.Scan(ctx)
	close(l.done)
	return l
}

func hasKey(m map[string]bool, k string) bool {
	_, ok := m[k]
	return ok
}

// syncPlan is what a sync decided to do, before loading anything.
type syncPlan struct {
	changed    []FileRef // files to load
	removed    []string  // indexed paths that left the Source
	stale      []string  // unchanged entries lacking a vector from the live embedder: queue them
	persistAll bool      // a rebuilt database: write every entry
	deferLight bool      // postpone score/mtime-only row updates (path syncs)
}

// applyLocked loads the changed files, persists the result, publishes it
// to searches and queues what needs a vector for the background embedder:
// it never waits for an embedding. Callers hold syncMu; it takes mu to
// read, then pubMu from persisting to the end, with mu inside it to publish.
func (ix *Index) applyLocked(ctx context.Context, plan syncPlan, stats *SyncStats) error {
	leaving, olds := ix.snapshot(plan)
	b, err := ix.loadChanged(ctx, plan, leaving, olds, stats)
	if err != nil {
		return err
	}
	// persist, then publish to searches, under pubMu so no vector the
	// embedder computes meanwhile is lost between the file and the corpus
	ix.pubMu.Lock()
	defer ix.pubMu.Unlock()
	if err := ix.persistLocked(ctx, plan, b); err != nil {
		return err
	}
	ix.publishLocked(b, stats)
	ix.enqueueBatchLocked(ctx, plan, b, stats)
	return nil
}

// syncBatch is what a sync loaded, sorted by what each change costs.
type syncBatch struct {
	upserts  []*rank.Entry // new or changed text: new entries (re-embedded unless a vector is reused)
	touched  []*rank.Entry // same content, new mtime only
	rescored []*rank.Entry // same text, new score (reinforcement, decay)
	removed  []string      // indexed paths that leave: the plan's, and those that failed to load
}

// snapshot is what this sync compares against. Only syncs (holding
// syncMu) change which docs are indexed, but the embedder swaps in
// entries with vectors, so lookups take the read lock; the pointers stay
// valid. leaving: vectors of entries leaving the index, so a moved or
// renamed file keeps its vector instead of being embedded again. Callers
// hold syncMu.
func (ix *Index) snapshot(plan syncPlan) (leaving map[cache.Digest]*rank.Entry, olds map[string]*rank.Entry) {
	leaving = map[cache.Digest]*rank.Entry{}
	olds = make(map[string]*rank.Entry, len(plan.changed))
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, p := range plan.removed {
		if e := ix.c.Get(p); e != nil && e.Vec() != nil && ix.current(e) {
			leaving[e.EmbedHash] = e
		}
	}
	for _, r := range plan.changed {
		if e := ix.c.Get(r.Path); e != nil {
			olds[r.Path] = e
		}
	}
	return leaving, olds
}

// loadChanged loads the changed files and decides what each change
// costs. Callers hold syncMu (it guards failed) and no other lock: the
// Source reads files.
func (ix *Index) loadChanged(ctx context.Context, plan syncPlan, leaving map[cache.Digest]*rank.Entry, olds map[string]*rank.Entry, stats *SyncStats) (*syncBatch, error) {
	b := &syncBatch{removed: plan.removed}
	for _, r := range plan.changed {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("index: sync: %w", err)
		}
		doc, err := ix.opts.Source.Load(ctx, r)
		old := olds[r.Path]
		if err != nil {
			ix.log.Warn("index: cannot load file; skipped until it changes", "path", r.Path, "err", err)
			ix.failed[r.Path] = r
			stats.Failed++
			if old != nil {
				b.removed = append(b.removed, r.Path)
			}
			continue
		}
		delete(ix.failed, r.Path)
		stats.Loaded++
		doc.Path = r.Path
		if doc.Kind == "" {
			doc.Kind = r.Kind
		}
		docHash := hashDoc(doc)
		if old != nil && old.DocHash == docHash { // rewritten, same content: new mtime only
			t := *old
			setRef(&t, r)
			b.touched = append(b.touched, &t)
			continue
		}
		embedHash := hashText(rank.EmbedText(doc))
		if old != nil && old.EmbedHash == embedHash && scoreOnly(old, doc) {
			// reinforcement and decay rewrite only the score: keep the
			// entry's lexical view, vector (or its place in the queue)
			// and links, swap the number
			t := *old
			t.Doc.Score, t.DocHash = doc.Score, docHash
			setRef(&t, r)
			b.rescored = append(b.rescored, &t)
			continue
		}
		ne := rank.NewEntry(doc) // counted here, outside the lock searches wait on
		ne.DocHash, ne.EmbedHash = docHash, embedHash
		setRef(ne, r)
		switch m := leaving[embedHash]; {
		case old != nil && old.EmbedHash == embedHash && ix.current(old):
			ne.ShareVec(old)
		case m != nil && old == nil:
			ne.ShareVec(m)
		case ix.off:
			ne.Embedder = ix.embID // nothing to compute: current as it is
		}
		b.upserts = append(b.upserts, ne)
	}
	return b, nil
}

// persistLocked takes the vectors the embedder published since the
// snapshot and writes the batch's rows: everything to a rebuilt file, or
// to one a failed write left short, score and mtime rows deferred on a
// path sync, flushed on a full one. A failed write is cacheFailed's: the
// batch is still published. Callers hold syncMu and pubMu; c only changes
// under pubMu, so it is read here without mu.
func (ix *Index) persistLocked(ctx context.Context, plan syncPlan, b *syncBatch) error {
	takeVec := func(e *rank.Entry) {
		if cur := ix.c.Get(e.Doc.Path); e.Vec() == nil && cur != nil && cur.EmbedHash == e.EmbedHash && ix.current(cur) {
			e.ShareVec(cur)
		}
	}
	for _, es := range [][]*rank.Entry{b.upserts, b.rescored, b.touched} {
		for _, e := range es {
			takeVec(e)
		}
	}
	for _, p := range b.removed {
		delete(ix.deferred, p)
	}
	for _, e := range b.upserts {
		delete(ix.deferred, e.Doc.Path)
		delete(ix.dropped, e.Doc.Path)
	}
	if ix.unsaved {
		plan.persistAll = true // the file lacks what a failed write left out
	}
	write, moved, removed := b.upserts, b.touched, b.removed
	// same text: score, mtime and size rows only; a fresh slice, since
	// light is refilled below while rescored is still to be published
	light := append(append([]*rank.Entry(nil), b.rescored...), b.touched...)
	switch {
	case plan.persistAll: // a new database file: write everything
		write = append(write, b.rescored...)
		inBatch := map[string]bool{}
		for _, e := range write {
			inBatch[e.Doc.Path] = true
		}
		for e := range ix.c.All() {
			if !inBatch[e.Doc.Path] {
				write = append(write, e)
			}
		}
		light, ix.deferred = nil, nil
		for p := range ix.dropped {
			removed = append(removed, p)
		}
	case plan.deferLight:
		// Searches pay for these (every recall reinforces what it
		// returned), so their rows wait for the next full sync or Close.
		// The database is a cache checked by mtime: a crash before the
		// flush only makes the next start re-read those files.
		if ix.deferred == nil {
			ix.deferred = map[string]*rank.Entry{}
		}
		for _, e := range light {
			ix.deferred[e.Doc.Path] = e
		}
		light, moved = nil, nil
	default: // a full sync also writes what path syncs postponed
		moved = nil
		if len(ix.deferred) > 0 {
			for _, e := range light {
				ix.deferred[e.Doc.Path] = e // this sync's facts are newer
			}
			light = light[:0]
			for _, e := range ix.deferred {
				light = append(light, e)
			}
		}
		ix.deferred = nil
	}
	var err error
	if len(write) > 0 || len(moved) > 0 || len(removed) > 0 {
		err = ix.writeRows(ctx, write, moved, removed)
	}
	if err == nil && len(light) > 0 {
		err = ix.writeLight(ctx, light)
	}
	if err != nil {
		return ix.cacheFailed(ctx, err, removed)
	}
	if ix.unsaved {
		ix.unsaved, ix.dropped = false, nil
		ix.log.Info("index cache written again", "path", ix.opts.Path, "entries", len(write))
	}
	return nil
}

// publishLocked swaps the batch into the corpus searches read. Callers
// hold syncMu and pubMu; it takes mu.
func (ix *Index) publishLocked(b *syncBatch, stats *SyncStats) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, p := range b.removed {
		if ix.c.Remove(p) != nil {
			stats.Removed++
		}
	}
	for _, e := range b.upserts {
		ix.c.Put(e, nil)
	}
	if len(b.upserts) >= compactAfter {
		ix.c.Compact()
	}
	// same terms, links and vector: postings stay valid, only the slot's
	// pointer changes (a copy, since searches may hold the old one)
	for _, es := range [][]*rank.Entry{b.touched, b.rescored} {
		for _, t := range es {
			ix.c.Swap(t)
		}
	}
	ix.lastSync = ix.now()
}

// enqueueBatchLocked hands the embedder what lacks a vector and counts
// the sync. Callers hold syncMu and pubMu (enqueueLocked's rule).
func (ix *Index) enqueueBatchLocked(ctx context.Context, plan syncPlan, b *syncBatch, stats *SyncStats) {
	paths := append([]string(nil), b.removed...)
	paths = append(paths, plan.stale...)
	for _, es := range [][]*rank.Entry{b.upserts, b.touched, b.rescored} {
		for _, e := range es {
			paths = append(paths, e.Doc.Path)
		}
	}
	stats.Queued = ix.enqueueLocked(paths)
	ix.counters.loaded.Add(int64(stats.Loaded))
	ix.counters.removed.Add(int64(stats.Removed))
	if !ix.synced && !ix.unsaved { // a full disk refuses it too: recorded with the rewrite
		ix.synced = true
		if err := ix.st.SetState(ctx, "embedder", ix.embID); err != nil {
			ix.log.Warn("index state not recorded", "err", err)
		}
	}
}

// logSync records a sync that did something at debug level.
func (ix *Index) logSync(stats SyncStats, how string) {
	if stats.Loaded+stats.Removed+stats.Queued+stats.Failed > 0 || stats.Rebuilt {
		ix.log.Debug("index synced", "how", how, "scanned", stats.Scanned, "loaded", stats.Loaded,
			"queued", stats.Queued, "removed", stats.Removed, "failed", stats.Failed,
			"rebuilt", stats.Rebuilt, "took", stats.Duration)
	}
}

// sameRef compares the cheap scan facts of two refs.
func sameRef(a, b FileRef) bool {
	return a.Size == b.Size && a.ModTime.Equal(b.ModTime) && a.Kind == b.Kind
}

// hashText is a text's digest (rank.Entry's DocHash and EmbedHash): the
// first 16 bytes of its SHA-256.
func hashText(s string) cache.Digest {
	h := sha256.Sum256([]byte(s))
	return cache.Digest(h[:16])
}

// hashDoc covers every field of a doc: any change rewrites the row
// (score included), but only hashText(EmbedText) decides re-embedding.
func hashDoc(d rank.Doc) cache.Digest {
	var b strings.Builder
	for _, s := range []string{d.Kind, d.Name, d.Description, d.Body, d.Type,
		strconv.FormatFloat(d.Score, 'g', -1, 64), strings.Join(d.Related, "\x1f"),
		strings.Join(d.Tags, "\x1f"), d.When.UTC().Format(time.RFC3339Nano), d.AppliesWhen, d.NotAppliesWhen, d.Context} {
		b.WriteString(s)
		b.WriteByte(0)
	}
	if len(d.Supersedes) > 0 || d.SupersededBy != "" { // absent, every earlier digest stays valid
		b.WriteString(strings.Join(d.Supersedes, "\x1f") + "\x00" + d.SupersededBy)
	}
	return hashText(b.String())
}
