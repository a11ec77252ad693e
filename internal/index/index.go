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

	syncMu     sync.Mutex // serialises Sync; guards st, failed, backoff
	st         *store
	failed     map[string]FileRef
	backoff    time.Time
	synced     bool
	lastScanNS atomic.Int64
	syncing    atomic.Bool
	closed     atomic.Bool
	dirty      atomic.Bool // the watcher saw a change since the last scan
	w          *watcher    // nil without WatchDirs or when watching failed
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
		opts.Embedder = Off()
	}
	if opts.LinkSpread == 0 {
		opts.LinkSpread = 1
	}
	ix := &Index{opts: opts, log: opts.Logger, now: opts.Now, c: newCorpus(),
		scorer: NewScorer(opts.Embedder, opts.Calibration), embID: opts.Embedder.ID(),
		failed: map[string]FileRef{}}
	st, rebuilt, err := openStore(ctx, opts.Path)
	if err != nil {
		return nil, err
	}
	if rebuilt {
		ix.log.Warn("index file was unusable; rebuilt it empty", "path", opts.Path)
	}
	ix.st = st
	entries, err := st.loadAll(ctx)
	if err != nil {
		st.close()
		return nil, err
	}
	for _, e := range entries {
		if e.embedder != ix.embID {
			e.vec = nil // another embedder's space: useless until re-embedded
		}
		ix.c.put(e)
	}
	ix.dirty.Store(true)
	if len(opts.WatchDirs) > 0 {
		w, err := startWatcher(opts.WatchDirs, ix.log, func() { ix.dirty.Store(true) })
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

// stale says whether a Search should run the mtime scan first.
func (ix *Index) stale() bool {
	iv := ix.opts.ScanInterval
	if iv < 0 {
		return false
	}
	age := ix.now().UnixNano() - ix.lastScanNS.Load()
	if ix.w != nil {
		return ix.dirty.Load() || age >= int64(WatchSafetyInterval)
	}
	return age >= int64(iv)
}

// Close closes the database. The embedder belongs to the caller.
func (ix *Index) Close() error {
	if ix.closed.Swap(true) {
		return nil
	}
	if ix.w != nil {
		ix.w.close()
	}
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	if err := ix.st.close(); err != nil {
		return fmt.Errorf("index: close: %w", err)
	}
	return nil
}

// Scorer is the hybrid scorer this index ranks with, for ad-hoc doc sets.
func (ix *Index) Scorer() *Scorer { return ix.scorer }

// EmbedQuery embeds a query with the index's embedder (nil when off), so
// callers can cache it and pass it back as Query.Vector.
func (ix *Index) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return ix.scorer.EmbedQuery(ctx, text)
}

// EmbedderID is the live embedder's ID, without Status's pass over entries.
func (ix *Index) EmbedderID() string { return ix.embID }

