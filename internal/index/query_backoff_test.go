package index

import (
	"context"
	"testing"
	"time"
)

// TestSearchWithHungEmbedder: with an http embedder that never answers,
// Search (with no deadline of its own) still returns keyword hits, and
// the searches after it skip the embedder for the backoff instead of each
// waiting out the timeout.
func TestSearchWithHungEmbedder(t *testing.T) {
	srv, calls := badEmbeddings(t, true, nil)
	e, err := NewHTTP(EmbedConfig{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	e.(*httpEmbedder).timeout = 50 * time.Millisecond
	root := t.TempDir()
	seedNotes(t, root)
	ix, _ := openDir(t, root, e) // the sync's embedding times out: keyword-only entries
	before := calls.Load()
	for i := range 3 {
		hits, err := ix.Search(context.Background(), Query{Text: "allkeys-lru eviction"})
		if err != nil || len(hits) == 0 || hits[0].Doc.Name != "redis-eviction" {
			t.Fatalf("search %d: %v %v", i, names(hits), err)
		}
	}
	if got := calls.Load() - before; got > 1 {
		t.Errorf("3 searches made %d embedding requests to a hung server, want at most 1", got)
	}
}
