package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// hungEmbedder stands in for an embedder whose server accepts and never
// answers: each call waits out its own per-request timeout (the http
// embedder's, tested in package embed) and fails, counting calls.
type hungEmbedder struct {
	embed.Embedder
	timeout time.Duration
	calls   atomic.Int64
}

func (h *hungEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h.calls.Add(1)
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	<-ctx.Done()
	return nil, fmt.Errorf("hung embed: %w", ctx.Err())
}

// TestSearchWithHungEmbedder: with an embedder that never answers,
// Search (with no deadline of its own) still returns keyword hits, and
// the searches after it skip the embedder for the backoff instead of each
// waiting out the timeout.
func TestSearchWithHungEmbedder(t *testing.T) {
	e := &hungEmbedder{Embedder: embed.Hash(), timeout: 50 * time.Millisecond}
	root := t.TempDir()
	seedNotes(t, root)
	ix, _ := openDir(t, root, e) // the sync's embedding times out: keyword-only entries
	before := e.calls.Load()
	for i := range 3 {
		hits, err := ix.Search(context.Background(), rank.Query{Text: "allkeys-lru eviction"})
		if err != nil || len(hits) == 0 || hits[0].Doc.Name != "redis-eviction" {
			t.Fatalf("search %d: %v %v", i, names(hits), err)
		}
	}
	if got := e.calls.Load() - before; got > 1 {
		t.Errorf("3 searches made %d embedding calls to a hung embedder, want at most 1", got)
	}
}

// faultyEmbedder fails, or returns NaN vectors for texts holding "poison".
type faultyEmbedder struct {
	fail bool
}

func (f faultyEmbedder) ID() string   { return "faulty" }
func (f faultyEmbedder) Close() error { return nil }
func (f faultyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.fail {
		return nil, errors.New("embedding server down")
	}
	out, err := embed.Hash().Embed(ctx, texts)
	if err != nil { // cancelled: the background embedder is stopping
		return nil, err
	}
	for i, t := range texts {
		if strings.Contains(t, "poison") {
			for j := range out[i] {
				out[i][j] = float32(math.NaN())
			}
		}
	}
	return out, nil
}

// TestBadEmbedderKeepsKeywordRanking: an embedder that fails or returns
// non-finite vectors must leave keyword ranking intact, through the index
// and through ScoreDocs (conversation search), and never put a NaN score
// into the ordering.
func TestBadEmbedderKeepsKeywordRanking(t *testing.T) {
	docs := []rank.Doc{
		{Path: "a", Name: "billing-db", Description: "Billing database failover runbook", Body: "patroni switchover poison"},
		{Path: "b", Name: "billing-dashboards", Description: "Billing database dashboards", Body: "grafana board"},
		{Path: "c", Name: "coffee", Description: "coffee preference", Body: "americano"},
	}
	q := rank.Query{Text: "billing database failover runbook poison"}
	for _, tc := range []struct {
		name string
		emb  faultyEmbedder
	}{{"fails", faultyEmbedder{fail: true}}, {"NaN vectors", faultyEmbedder{}}} {
		t.Run(tc.name+"/ScoreDocs", func(t *testing.T) {
			hits, err := rank.NewScorer(tc.emb, nil).ScoreDocs(context.Background(), q, docs)
			checkFiniteTop(t, hits, err)
		})
		t.Run(tc.name+"/index", func(t *testing.T) {
			ix, err := Open(context.Background(), Options{Path: t.TempDir() + "/i.sqlite",
				Source: NewMemSource(docs...), Embedder: tc.emb, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if _, err := ix.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			hits, err := ix.Search(context.Background(), q)
			checkFiniteTop(t, hits, err)
		})
	}
}

func checkFiniteTop(t *testing.T, hits []rank.Hit, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("err %v", err)
	}
	if len(hits) == 0 || hits[0].Doc.Name != "billing-db" {
		t.Errorf("hits %v, want billing-db first", names(hits))
	}
	for _, h := range hits {
		if math.IsNaN(h.Hybrid) || math.IsInf(h.Hybrid, 0) || math.IsNaN(h.Cos) {
			t.Errorf("%s: hybrid %v cos %v", h.Doc.Name, h.Hybrid, h.Cos)
		}
	}
}
