package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/index/watch"
)

// SubtreeScanner is an optional Source extension: a Source that can list
// part of its tree lets the index follow a new or moved directory, or a
// new file, by rescanning only that path. Without it the index handles
// changes to files it already knows by stat alone, and falls back to a
// full Scan for paths it has never seen.
type SubtreeScanner interface {
	// ScanUnder lists the files Scan would report whose Path is p or lies
	// below directory p, spelled as Scan spells them. A p that does not
	// exist, or that Scan would skip, yields none and no error.
	ScanUnder(ctx context.Context, p string) ([]FileRef, error)
}

// SyncCounters are running totals of sync work since Open, for stats
// and for tests that must tell a full scan from a targeted reload.
type SyncCounters struct {
	FullScans int64 // syncs that scanned the whole Source
	PathSyncs int64 // syncs limited to paths a watcher or SyncPaths named
	Loaded    int64 // files read and parsed
	Embedded  int64 // entries that got a vector from the background embedder
	Removed   int64 // entries that left the index
}

type syncCounters struct {
	fullScans, pathSyncs, loaded, embedded, removed atomic.Int64
}

// Counters returns the sync totals since Open.
func (ix *Index) Counters() SyncCounters {
	c := &ix.counters
	return SyncCounters{FullScans: c.fullScans.Load(), PathSyncs: c.pathSyncs.Load(),
		Loaded: c.loaded.Load(), Embedded: c.embedded.Load(), Removed: c.removed.Load()}
}

// refresh brings the index up to date before a search, as cheaply as the
// situation allows, and never waits for a sync another caller is running.
//
//   - ScanInterval < 0: nothing (the caller syncs).
//   - No watcher: the full mtime scan, when the last one is older than
//     ScanInterval.
//   - Watcher: only the paths it saw change (a reinforcement rewrite of
//     the returned entries costs a stat, a read and a hash each); a full
//     scan after an event overflow; and, as a safety net against lost
//     events, a full scan in the background once the last one is older
//     than WatchSafetyInterval, which this search does not wait for.
func (ix *Index) refresh(ctx context.Context) {
	iv := ix.opts.ScanInterval
	if iv < 0 {
		return
	}
	if ix.firstFull != nil {
		select {
		case <-ix.firstFull:
		default:
			return // QuickStart: the caller's first sync reconciles; search the cache meanwhile
		}
	}
	last := ix.lastScanNS.Load()
	age := time.Duration(ix.now().UnixNano() - last)
	switch ix.wstate.Load() {
	case watchPending:
		return // watchLater's full sync follows the watches
	case watchOff:
		if age >= iv && ix.syncMu.TryLock() {
			_, named := ix.changes.Take()
			_, err := ix.syncLocked(ctx, named, time.Time{})
			ix.syncMu.Unlock()
			if err != nil {
				ix.log.Warn("sync before search failed; searching cached index", "err", err)
			}
		}
		return
	}
	if ix.changes.Pending() && ix.syncMu.TryLock() {
		var err error
		if full, paths := ix.changes.Take(); full {
			_, err = ix.syncLocked(ctx, nil, time.Time{})
		} else if len(paths) > 0 {
			_, err = ix.syncPathsLocked(ctx, paths)
		}
		ix.syncMu.Unlock()
		if err != nil {
			ix.log.Warn("sync before search failed; searching cached index", "err", err)
		}
	}
	if last != 0 && age >= WatchSafetyInterval {
		ix.safetyScan()
	}
}

// safetyScan runs one full sync in the background (at most one at a time);
// Close waits for it.
func (ix *Index) safetyScan() {
	if !ix.bgRunning.CompareAndSwap(false, true) {
		return
	}
	if !ix.goBg(func(ctx context.Context) {
		defer ix.bgRunning.Store(false)
		ix.syncMu.Lock()
		defer ix.syncMu.Unlock()
		if ix.closed.Load() || time.Duration(ix.now().UnixNano()-ix.lastScanNS.Load()) < WatchSafetyInterval {
			return // closing, or another full scan ran while we waited
		}
		_, named := ix.changes.Take()
		if _, err := ix.syncLocked(ctx, named, time.Time{}); err != nil && ctx.Err() == nil {
			ix.log.Warn("index safety-net scan failed", "err", err)
		}
	}) {
		ix.bgRunning.Store(false) // closed
	}
}

