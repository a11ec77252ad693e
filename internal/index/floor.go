package index

import (
	"context"

	"github.com/somni-dev/somni/internal/index/rank"
)

// The BM25 floor's index is built apart from searches (package rank,
// plain.go): a search that finds it missing ranks without the floor and
// asks for it. Sync builds it before it returns, so a caller that synced
// ranks with the floor; a search, a watcher's sync and a write's SyncPaths
// leave it to one background build (floorLater), which never holds the
// corpus lock while it counts.

// floorLocked builds the floor's index if the corpus wants one. The
// caller holds syncMu, so no sync puts or removes an entry meanwhile (the
// embedder only swaps in vectors); the corpus lock is held only to copy
// the entries and to install the index.
func (ix *Index) floorLocked(ctx context.Context) {
	ix.mu.RLock()
	if !ix.c.PlainWanted() {
		ix.mu.RUnlock()
		return
	}
	entries, changes := ix.c.PlainEntries()
	ix.mu.RUnlock()
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

// floorLater builds the floor's index in the background if the corpus
// wants one: one build at a time, which Close waits for.
func (ix *Index) floorLater() {
	ix.mu.RLock()
	want := ix.c.PlainWanted()
	ix.mu.RUnlock()
	if !want || !ix.floorRunning.CompareAndSwap(false, true) {
		return
	}
	if !ix.goBg(func(ctx context.Context) {
		defer ix.floorRunning.Store(false)
		ix.syncMu.Lock()
		defer ix.syncMu.Unlock()
		if !ix.closed.Load() {
			ix.floorLocked(ctx)
		}
	}) {
		ix.floorRunning.Store(false) // closed
	}
}
