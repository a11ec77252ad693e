package main

import (
	"context"
	"time"

	"github.com/somni-dev/somni/internal/bm25"
	"github.com/somni-dev/somni/internal/index/rank"
)

// bm25System is the textbook baseline, package bm25: Okapi BM25 over
// name+description+body as one field with its standard analyzer; no field weights,
// no pinning, no literal bonus, no candidate rules, no vectors.
//
// withContext appends each doc's Context (the previous turn) to that one
// field: the baseline given the same turn representation as the index.
// The system grows like an index does (system.grow): statistics are
// recomputed from the entries present at each search, as Lucene's are.
func bm25System(docs []rank.Doc, withContext bool) *system {
	b := &baseline{withContext: withContext, ix: bm25.New()}
	b.add(docs)
	name := "bm25 baseline"
	if withContext {
		name += " (+ previous turn)"
	}
	return &system{name: name, search: b.search,
		grow: func(_ context.Context, docs []rank.Doc, _ time.Time) error {
			b.add(docs)
			return nil
		}, close: func() {}}
}

// baseline is the baseline's index: a bm25.Index over the entries in the
// order they came, their paths by number.
type baseline struct {
	withContext bool
	ix          *bm25.Index
	paths       []string
}

// add indexes docs; growing pools only add, so a path is never replaced.
func (b *baseline) add(docs []rank.Doc) {
	for _, d := range docs {
		text := rank.PlainText(d)
		if b.withContext {
			text += "\n" + d.Context
		}
		b.ix.Add(int32(len(b.paths)), text)
		b.paths = append(b.paths, d.Path)
	}
}

// search ranks every entry holding a query term by BM25, best first.
func (b *baseline) search(_ context.Context, q string, k int) ([]string, error) {
	var out []string
	for _, s := range b.ix.Search(q, k, nil) {
		out = append(out, b.paths[s.Doc])
	}
	return out, nil
}