// SyncPaths brings the given paths up to date without scanning the whole
// Source: each path is a file, or a directory standing for everything
// below it. It loads and hashes what is there (re-embedding only when the
// embedded text changed) and drops indexed entries that are gone. A caller
// that just wrote a memory file syncs it this way. Paths must be spelled
// as the Source spells them. A path the index has never seen needs the
// Source to say whether and how it is indexed: without a SubtreeScanner
// that costs one full scan.
func (ix *Index) SyncPaths(ctx context.Context, paths ...string) (SyncStats, error) {
	if ix.closed.Load() {
		return SyncStats{}, errors.New("index: sync on closed index")
	}
	if len(paths) == 0 {
		return SyncStats{}, nil
	}
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		p = filepath.Clean(p)
		fi, err := ix.lstat(p)
		set[p] = err == nil && fi.IsDir()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return SyncStats{}, fmt.Errorf("index: sync %s: %w", p, err)
		}
		if err != nil {
			set[p] = true // gone: whatever was indexed at or below it goes too
		}
	}
	ix.syncMu.Lock()
	defer ix.syncMu.Unlock()
	defer ix.apartLater() // a write's caller does not wait for it
	return ix.syncPathsLocked(ctx, set)
}

// lstat stats a path a change named through the data-dir boundary, never
// following a link out of it; a path outside every root is refused
// (safefs.ErrOutside). A Source without Roots has no files on disk (an
// in-memory one): nothing is there.
func (ix *Index) lstat(p string) (fs.FileInfo, error) {
	if ix.fs == nil {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
	}
	return ix.fs.Lstat(p)
}

// maxIgnored bounds the set of files a full scan did not report.
const maxIgnored = 4096

// syncPathsLocked syncs only paths (path → it is a directory), taken from
// the watcher's change set or given to SyncPaths; on failure they are put
// back so the next search retries. Callers hold syncMu.
func (ix *Index) syncPathsLocked(ctx context.Context, paths map[string]bool) (stats SyncStats, err error) {
	if ix.st.Gone() {
		return ix.syncLocked(ctx, paths, time.Now()) // a rebuilt database needs every entry
	}
	start := time.Now()
	ix.syncing.Store(true)
	defer ix.syncing.Store(false)
	defer func() {
		if err != nil {
			ix.changes.Restore(false, paths)
		}
	}()
	covered := ix.covered(paths)
	var found map[string]FileRef
	if scanner, ok := ix.opts.Source.(SubtreeScanner); ok {
		if found, err = scanPaths(ctx, scanner, paths); err != nil {
			return stats, err
		}
	} else {
		var needFull bool
		if found, needFull = ix.statPaths(paths, covered); needFull {
			ix.syncing.Store(false)
			return ix.syncLocked(ctx, paths, time.Now())
		}
	}
	ix.counters.pathSyncs.Add(1)
	stats.Scanned = len(found)
	err = ix.applyLocked(ctx, ix.pathPlan(covered, found), &stats)
	stats.Duration = time.Since(start)
	ix.logSync(stats, "paths")
	return stats, err
}

