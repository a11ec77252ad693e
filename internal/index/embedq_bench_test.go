package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// slowBatches is the hash embedder paced like the local model: every
// batch call (more than one text) waits as long as USE-lite takes for
// that many texts, so the background embedder holds batches for as long
// as it would in production. Query embeds (one text) stay fast.
type slowBatches struct {
	embed.Embedder
	perText *atomic.Int64 // ns; 0 while the benchmark builds its index
}

// localTextCost is the local model's measured cost per text in a batch
// (368 texts/s, BenchmarkLocalBatch; see package cache's 10k figure).
const localTextCost = time.Second / 368

func (s slowBatches) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) > 1 {
		t := time.NewTimer(time.Duration(int64(len(texts)) * s.perText.Load()))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.Embedder.Embed(ctx, texts)
}

// backlogEmbedder is the local model when `make models` has run (unless
// SOMNI_BENCH_EMBED=hash), else the paced hash embedder; the name goes
// into the metric names.
func backlogEmbedder(b *testing.B) (emb embed.Embedder, which string, pace func()) {
	model, lib := filepath.Join("..", "..", "models", "use-lite"), filepath.Join("..", "..", "models", "lib", "libonnxruntime.so.1")
	_, errM := os.Stat(filepath.Join(model, "model.onnx"))
	_, errL := os.Stat(lib)
	if errM == nil && errL == nil && os.Getenv("SOMNI_BENCH_EMBED") != "hash" { // hash: compare the paced stand-in
		e, err := embed.New(embed.Config{Provider: "local", ModelDir: model, ORTLib: lib}, quietLogger())
		if err == nil && embed.Degradation(e) == "" {
			if r, ok := e.(embed.Readier); ok {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err = r.WaitReady(ctx)
				cancel()
			}
			if err == nil {
				b.Cleanup(func() { e.Close() })
				return e, "local", func() {}
			}
		}
		b.Logf("local model present but unusable (%v); pacing the hash embedder instead", err)
	}
	slow := slowBatches{Embedder: embed.Hash(), perText: new(atomic.Int64)}
	return slow, "hashpaced", func() { slow.perText.Store(int64(localTextCost)) }
}

// BenchmarkRecallDuringEmbedding is recall latency at 10k entries while
// 1,000 new files are being embedded in the background: each measured
// query is issued with a backlog pending (when one drains, the next 1,000
// are synced in, untimed). The query's own embedding is excluded
// (Query.Vector precomputed), so this is what the index adds: the corpus
// lock the embedder takes per batch, and CPU shared with the model.
func BenchmarkRecallDuringEmbedding(b *testing.B) {
	emb, which, pace := backlogEmbedder(b)
	ctx := context.Background()
	docs := rank.SyntheticDocs(10000, 1)
	ix, src := benchIndexOf(b, docs, emb) // fully embedded before the clock starts
	pace()
	vecs := make([][]float32, len(benchQueries))
	for i, q := range benchQueries {
		v, err := ix.EmbedQuery(ctx, q)
		if err != nil || v == nil {
			b.Fatalf("query vector: %v", err)
		}
		vecs[i] = v
	}
	extra := rank.SyntheticDocs(20000, 2) // disjoint paths: seed 2's entries are new
	next := 0
	refill := func() {
		for i := 0; i < 1000; i++ {
			d := extra[next%len(extra)]
			d.Path = fmt.Sprintf("backlog/%06d/%s", next, d.Path)
			src.Put(d)
			next++
		}
		if st, err := ix.Sync(ctx); err != nil || st.Queued != 1000 {
			b.Fatalf("refill sync: %+v %v", st, err)
		}
	}
	var durs []time.Duration
	refills := 0
	for i := 0; b.Loop(); i++ {
		if ix.Status().Pending == 0 {
			b.StopTimer()
			refill()
			refills++
			b.StartTimer()
		}
		q := rank.Query{Text: benchQueries[i%len(benchQueries)], Vector: vecs[i%len(vecs)], Limit: 10}
		t0 := time.Now()
		if _, err := ix.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(durs[len(durs)/2]), "p50-ms-"+which)
	b.ReportMetric(ms(durs[min(len(durs)-1, len(durs)*99/100)]), "p99-ms-"+which)
	b.ReportMetric(ms(durs[len(durs)-1]), "max-ms-"+which) // a run may hold fewer than 100 searches
	b.ReportMetric(float64(refills), "backlogs")
	b.ReportMetric(0, "ns/op") // p50/p99 are the numbers; ns/op would hide the tail
}
