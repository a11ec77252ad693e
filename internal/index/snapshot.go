package index

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/somni-dev/somni/internal/index/cache"
	"github.com/somni-dev/somni/internal/index/rank"
)

// The corpus' snapshot (rank.Corpus.Snapshot) is kept in one file beside
// the cache (index.sqlite-snap), so a start reads the corpus in one pass
// instead of the cache's rows. This file decides when it is read and
// written; package rank encodes it, package cache keeps the file and the
// generation it names.
//
// It is read only when it names the cache file's identity and write
// generation (package cache bumps it on every write of rows or vectors)
// and the live embedder; anything else reads the rows. It is written when
// the index closes (and once after a start that had to read the rows),
// only while the corpus equals the cache file: no other process wrote it
// meanwhile, no write failed. Like the cache it is machine-local: git
// sync's "/index.sqlite*" pattern keeps it out of a shared repository.

// readSnapshot is the corpus the snapshot holds if it is a copy of
// generation gen of the cache file id made under the live embedder, else
// nil: the caller reads the rows.
func (ix *Index) readSnapshot(id string, gen uint64) *rank.Corpus {
	f, size, err := cache.OpenSnapshot(ix.opts.Path)
	var c *rank.Corpus
	if err == nil {
		defer f.Close()
		c, err = rank.ReadSnapshot(f, size, rank.SnapshotKey{ID: id, Gen: gen, Embedder: ix.embID}, ix.opts.Shared)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ix.log.Debug("index: snapshot not used; reading the cache's rows", "err", err)
		}
		return nil
	}
	return c
}

// writeSnapshot writes the corpus to the snapshot file if it equals the
// cache file now and the file there is of another generation. Callers
// hold syncMu and pubMu: no sync or vector changes the corpus meanwhile.
func (ix *Index) writeSnapshot(ctx context.Context) {
	if ix.unsaved || ix.st == nil {
		return
	}
	id, gen, ok := ix.st.Generation(ctx)
	if !ok || ix.snapGen == gen && ix.snapID == id {
		return
	}
	start := time.Now()
	parts := ix.c.Snapshot(rank.SnapshotKey{ID: id, Gen: gen, Embedder: ix.embID})
	size := 0
	for _, b := range parts {
		size += len(b)
	}
	if err := cache.WriteSnapshot(ix.opts.Path, parts); err != nil {
		ix.log.Warn("index: snapshot not written; the next start reads the cache's rows", "err", err)
		return
	}
	ix.snapID, ix.snapGen = id, gen
	ix.log.Debug("index: snapshot written", "entries", ix.c.Len(), "bytes", size, "took", time.Since(start))
}
