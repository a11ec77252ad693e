package rank

import (
	"context"
	"fmt"

	"github.com/somni-dev/somni/internal/bm25"
)

// The floor's index (floor.go) is plain BM25 over every live entry.
// Building it costs about 40 µs of CPU a note (10k notes: 0.41 s on the
// 2-core machine), and a search used to build it: the first Chinese
// question after a start waited for it, 0.4–1 s, which was the p99 of
// recall during an embedding backlog (BenchmarkRecallDuringEmbedding,
// 36 / 1,024 ms p50 / p99 at load 4–5.6 on 2026-12-07). So the index's
// corpus (NewCorpus) never builds it on a search. The index builds it
// apart (PlainWanted, PlainEntries, BuildPlain, SetPlain) as soon as the
// corpus holds an entry mostly in CJK, or a Chinese question found it
// missing; a snapshot keeps it (snapshot.go). Until then such a question
// ranks without the floor. It is not built for a memory nobody asks in
// Chinese: it costs 0.6 KB a note of resident memory (BenchmarkRestart,
// 50k notes, 110 → 142 MB; BenchmarkMemory, 10k synthetic notes, some
// Chinese: heap 40.7 → 46.2 MB). A throwaway corpus (ScoreDocs) builds
// its own on first use.

// putPlain keeps the floor's index and the count of CJK entries as Put
// files e at s (after its lexical view: e.cjk is set).
func (c *Corpus) putPlain(s int32, e *Entry) {
	c.changes++
	if e.cjk {
		c.cjkEntries++
	}
	if c.plain != nil {
		c.plain.Add(s, plainText(e.Doc))
	}
}

// removePlain is putPlain's reverse, as Remove takes e from s.
func (c *Corpus) removePlain(s int32, e *Entry) {
	c.changes++
	if e.cjk {
		c.cjkEntries--
	}
	if c.plain != nil {
		c.plain.Remove(s, plainText(e.Doc))
	}
}

// plainIndex is the floor's index. A throwaway corpus builds it on first
// use (a search calls it under the index's read lock, so two may race to
// it: the Once makes one build). The index's corpus returns nil until
// SetPlain, and notes that a search wanted it.
func (c *Corpus) plainIndex() *bm25.Index {
	if c.plainApart {
		if c.plain == nil {
			c.plainAsked.Store(true)
		}
		return c.plain
	}
	c.plainOnce.Do(func() {
		x, _ := BuildPlain(context.Background(), c.slots)
		c.plain = x
	})
	return c.plain
}

// PlainWanted reports whether the index should build the floor's index:
// there is none, and an entry is mostly CJK or a search asked for it.
// Call it under the index's read lock.
func (c *Corpus) PlainWanted() bool {
	return c.plain == nil && (c.cjkEntries > 0 || c.plainAsked.Load())
}

// BuildPlain is the floor's index of entries by slot (Corpus.Entries); it
// holds no lock (published entries are immutable).
func BuildPlain(ctx context.Context, entries []*Entry) (*bm25.Index, error) {
	x := bm25.New()
	for s, e := range entries {
		if s%1024 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("rank: floor index: %w", ctx.Err())
		}
		if e != nil {
			x.Add(int32(s), plainText(e.Doc))
		}
	}
	return x, nil
}

// SetPlain installs x, built from Entries at changes, unless an
// entry was put or removed since (false: build again). Call it under the
// index's write lock.
func (c *Corpus) SetPlain(x *bm25.Index, changes uint64) bool {
	if c.plain != nil || c.changes != changes {
		return false
	}
	c.plain = x
	return true
}
