package index

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// queryFormEmbedder is the hash embedder with a query form: it records
// which texts arrive as queries and which as stored texts, and its
// calibration can change after construction, as a BERT model's does once
// its background load has measured it.
type queryFormEmbedder struct {
	embed.Embedder
	mu      sync.Mutex
	queries []string
	stored  []string
	floor   atomic.Value // float64
}

func newQueryFormEmbedder() *queryFormEmbedder {
	e := &queryFormEmbedder{Embedder: embed.Hash()}
	e.floor.Store(embed.DefaultCalibration.Floor)
	return e
}

func (e *queryFormEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.stored = append(e.stored, texts...)
	e.mu.Unlock()
	return e.Embedder.Embed(ctx, texts)
}

func (e *queryFormEmbedder) EmbedQueries(ctx context.Context, qs []string) ([][]float32, error) {
	e.mu.Lock()
	e.queries = append(e.queries, qs...)
	e.mu.Unlock()
	return e.Embedder.Embed(ctx, qs)
}

func (e *queryFormEmbedder) Calibration() embed.Calibration {
	return embed.Calibration{Floor: e.floor.Load().(float64), Span: 0.3}
}

func TestQueriesUseTheQueryForm(t *testing.T) {
	ctx := context.Background()
	docs := []rank.Doc{{Path: "e2", Kind: rank.KindEpisode, Name: "ep-migration", Description: "payments queue migration to kafka"}}
	tests := []struct {
		name string
		run  func(e *queryFormEmbedder) error
	}{
		{"ScoreDocs", func(e *queryFormEmbedder) error {
			_, err := rank.NewScorer(e, nil).ScoreDocs(ctx, rank.Query{Text: "kafka migration"}, docs)
			return err
		}},
		{"Index.Search", func(e *queryFormEmbedder) error {
			ix, err := Open(ctx, Options{Path: t.TempDir() + "/index.sqlite", Source: NewMemSource(docs...), Embedder: e, ScanInterval: -1, Logger: quietLogger()})
			if err != nil {
				return err
			}
			defer ix.Close()
			if _, err := ix.Sync(ctx); err != nil {
				return err
			}
			_, err = ix.Search(ctx, rank.Query{Text: "kafka migration"})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newQueryFormEmbedder()
			if err := tc.run(e); err != nil {
				t.Fatal(err)
			}
			if len(e.queries) != 1 || e.queries[0] != "kafka migration" {
				t.Errorf("query form got %q, want the one query", e.queries)
			}
			for _, s := range e.stored {
				if s == "kafka migration" {
					t.Errorf("the query was embedded as a stored text")
				}
			}
		})
	}
}

func TestCalibrationReadPerSearch(t *testing.T) {
	ctx := context.Background()
	e := newQueryFormEmbedder()
	sc := rank.NewScorer(e, nil)
	docs := []rank.Doc{{Path: "a", Name: "kafka", Body: "queue migration to kafka"}}
	q := rank.Query{Text: "kafka queue migration"}
	before, err := sc.ScoreDocs(ctx, q, docs)
	if err != nil || len(before) != 1 {
		t.Fatalf("before: %v %v", before, err)
	}
	// the model "finishes loading" and measures a much higher floor
	e.floor.Store(0.99)
	if got := sc.Calibration().Floor; got != 0.99 {
		t.Fatalf("Calibration().Floor = %v after the embedder changed it", got)
	}
	after, err := sc.ScoreDocs(ctx, q, docs)
	if err != nil || len(after) != 1 {
		t.Fatalf("after: %v %v", after, err)
	}
	if after[0].Hybrid >= before[0].Hybrid {
		t.Errorf("hybrid %v → %v: the new floor was not used", before[0].Hybrid, after[0].Hybrid)
	}
}
