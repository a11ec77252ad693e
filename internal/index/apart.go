package index

import (
	"context"

	"github.com/somni-dev/somni/internal/index/rank"
)

// Two structures of the corpus are built apart from searches (package
// rank): the BM25 floor's index (plain.go there), and its vectors packed
// anew in slot order once the embedder left them astray (vectors.go
// there). Each is built from a copy of the entries by slot without the
// corpus lock (published entries are immutable) and installed under it in
// one short step. Sync builds both before it returns, so a caller that
// synced ranks with the floor; a search that found the floor missing, a
// watcher's sync, a write's SyncPaths and the embedder's batches leave
// them to one background job (apartLater).

// apartLocked builds the floor's index and packs the vectors anew where
// the corpus wants it. The caller holds syncMu, so no sync puts or
// removes an entry meanwhile (the embedder only swaps in vectors, which
// SetRepack passes over); the corpus lock is held only to copy the
// entries and to install.
func (ix *Index) apartLocked(ctx context.Context) {
	ix.mu.RLock()
	floor, repack := ix.c.PlainWanted(), ix.c.RepackWanted()
	var entries []*rank.Entry
	var changes uint64
	if floor || repack {
		entries, changes = ix.c.Entries()
	}
	ix.mu.RUnlock()
	if floor {
		x, err := rank.BuildPlain(ctx, entries)
		if err != nil {
			return // closing; the next start or sync builds it
		}
		ix.mu.Lock()
		ok := ix.c.SetPlain(x, changes)
		ix.mu.Unlock()
		if !ok {
			ix.log.Debug("index: floor's index outdated before it was installed; building it again later")
		}
	}
	if repack {
		r, err := rank.BuildRepack(ctx, entries)
		if err != nil {
			return
		}
		ix.mu.Lock()
		n := ix.c.SetRepack(r)
		ix.mu.Unlock()
		ix.log.Debug("index: vectors packed anew", "entries", n)
	}
}

// apartLater runs apartLocked in the background if the corpus wants
// either structure: one job at a time, which Close waits for.
func (ix *Index) apartLater() {
	ix.mu.RLock()
	want := ix.c.PlainWanted() || ix.c.RepackWanted()
	ix.mu.RUnlock()
	if !want || !ix.apartRunning.CompareAndSwap(false, true) {
		return
	}
	if !ix.goBg(func(ctx context.Context) {
		defer ix.apartRunning.Store(false)
		ix.syncMu.Lock()
		defer ix.syncMu.Unlock()
		if !ix.closed.Load() {
			ix.apartLocked(ctx)
		}
	}) {
		ix.apartRunning.Store(false) // closed
	}
}
