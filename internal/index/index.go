package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/somni-dev/somni/internal/embed"
)

// embedBackoff is how long a failed embedding call (e.g. an http server
// that is down) is not retried; entries stay keyword-searchable meanwhile.
const embedBackoff = 30 * time.Second

// Index is the recall index: an in-memory corpus serving searches, backed
// by a SQLite cache that makes restarts cheap (no re-embedding). Search and
// Sync are safe to call concurrently; one Sync runs at a time.
type Index struct {
	opts   Options
	log    *slog.Logger
	now    func() time.Time
	scorer *Scorer
	embID  string

	mu       sync.RWMutex // guards c, lastSync
	c        *corpus
	lastSync time.Time

	syncMu     sync.Mutex // serialises syncs; guards st, failed, ignored, backoff
	st         *store
	failed     map[string]FileRef
	ignored    map[string]struct{} // existing files a full scan did not report (see noteIgnored)
	deferred   map[string]*entry   // score/mtime-only rows not yet written (see applyLocked)
	backoff    time.Time
	synced     bool
	lastScanNS atomic.Int64
	syncing    atomic.Bool
	closed     atomic.Bool
	changes    changeSet // what the watcher saw change since it was last synced
	w          *watcher  // nil without WatchDirs or when watching failed
	counters   syncCounters

	// background safety-net scans (watched indexes only)
	bgMu      sync.Mutex // orders bg.Add against Close
	bg        sync.WaitGroup
	bgRunning atomic.Bool
	bgCtx     context.Context
	bgCancel  context.CancelFunc
}

// Open loads the cached index at opts.Path (creating it, or replacing a
// broken one). It does not scan the Source: call Sync, typically in the
// background, so the caller can answer at once.
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
	ix := &Index{opts: opts, log: opts.Logger, now: opts.Now, c: newCorpus(),
		scorer: NewScorer(opts.Embedder, opts.Calibration), embID: opts.Embedder.ID(),
		failed: map[string]FileRef{}}
	ix.scorer.log, ix.scorer.now = opts.Logger, opts.Now
	st, entries, _, err := openStore(ctx, opts.Path, ix.log)
	if err != nil {
		return nil, err
	}
	ix.st = st
	for _, e := range entries {
		if e.embedder != ix.embID {
			e.vec = nil // another embedder's space: useless until re-embedded
		}
		ix.c.put(e)
	}
	ix.bgCtx, ix.bgCancel = context.WithCancel(context.Background())
	ix.changes.markFull() // nothing scanned yet: the first search scans everything
	if len(opts.WatchDirs) > 0 {
		w, err := startWatcher(opts.WatchDirs, ix.log, &ix.changes)
		if err != nil {
			ix.log.Warn("index: not watching memory for hand edits; searches rescan by mtime instead",
				"err", err, "scan_interval", opts.ScanInterval)
		} else {
			ix.w = w
		}
	}
	return ix, nil
}

// Watching reports whether a file watcher keeps the index fresh.
func (ix *Index) Watching() bool { return ix.w != nil }

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
		ix.w.close()
	}
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	ix.flushDeferred()
	if err := ix.st.close(); err != nil {
		return fmt.Errorf("index: close: %w", err)
	}
	return nil
}

// Scorer is the hybrid scorer this index ranks with, for ad-hoc doc sets.
func (ix *Index) Scorer() *Scorer { return ix.scorer }

// EmbedQuery embeds a query with the index's embedder (nil when off or
// backing off after a failure), so callers can cache it and pass it back
// as Query.Vector.
func (ix *Index) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return ix.scorer.embedQuery(ctx, text, ix.termWeight)
}

// termWeight is corpus.termWeight under the read lock: the embedder calls
// it while building a query vector, outside any lock of the index.
func (ix *Index) termWeight(word string) float64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.c.termWeight(word)
}

// Embedder is the live embedder, for callers that ask it about its
// capabilities (assoc asks whether it is too noisy for hints).
func (ix *Index) Embedder() embed.Embedder { return ix.opts.Embedder }

