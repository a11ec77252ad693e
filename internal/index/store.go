package index

import (
	"context"
	"time"

	"github.com/somni-dev/somni/internal/index/cache"
	"github.com/somni-dev/somni/internal/index/rank"
)

// Link is one related: reference as stored in the links table.
type Link = cache.Link

// entriesOf turns the cache's rows into entries, each with its stored
// lexical view, counted by Corpus.Put one at a time.
func entriesOf(rows []cache.Row) ([]*rank.Entry, [][]byte) {
	out := make([]*rank.Entry, len(rows))
	lexes := make([][]byte, len(rows))
	slab := make([]rank.Entry, len(rows)) // one allocation, not one per row
	for i := range rows {
		r := &rows[i]
		e := &slab[i]
		e.Doc = rank.Doc{Path: r.Path, Kind: r.Kind, Name: r.Name, Description: r.Description,
			Body: r.Body, Type: r.Type, Score: r.Score, Related: r.Related, Tags: r.Tags, When: r.When,
			AppliesWhen: r.AppliesWhen, NotAppliesWhen: r.NotAppliesWhen, Context: r.Context,
			Supersedes: r.Supersedes, SupersededBy: r.SupersededBy}
		setRef(e, FileRef{ModTime: r.ModTime, Size: r.Size})
		e.DocHash, e.EmbedHash = r.DocHash, r.EmbedHash
		e.SetVec(r.Vec, r.Embedder)
		out[i], lexes[i] = e, r.Lex
	}
	return out, lexes
}

// refOf is the scan facts e was loaded with; setRef records them.
func refOf(e *rank.Entry) FileRef {
	return FileRef{Path: e.Doc.Path, Kind: e.Doc.Kind, ModTime: time.Unix(0, e.MTime), Size: e.Size}
}
func setRef(e *rank.Entry, r FileRef) { e.MTime, e.Size = r.ModTime.UnixNano(), r.Size }

// writeRows writes one sync's changes: whole rows for upserts, the scan
// facts for touched entries. Callers hold pubMu (it guards ix.st).
func (ix *Index) writeRows(ctx context.Context, upserts, touched []*rank.Entry, removed []string) error {
	rows := make([]cache.Row, len(upserts))
	for i, e := range upserts {
		d := &e.Doc
		rows[i] = cache.Row{Path: d.Path, Kind: d.Kind, Name: d.Name, Description: d.Description,
			Type: d.Type, Body: d.Body, Score: d.Score, Related: d.Related, Tags: d.Tags, When: d.When,
			AppliesWhen: d.AppliesWhen, NotAppliesWhen: d.NotAppliesWhen, Context: d.Context,
			Supersedes: d.Supersedes, SupersededBy: d.SupersededBy, ModTime: refOf(e).ModTime, Size: e.Size, DocHash: e.DocHash, EmbedHash: e.EmbedHash,
			Embedder: e.Embedder, Vec: e.Vec(), Lex: e.Lex()}
	}
	ts := make([]cache.Touch, len(touched))
	for i, e := range touched {
		ts[i] = cache.Touch{Path: e.Doc.Path, ModTime: refOf(e).ModTime, Size: e.Size}
	}
	return ix.st.Write(ctx, rows, ts, removed)
}

// writeLight persists rows whose text did not change (new score, mtime
// or size) in one transaction. Callers hold syncMu and, while the
// embedder runs, pubMu.
func (ix *Index) writeLight(ctx context.Context, es []*rank.Entry) error {
	ls := make([]cache.Light, len(es))
	for i, e := range es {
		ls[i] = cache.Light{Path: e.Doc.Path, Score: e.Doc.Score, DocHash: e.DocHash, ModTime: refOf(e).ModTime, Size: e.Size}
	}
	return ix.st.WriteLight(ctx, ls)
}

// writeVectors stores the background embedder's vectors; a file that
// cannot take them gets them with the rewrite cacheFailed schedules.
// Callers hold pubMu.
func (ix *Index) writeVectors(ctx context.Context, es []*rank.Entry) error {
	vs := make([]cache.Vector, len(es))
	for i, e := range es {
		vs[i] = cache.Vector{Path: e.Doc.Path, EmbedHash: e.EmbedHash, Embedder: e.Embedder, Vec: e.Vec()}
	}
	return ix.cacheFailed(ctx, ix.st.WriteVectors(ctx, vs), nil)
}

// cacheFailed handles a write the cache file refused (err nil: none).
// The file is only a cache, so a full disk, a file made read-only or a
// lock held past busy_timeout must not cost recall what a sync read: the
// caller publishes it anyway, and the next sync rewrites the whole file,
// deleting the rows of removed, which it may still hold. Until then a
// restart reads those files again. Said once per episode: syncs keep
// failing for as long as the disk stays full. A cancelled write is the
// caller's error. Callers hold pubMu.
func (ix *Index) cacheFailed(ctx context.Context, err error, removed []string) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	if ix.dropped == nil {
		ix.dropped = map[string]struct{}{}
	}
	for _, p := range removed {
		ix.dropped[p] = struct{}{}
	}
	if ix.unsaved {
		ix.log.Debug("index cache still not written", "err", err)
		return nil
	}
	ix.unsaved = true
	ix.log.Warn("index cache not written; recall answers from memory, and the next sync writes the cache again once it can",
		"path", ix.opts.Path, "err", err)
	return nil
}