// covered is the indexed (or failed) paths the change names: path → last
// known ref. Callers hold syncMu (it guards failed); it takes mu to read.
func (ix *Index) covered(paths map[string]bool) map[string]FileRef {
	covered := map[string]FileRef{}
	var dirs []string
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for p, dir := range paths {
		if e := ix.c.Get(p); e != nil {
			covered[p] = refOf(e)
		} else if f, ok := ix.failed[p]; ok {
			covered[p] = f
		}
		if dir {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) > 0 {
		for e := range ix.c.All() {
			if p := e.Doc.Path; watch.UnderAny(p, dirs) {
				covered[p] = refOf(e)
			}
		}
		for p, f := range ix.failed {
			if watch.UnderAny(p, dirs) {
				covered[p] = f
			}
		}
	}
	return covered
}

// scanPaths asks the Source what is at or below each path now.
func scanPaths(ctx context.Context, scanner SubtreeScanner, paths map[string]bool) (map[string]FileRef, error) {
	found := map[string]FileRef{}
	for p := range paths {
		refs, err := scanner.ScanUnder(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("index: scan %s: %w", p, err)
		}
		for _, r := range refs {
			found[r.Path] = r
		}
	}
	return found, nil
}

// statPaths is scanPaths for a Source that cannot list a subtree: a stat
// says whether known files are still there; needFull means only a full
// scan can tell. Callers hold syncMu (it guards ignored).
func (ix *Index) statPaths(paths map[string]bool, covered map[string]FileRef) (found map[string]FileRef, needFull bool) {
	found = map[string]FileRef{}
	// known files: a stat says whether they are still there
	for p, r := range covered {
		fi, err := ix.lstat(p)
		switch {
		case err == nil && fi.Mode().IsRegular():
			found[p] = FileRef{Path: p, Kind: r.Kind, ModTime: fi.ModTime(), Size: fi.Size()}
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			needFull = true // replaced by a directory, or unreadable: let the Source decide
		}
	}
	// anything else that exists is new to the index: only the Source
	// knows whether and how to index it, unless a full scan already
	// showed it skips that file
	for p, dir := range paths {
		if _, ok := covered[p]; ok {
			continue
		}
		_, err := ix.lstat(p)
		if err != nil {
			delete(ix.ignored, p)
			continue
		}
		if _, skip := ix.ignored[p]; skip && !dir {
			continue
		}
		needFull = true
	}
	return found, needFull
}

// pathPlan loads everything found (an event named it: load even if the
// mtime looks the same) and removes what was covered but is gone.
// Callers hold syncMu (it guards failed); it takes mu to read.
func (ix *Index) pathPlan(covered, found map[string]FileRef) syncPlan {
	plan := syncPlan{deferLight: true}
	for _, r := range found {
		plan.changed = append(plan.changed, r)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for p := range covered {
		if _, ok := found[p]; ok {
			continue
		}
		if ix.c.Get(p) != nil {
			plan.removed = append(plan.removed, p)
		}
		delete(ix.failed, p)
	}
	return plan
}

// ignoreCandidates are the named files that exist before a full scan but
// are not indexed: if the scan does not report them either, the Source
// skips them (its rules go by path), and later events on them need no
// full scan. Stat happens before the scan, so a file created during it is
// never wrongly ignored.
func (ix *Index) ignoreCandidates(named map[string]bool) []string {
	if _, ok := ix.opts.Source.(SubtreeScanner); ok || len(named) == 0 {
		return nil
	}
	var out []string
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for p, dir := range named {
		if dir || ix.c.Get(p) != nil {
			continue
		}
		if fi, err := ix.lstat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// noteIgnored records the candidates the scan did not report.
func (ix *Index) noteIgnored(candidates []string, seen map[string]bool) {
	for _, p := range candidates {
		if !seen[p] && len(ix.ignored) < maxIgnored {
			if ix.ignored == nil {
				ix.ignored = map[string]struct{}{}
			}
			ix.ignored[p] = struct{}{}
		}
	}
}

// scoreOnly reports whether doc differs from the indexed entry only in
// its score, as after a reinforcement or decay rewrite.
func scoreOnly(old *rank.Entry, doc rank.Doc) bool {
	doc.Score = old.Doc.Score
	return hashDoc(doc) == old.DocHash
}

// flushDeferred writes the rows path syncs postponed, or the whole file
// when a failed write left it short and no sync has written it since (the
// space may be back by now); callers hold syncMu.
func (ix *Index) flushDeferred() {
	ix.pubMu.Lock()
	defer ix.pubMu.Unlock()
	if ix.unsaved {
		_ = ix.persistLocked(context.Background(), syncPlan{}, &syncBatch{})
		return
	}
	if len(ix.deferred) == 0 {
		return
	}
	es := make([]*rank.Entry, 0, len(ix.deferred))
	for _, e := range ix.deferred {
		es = append(es, e)
	}
	if err := ix.writeLight(context.Background(), es); err != nil {
		ix.log.Warn("index: score updates not saved; the next start re-reads those files", "err", err)
		return
	}
	ix.deferred = nil
}