// Status reports the live embedder and whether the semantic layer is
// ready: a sync has completed and every entry carries a current vector.
func (ix *Index) Status() Status {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st := Status{Embedder: ix.embID, Entries: ix.c.live, LastSync: ix.lastSync, Syncing: ix.syncing.Load()}
	if embed.IsOff(ix.opts.Embedder) || ix.lastSync.IsZero() {
		return st
	}
	for _, e := range ix.c.slots {
		if e != nil && (e.vec == nil || e.embedder != ix.embID) {
			return st
		}
	}
	st.SemanticReady = true
	return st
}

// Links lists stored related: links, or only the unresolved ones.
func (ix *Index) Links(ctx context.Context, orphansOnly bool) ([]Link, error) {
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	return ix.st.links(ctx, orphansOnly)
}

// Search ranks the index for q. It first brings the index up to date the
// cheap way (see refresh): with a watcher only the paths it saw change are
// reloaded, without one the mtime scan runs when the last one is older
// than ScanInterval. If a sync is already running it searches what is
// indexed so far instead of waiting.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
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
	defer ix.mu.RUnlock()
	return ix.scorer.rank(ix.c, q, qvec, spread), nil
}

// Sync brings the index up to date with the Source: a cheap mtime/size
// scan, then loading only changed files, re-embedding only entries whose
// embedded text (or the embedder) changed, and dropping deleted files. A
// deleted or replaced database file is recreated from memory.
func (ix *Index) Sync(ctx context.Context) (SyncStats, error) {
	if ix.closed.Load() {
		return SyncStats{}, errors.New("index: sync on closed index")
	}
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	_, named := ix.changes.take()
	return ix.syncLocked(ctx, named)
}