// Status reports the live embedder and whether the semantic layer is
// ready: a sync has completed and every entry carries a current vector.
func (ix *Index) Status() Status {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st := Status{Embedder: ix.embID, Entries: ix.c.live, LastSync: ix.lastSync, Syncing: ix.syncing.Load()}
	if IsOff(ix.opts.Embedder) || ix.lastSync.IsZero() {
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

// Search ranks the index for q. When the watcher saw a change (or, without
// a watcher, when the last scan is older than ScanInterval) it first runs
// Sync, so hand edits are found without a restart; if a Sync is already
// running it searches what is indexed so far instead of waiting.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if ix.closed.Load() {
		return nil, errors.New("index: search on closed index")
	}
	if ix.stale() {
		if ix.syncMu.TryLock() {
			_, err := ix.syncLocked(ctx)
			ix.syncMu.Unlock()
			if err != nil {
				ix.log.Warn("sync before search failed; searching cached index", "err", err)
			}
		}
	}
	qvec := q.Vector
	if qvec == nil {
		v, err := ix.scorer.EmbedQuery(ctx, q.Text)
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
	return ix.syncLocked(ctx)
}

func (ix *Index) syncLocked(ctx context.Context) (SyncStats, error) {
	start := time.Now()
	ix.syncing.Store(true)
	defer ix.syncing.Store(false)
	var stats SyncStats
	persistAll := false
	if ix.st.gone() {
		ix.log.Info("index file deleted or replaced; rebuilding", "path", ix.opts.Path)
		ix.st.close()
		st, _, err := openStore(ctx, ix.opts.Path)
		if err != nil {
			return stats, err
		}
		ix.st, persistAll, stats.Rebuilt = st, true, true
	}
	// cleared before scanning: an event during the scan re-marks it
	ix.dirty.Store(false)
	refs, err := ix.opts.Source.Scan(ctx)
	if err != nil {
		ix.dirty.Store(true)
		return stats, fmt.Errorf("index: scan: %w", err)
	}
	ix.lastScanNS.Store(ix.now().UnixNano())
	stats.Scanned = len(refs)

	// 1. compare the scan with what is indexed (read lock only)
	seen := make(map[string]bool, len(refs))
	var changed []FileRef
	var removed []string
	var stale []*entry // unchanged files whose vectors are not from the live embedder
	retryEmbed := ix.now().After(ix.backoff)
	ix.mu.RLock()
	for _, r := range refs {
		seen[r.Path] = true
		e := ix.c.get(r.Path)
		if e != nil && sameRef(e.ref, r) {
			if e.embedder != ix.embID && retryEmbed {
				stale = append(stale, e)
			}
			continue
		}
		if f, ok := ix.failed[r.Path]; ok && sameRef(f, r) {
			continue
		}
		changed = append(changed, r)
	}
	for p := range ix.c.bySlot {
		if !seen[p] {
			removed = append(removed, p)
		}
	}
	var all []*entry
	if persistAll {
		for _, e := range ix.c.slots {
			if e != nil {
				all = append(all, e)
			}
		}
	}
	ix.mu.RUnlock()
	for p := range ix.failed {
		if !seen[p] {
			delete(ix.failed, p)
		}
	}

	// 2. load changed files; decide what needs an embedding
	var upserts, touched, toEmbed []*entry
	for _, r := range changed {
		if err := ctx.Err(); err != nil {
			return stats, fmt.Errorf("index: sync: %w", err)
		}
		doc, err := ix.opts.Source.Load(ctx, r)
		if err != nil {
			ix.log.Warn("index: cannot load file; skipped until it changes", "path", r.Path, "err", err)
			ix.failed[r.Path] = r
			stats.Failed++
			if ix.c.get(r.Path) != nil { // safe: only Sync mutates c, and we hold syncMu
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
		ne := newEntry(doc)
		ne.ref = r
		ne.docHash = hashDoc(doc)
		ne.embedHash = hashText(EmbedText(doc))
		old := ix.c.get(r.Path)
		switch {
		case old != nil && old.docHash == ne.docHash:
			t := *old
			t.ref = r
			touched = append(touched, &t)
		case old != nil && old.embedHash == ne.embedHash && old.embedder == ix.embID:
			ne.vec, ne.embedder = old.vec, old.embedder
			upserts = append(upserts, ne)
		default:
			toEmbed = append(toEmbed, ne)
		}
	}
	for _, e := range stale {
		ne := *e
		toEmbed = append(toEmbed, &ne)
	}

	// 3. embed in batches; a failure keeps entries keyword-only and backs off
	if len(toEmbed) > 0 {
		if retryEmbed {
			n, err := ix.embed(ctx, toEmbed)
			stats.Embedded = n
			if err != nil {
				if ctx.Err() != nil {
					return stats, fmt.Errorf("index: sync: %w", ctx.Err())
				}
				ix.backoff = ix.now().Add(embedBackoff)
				ix.log.Warn("embedding failed; entries stay keyword-only, retrying later",
					"embedder", ix.embID, "err", err, "retry_in", embedBackoff)
			}
		}
		upserts = append(upserts, toEmbed...)
	}

	// 4. persist, then publish to searches
	write := upserts
	if persistAll {
		inBatch := map[string]bool{}
		for _, e := range upserts {
			inBatch[e.doc.Path] = true
		}
		for _, e := range all {
			if !inBatch[e.doc.Path] {
				write = append(write, e)
			}
		}
	}
	if len(write) > 0 || len(touched) > 0 || len(removed) > 0 {
		if err := ix.st.write(ctx, write, touched, removed); err != nil {
			return stats, err
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
	ix.lastSync = ix.now()
	ix.mu.Unlock()
	if !ix.synced {
		ix.synced = true
		if err := ix.st.setState(ctx, "embedder", ix.embID); err != nil {
			ix.log.Warn("index state not recorded", "err", err)
		}
	}
	stats.Duration = time.Since(start)
	if stats.Loaded+stats.Removed+stats.Embedded > 0 || stats.Rebuilt {
		ix.log.Debug("index synced", "scanned", stats.Scanned, "loaded", stats.Loaded,
			"embedded", stats.Embedded, "removed", stats.Removed, "failed", stats.Failed,
			"rebuilt", stats.Rebuilt, "took", stats.Duration)
	}
	return stats, nil
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
		if err != nil {
			return done, err
		}
		if len(vecs) != len(batch) {
			return done, fmt.Errorf("embedder %s returned %d vectors for %d texts", ix.embID, len(vecs), len(batch))
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
