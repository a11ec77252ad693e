package index

import (
	"context"
	"log/slog"

	"github.com/somni-dev/somni/internal/index/cache"
)

// Link is one related: reference as stored in the links table.
type Link = cache.Link

// openCache opens the SQLite cache (package cache) and turns its rows
// into entries, counted by corpus.put one at a time.
func openCache(ctx context.Context, p string, log *slog.Logger) (*cache.Store, []*entry, [][]byte, error) {
	st, rows, _, err := cache.Open(ctx, p, log)
	if err != nil {
		return nil, nil, nil, err
	}
	var out []*entry
	lexes := make([][]byte, len(rows))
	for i := range rows {
		r := &rows[i]
		e := &entry{doc: Doc{Path: r.Path, Kind: r.Kind, Name: r.Name, Description: r.Description,
			Body: r.Body, Type: r.Type, Score: r.Score, Related: r.Related, Tags: r.Tags, When: r.When,
			AppliesWhen: r.AppliesWhen, NotAppliesWhen: r.NotAppliesWhen, Context: r.Context,
			Supersedes: r.Supersedes, SupersededBy: r.SupersededBy}}
		e.setRef(FileRef{ModTime: r.ModTime, Size: r.Size})
		e.docHash, e.embedHash, e.embedder, e.vec = r.DocHash, r.EmbedHash, r.Embedder, r.Vec
		out, lexes[i] = append(out, e), r.Lex
	}
	return st, out, lexes, nil
}

// writeRows writes one sync's changes: whole rows for upserts, the scan
// facts for touched entries. Callers hold pubMu (it guards ix.st).
func (ix *Index) writeRows(ctx context.Context, upserts, touched []*entry, removed []string) error {
	rows := make([]cache.Row, len(upserts))
	for i, e := range upserts {
		d := &e.doc
		rows[i] = cache.Row{Path: d.Path, Kind: d.Kind, Name: d.Name, Description: d.Description,
			Type: d.Type, Body: d.Body, Score: d.Score, Related: d.Related, Tags: d.Tags, When: d.When,
			AppliesWhen: d.AppliesWhen, NotAppliesWhen: d.NotAppliesWhen, Context: d.Context,
			Supersedes: d.Supersedes, SupersededBy: d.SupersededBy, ModTime: e.ref().ModTime, Size: e.size, DocHash: e.docHash, EmbedHash: e.embedHash,
			Embedder: e.embedder, Vec: e.vec, Lex: lexOf(e)}
	}
	ts := make([]cache.Touch, len(touched))
	for i, e := range touched {
		ts[i] = cache.Touch{Path: e.doc.Path, ModTime: e.ref().ModTime, Size: e.size}
	}
	return ix.st.Write(ctx, rows, ts, removed)
}

// writeLight persists rows whose text did not change (new score, mtime
// or size) in one transaction. Callers hold syncMu and, while the
// embedder runs, pubMu.
func (ix *Index) writeLight(ctx context.Context, es []*entry) error {
	ls := make([]cache.Light, len(es))
	for i, e := range es {
		ls[i] = cache.Light{Path: e.doc.Path, Score: e.doc.Score, DocHash: e.docHash, ModTime: e.ref().ModTime, Size: e.size}
	}
	return ix.st.WriteLight(ctx, ls)
}

// writeVectors stores the background embedder's vectors. Callers hold pubMu.
func (ix *Index) writeVectors(ctx context.Context, es []*entry) error {
	vs := make([]cache.Vector, len(es))
	for i, e := range es {
		vs[i] = cache.Vector{Path: e.doc.Path, EmbedHash: e.embedHash, Embedder: e.embedder, Vec: e.vec}
	}
	return ix.st.WriteVectors(ctx, vs)
}