// reopenIfGone recreates a deleted or replaced database file; true means
// every entry must be written to the new one.
func (ix *Index) reopenIfGone(ctx context.Context, stats *SyncStats) (bool, error) {
	if !ix.st.gone() {
		return false, nil
	}
	ix.log.Info("index file deleted or replaced; rebuilding", "path", ix.opts.Path)
	ix.st.close()
	st, _, _, err := openStore(ctx, ix.opts.Path, ix.log)
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
func (ix *Index) syncLocked(ctx context.Context, named map[string]bool) (stats SyncStats, err error) {
	start := time.Now()
	ix.syncing.Store(true)
	defer ix.syncing.Store(false)
	defer func() {
		if err != nil {
			ix.changes.restore(true, named)
		}
	}()
	persistAll, err := ix.reopenIfGone(ctx, &stats)
	if err != nil {
		return stats, err
	}
	candidates := ix.ignoreCandidates(named) // stat before the scan; see noteIgnored
	refs, err := ix.opts.Source.Scan(ctx)
	if err != nil {
		return stats, fmt.Errorf("index: scan: %w", err)
	}
	ix.lastScanNS.Store(ix.now().UnixNano())
	ix.counters.fullScans.Add(1)
	stats.Scanned = len(refs)

	// compare the scan with what is indexed (read lock only)
	plan := syncPlan{persistAll: persistAll, retryEmbed: ix.now().After(ix.backoff)}
	seen := make(map[string]bool, len(refs))
	ix.mu.RLock()
	for _, r := range refs {
		seen[r.Path] = true
		force := hasKey(named, r.Path)
		e := ix.c.get(r.Path)
		if e != nil && sameRef(e.ref, r) && !force {
			if e.embedder != ix.embID && plan.retryEmbed {
				plan.stale = append(plan.stale, e)
			}
			continue
		}
		if f, ok := ix.failed[r.Path]; ok && sameRef(f, r) && !force {
			continue
		}
		plan.changed = append(plan.changed, r)
	}
	for p := range ix.c.bySlot {
		if !seen[p] {
			plan.removed = append(plan.removed, p)
		}
	}
	if persistAll {
		for _, e := range ix.c.slots {
			if e != nil {
				plan.all = append(plan.all, e)
			}
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

func hasKey(m map[string]bool, k string) bool {
	_, ok := m[k]
	return ok
}

// syncPlan is what a sync decided to do, before loading anything.
type syncPlan struct {
	changed    []FileRef // files to load
	removed    []string  // indexed paths that left the Source
	stale      []*entry  // unchanged entries lacking a vector from the live embedder
	all        []*entry  // persistAll: every entry, to refill a rebuilt database
	persistAll bool
	retryEmbed bool // the embedder is not backing off after a failure
	deferLight bool // postpone score/mtime-only row updates (path syncs)
}

// applyLocked loads the changed files, embeds what needs it, persists the
// result and publishes it to searches. Callers hold syncMu.
func (ix *Index) applyLocked(ctx context.Context, plan syncPlan, stats *SyncStats) error {
	removed := plan.removed
	// vectors of entries leaving the index, so a moved or renamed file
	// keeps its vector instead of being embedded again
	leaving := map[string]*entry{}
	for _, p := range removed {
		if e := ix.c.get(p); e != nil && e.vec != nil && e.embedder == ix.embID {
			leaving[e.embedHash] = e
		}
	}
	// 1. load changed files; decide what each change costs
	var upserts, touched, rescored, toEmbed []*entry
	for _, r := range plan.changed {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("index: sync: %w", err)
		}
		doc, err := ix.opts.Source.Load(ctx, r)
		if err != nil {
			ix.log.Warn("index: cannot load file; skipped until it changes", "path", r.Path, "err", err)
			ix.failed[r.Path] = r
			stats.Failed++
			if ix.c.get(r.Path) != nil { // safe: only syncs mutate c, and we hold syncMu
				removed = append(removed, r.Path)
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
		old := ix.c.get(r.Path)
		if old != nil && old.docHash == docHash { // rewritten, same content: new mtime only
			t := *old
			t.ref = r
			touched = append(touched, &t)
			continue
		}
		embedHash := hashText(EmbedText(doc))
		reuseVec := old != nil && old.embedHash == embedHash && old.embedder == ix.embID
		if reuseVec && scoreOnly(old, doc) {
			// reinforcement and decay rewrite only the score: keep the
			// entry's lexical view, vector and links, swap the number
			t := *old
			t.doc.Score, t.ref, t.docHash = doc.Score, r, docHash
			rescored = append(rescored, &t)
			continue
		}
		ne := newEntry(doc)
		ne.ref, ne.docHash, ne.embedHash = r, docHash, embedHash
		if reuseVec {
			ne.vec, ne.embedder = old.vec, old.embedder
			upserts = append(upserts, ne)
			continue
		}
		if m := leaving[embedHash]; m != nil && old == nil {
			ne.vec, ne.embedder = m.vec, m.embedder
			upserts = append(upserts, ne)
			continue
		}
		toEmbed = append(toEmbed, ne)
	}
	for _, e := range plan.stale {
		ne := *e
		toEmbed = append(toEmbed, &ne)
	}

	// 2. embed in batches; a failure keeps entries keyword-only and backs off
	if len(toEmbed) > 0 {
		if plan.retryEmbed {
			n, err := ix.embed(ctx, toEmbed)
			stats.Embedded = n
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("index: sync: %w", ctx.Err())
				}
				ix.backoff = ix.now().Add(embedBackoff)
				ix.scorer.markDown()
				ix.log.Warn("embedding failed; entries stay keyword-only, retrying later",
					"embedder", ix.embID, "err", err, "retry_in", embedBackoff)
			}
		}
		upserts = append(upserts, toEmbed...)
	}

	// 3. persist, then publish to searches
	for _, p := range removed {
		delete(ix.deferred, p)
	}
	for _, e := range upserts {
		delete(ix.deferred, e.doc.Path)
	}
	write, moved := upserts, touched
	light := append(rescored, touched...) // same text: score, mtime and size rows only
	switch {
	case plan.persistAll: // a new database file: write everything
		write = append(write, rescored...)
		inBatch := map[string]bool{}
		for _, e := range write {
			inBatch[e.doc.Path] = true
		}
		for _, e := range plan.all {
			if !inBatch[e.doc.Path] {
				write = append(write, e)
			}
		}
		light, ix.deferred = nil, nil
	case plan.deferLight:
		// Searches pay for these (every recall reinforces what it
		// returned), so their rows wait for the next full sync or Close.
		// The database is a cache checked by mtime: a crash before the
		// flush only makes the next start re-read those files.
		if ix.deferred == nil {
			ix.deferred = map[string]*entry{}
		}
		for _, e := range light {
			ix.deferred[e.doc.Path] = e
		}
		light, moved = nil, nil
	default: // a full sync also writes what path syncs postponed
		moved = nil
		if len(ix.deferred) > 0 {
			for _, e := range light {
				ix.deferred[e.doc.Path] = e // this sync's facts are newer
			}
			light = light[:0]
			for _, e := range ix.deferred {
				light = append(light, e)
			}
		}
		ix.deferred = nil
	}
	if len(write) > 0 || len(moved) > 0 || len(removed) > 0 {
		if err := ix.st.write(ctx, write, moved, removed); err != nil {
			return err
		}
	}
	if len(light) > 0 {
		if err := ix.writeLight(ctx, light); err != nil {
			return err
		}
	}
	ix.mu.Lock()
	for _, p := range removed {
		if ix.c.remove(p) != nil {
			stats.Removed++
		}
	}
	for _, e := range upserts {
		ix.c.put(e)
	}
	for _, t := range touched {
		if e := ix.c.get(t.doc.Path); e != nil {
			e.ref = t.ref
		}
	}
	for _, t := range rescored {
		if s, ok := ix.c.bySlot[t.doc.Path]; ok {
			ix.c.slots[s] = t // same terms, links and vector: postings stay valid
		}
	}
	ix.lastSync = ix.now()
	ix.mu.Unlock()
	ix.counters.loaded.Add(int64(stats.Loaded))
	ix.counters.embedded.Add(int64(stats.Embedded))
	ix.counters.removed.Add(int64(stats.Removed))
	if !ix.synced {
		ix.synced = true
		if err := ix.st.setState(ctx, "embedder", ix.embID); err != nil {
			ix.log.Warn("index state not recorded", "err", err)
		}
	}
	return nil
}

// logSync records a sync that did something at debug level.
func (ix *Index) logSync(stats SyncStats, how string) {
	if stats.Loaded+stats.Removed+stats.Embedded+stats.Failed > 0 || stats.Rebuilt {
		ix.log.Debug("index synced", "how", how, "scanned", stats.Scanned, "loaded", stats.Loaded,
			"embedded", stats.Embedded, "removed", stats.Removed, "failed", stats.Failed,
			"rebuilt", stats.Rebuilt, "took", stats.Duration)
	}
}

// embedBatch is how many texts one Embed call gets during sync.
const embedBatch = 256

// embed computes vectors for es in batches, stopping at the first error.
func (ix *Index) embed(ctx context.Context, es []*entry) (int, error) {
	done := 0
	for startIdx := 0; startIdx < len(es); startIdx += embedBatch {
		batch := es[startIdx:min(startIdx+embedBatch, len(es))]
		texts := make([]string, len(batch))
		for i, e := range batch {
			texts[i] = EmbedText(e.doc)
		}
		vecs, err := ix.opts.Embedder.Embed(ctx, texts)
		if err == nil {
			err = checkVectors(vecs, len(batch))
		}
		if err != nil {
			return done, fmt.Errorf("embedder %s: %w", ix.embID, err)
		}
		for i, e := range batch {
			e.vec, e.embedder = vecs[i], ix.embID
		}
		done += len(batch)
	}
	return done, nil
}

// sameRef compares the cheap scan facts of two refs.
func sameRef(a, b FileRef) bool {
	return a.Size == b.Size && a.ModTime.Equal(b.ModTime) && a.Kind == b.Kind
}

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}

// hashDoc covers every field of a doc: any change rewrites the row
// (score included), but only hashText(EmbedText) decides re-embedding.
func hashDoc(d Doc) string {
	var b strings.Builder
	for _, s := range []string{d.Kind, d.Name, d.Description, d.Body, d.Type,
		strconv.FormatFloat(d.Score, 'g', -1, 64), strings.Join(d.Related, "\x1f"),
		strings.Join(d.Tags, "\x1f"), d.When.UTC().Format(time.RFC3339Nano), d.AppliesWhen, d.NotAppliesWhen, d.Context} {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return hashText(b.String())
}
