package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// gateEmbedder holds every batch Embed call (more than one text) until
// the test lets it through; single texts (query embeds) pass. It honours
// ctx, as the real embedders do, so Close can stop it.
type gateEmbedder struct {
	embed.Embedder
	entered chan []string // each held call's texts, as it starts waiting
	release chan struct{} // one receive lets one call through; close lets all
}

func newGate() *gateEmbedder {
	return &gateEmbedder{Embedder: embed.Hash(), entered: make(chan []string, 64), release: make(chan struct{})}
}

func (g *gateEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) > 1 {
		g.entered <- texts
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Embedder.Embed(ctx, texts)
}

// noteDocs makes n knowledge docs that keyword search tells apart.
func noteDocs(n int) []rank.Doc {
	docs := make([]rank.Doc, n)
	for i := range docs {
		docs[i] = rank.Doc{Path: fmt.Sprintf("k/note-%04d/SKILL.md", i), Kind: rank.KindKnowledge,
			Name: fmt.Sprintf("note-%04d", i), Description: fmt.Sprintf("runbook topic%04d shared", i),
			Body: "steps for the on-call engineer"}
	}
	return docs
}

// TestSearchDuringBackgroundEmbedding: a sync publishes without waiting
// for vectors, a search meanwhile answers by keyword, and after the
// embedder is let through every entry has its vector, in the corpus and
// in the SQLite file.
func TestSearchDuringBackgroundEmbedding(t *testing.T) {
	ctx := context.Background()
	docs := noteDocs(300) // two batches
	gate := newGate()
	dbPath := filepath.Join(t.TempDir(), "i.sqlite")
	ix := openWith(t, dbPath, NewMemSource(docs...), gate)
	defer ix.Close()
	st, err := ix.Sync(ctx) // returns although the embedder is held
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued != len(docs) {
		t.Errorf("sync queued %d, want %d", st.Queued, len(docs))
	}
	<-gate.entered // the first batch is being embedded
	hits, err := ix.Search(ctx, rank.Query{Text: "topic0042 runbook", Limit: 3})
	if err != nil || len(hits) == 0 || hits[0].Doc.Name != "note-0042" {
		t.Fatalf("search during embedding: %v %v", names(hits), err)
	}
	if hits[0].Keyword <= 0 || hits[0].Cos != 0 {
		t.Errorf("unembedded hit: keyword %v cos %v, want keyword only", hits[0].Keyword, hits[0].Cos)
	}
	if s := ix.Status(); s.Embedded != 0 || s.Pending != len(docs) || s.Vectors || s.SemanticReady {
		t.Errorf("status during embedding: %+v", s)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	if err := ix.WaitEmbedded(short); err == nil {
		t.Error("WaitEmbedded returned while the embedder was held")
	}
	cancel()

	close(gate.release)
	if err := ix.WaitEmbedded(ctx); err != nil {
		t.Fatal(err)
	}
	if s := ix.Status(); s.Embedded != len(docs) || s.Pending != 0 || !s.Vectors || !s.SemanticReady {
		t.Errorf("status after WaitEmbedded: %+v", s)
	}
	hits, _ = ix.Search(ctx, rank.Query{Text: "topic0042 runbook", Limit: 3})
	if len(hits) == 0 || hits[0].Cos == 0 {
		t.Errorf("embedded hit has no cosine: %+v", hits)
	}
	if got := ix.Counters().Embedded; got != int64(len(docs)) {
		t.Errorf("embedded counter %d, want %d", got, len(docs))
	}
	ix.Close()

	// the vectors are in the file: a reopen embeds nothing
	count := &countingEmbedder{Embedder: embed.Hash()}
	ix2 := openWith(t, dbPath, NewMemSource(docs...), count)
	defer ix2.Close()
	if st := syncEmbedded(t, ix2); st.Queued != 0 || count.texts.Load() != 0 {
		t.Errorf("reopen queued %d and embedded %d texts, want none", st.Queued, count.texts.Load())
	}
}

// TestChangeDuringEmbeddingGetsNoStaleVector: an entry rewritten while
// its old text is being embedded ends with the new text's vector, in the
// corpus and in the file.
func TestChangeDuringEmbeddingGetsNoStaleVector(t *testing.T) {
	ctx := context.Background()
	docs := noteDocs(2)
	src := NewMemSource(docs...)
	gate := newGate()
	dbPath := filepath.Join(t.TempDir(), "i.sqlite")
	ix := openWith(t, dbPath, src, gate)
	defer ix.Close()
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	held := <-gate.entered // the old texts are being embedded
	changed := docs[0]
	changed.Description = "rewritten: kafka consumer lag after deploy"
	changed.Body = "a different text with different words"
	src.Put(changed)
	if _, err := ix.Sync(ctx); err != nil { // must not wait for the held batch
		t.Fatal(err)
	}
	if !slices.Contains(held, rank.EmbedText(docs[0])) {
		t.Fatalf("held batch lacks the old text: %q", held)
	}
	close(gate.release)
	if err := ix.WaitEmbedded(ctx); err != nil {
		t.Fatal(err)
	}
	want, _ := embed.Hash().Embed(ctx, []string{rank.EmbedText(changed)})
	stale, _ := embed.Hash().Embed(ctx, []string{rank.EmbedText(docs[0])})
	check := func(where string, ix *Index) {
		t.Helper()
		ix.mu.RLock()
		e := ix.c.Get(changed.Path)
		ix.mu.RUnlock()
		switch {
		case e == nil || e.Vec() == nil:
			t.Errorf("%s: no vector", where)
		case slices.Equal(e.Vec(), stale[0]):
			t.Errorf("%s: the stale vector of the old text", where)
		case !slices.Equal(e.Vec(), want[0]):
			t.Errorf("%s: not the new text's vector", where)
		}
	}
	check("corpus", ix)
	ix.Close()
	ix2, err := Open(ctx, Options{Path: dbPath, Source: src, Embedder: embed.Hash(), Logger: quietLogger(), ScanInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	check("file", ix2) // as stored, before any sync could repair it
}

// TestCloseDuringBacklog: Close with batches still queued returns (the
// held call is cancelled), keeps every row, keeps the vectors of the
// batch that finished, and the next start embeds only the rest.
func TestCloseDuringBacklog(t *testing.T) {
	ctx := context.Background()
	docs := noteDocs(600) // three batches
	gate := newGate()
	dbPath := filepath.Join(t.TempDir(), "i.sqlite")
	ix := openWith(t, dbPath, NewMemSource(docs...), gate)
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	first := <-gate.entered
	gate.release <- struct{}{} // the first batch completes
	<-gate.entered             // the second is held: the first is written and published
	if got := ix.Status().Embedded; got != len(first) {
		t.Fatalf("embedded %d before Close, want %d", got, len(first))
	}
	closed := make(chan error, 1)
	go func() { closed <- ix.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a latency bound
		t.Fatal("Close hangs with a backlog")
	}
	if err := ix.WaitEmbedded(ctx); err == nil {
		t.Error("WaitEmbedded after Close with a backlog reported complete")
	}

	count := &countingEmbedder{Embedder: embed.Hash()}
	ix2 := openWith(t, dbPath, NewMemSource(docs...), count)
	defer ix2.Close()
	if s := ix2.Status(); s.Entries != len(docs) || s.Embedded != len(first) {
		t.Fatalf("reopened file: %d entries, %d with vectors; want %d, %d", s.Entries, s.Embedded, len(docs), len(first))
	}
	st := syncEmbedded(t, ix2)
	if st.Loaded != 0 || count.texts.Load() != int64(len(docs)-len(first)) {
		t.Errorf("after reopen: loaded %d, embedded %d texts; want 0, %d", st.Loaded, count.texts.Load(), len(docs)-len(first))
	}
	if s := ix2.Status(); s.Embedded != len(docs) {
		t.Errorf("after reopen: %d embedded, want %d", s.Embedded, len(docs))
	}
}

// TestEmptyIndexRanksByVectors: an index with nothing in it yet says it
// ranks by vectors when its embedder works (a fresh install with the model
// must not read as one that fell back), and never with vectors off.
func TestEmptyIndexRanksByVectors(t *testing.T) {
	for _, tc := range []struct {
		emb  embed.Embedder
		want bool
	}{{embed.Hash(), true}, {embed.Off(), false}} {
		ix := openWith(t, filepath.Join(t.TempDir(), "i.sqlite"), NewMemSource(), tc.emb)
		if _, err := ix.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := ix.Status().Vectors; got != tc.want {
			t.Errorf("%s: Vectors = %v on an empty index, want %v", tc.emb.ID(), got, tc.want)
		}
		ix.Close()
	}
}

// openWith opens an unwatched index over src that the test syncs itself.
func openWith(t *testing.T, path string, src Source, emb embed.Embedder) *Index {
	t.Helper()
	ix, err := Open(context.Background(), Options{Path: path, Source: src, Embedder: emb, Logger: quietLogger(), ScanInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
