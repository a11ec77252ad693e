package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

var benchQueries = []string{
	"redis cache failover replica",
	"kafka consumer lag after deploy",
	"postgres vacuum bloat slow query",
	"数据库 慢查询 索引",
	"灰度发布 回滚",
	"certificate renewal alert",
	"db-node-420 port",
	"customer invoice billing ledger audit",
}

// benchIndex builds an index over n synthetic docs.
func benchIndex(b *testing.B, n int, emb embed.Embedder) (*Index, *MemSource) {
	return benchIndexOf(b, rank.SyntheticDocs(n, 1), emb)
}

// syntheticTurns makes n synthetic docs into dialogue turns (sessions of
// 10, every third turn a question), each carrying its previous turn as
// context, so searches take the question-and-answer path.
func syntheticTurns(n int) []rank.Doc {
	docs := rank.SyntheticDocs(n, 1)
	turns := make([]rank.Turn, n)
	for i, d := range docs {
		text := d.Description + " " + d.Body
		if i%3 == 0 {
			text += "?"
		}
		turns[i] = rank.Turn{Path: d.Path, Session: strconv.Itoa(i / 10), Role: "user", Text: text}
	}
	return rank.TurnDocs(turns)
}

// benchIndexOf builds an index over docs.
func benchIndexOf(b *testing.B, docs []rank.Doc, emb embed.Embedder) (*Index, *MemSource) {
	b.Helper()
	src := NewMemSource(docs...)
	ix, err := Open(context.Background(), Options{Path: filepath.Join(b.TempDir(), "index.sqlite"),
		Source: src, Embedder: emb, Logger: quietLogger(), ScanInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	syncEmbedded(b, ix)
	b.Cleanup(func() { ix.Close() })
	return ix, src
}

// reportLatency records p50/p99 of per-op durations as custom metrics.
func reportLatency(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	if len(d) == 0 {
		return
	}
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[min(len(d)-1, len(d)*99/100)].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(d[len(d)-1].Microseconds())/1000, "max-ms") // a short run's p99 hides its slowest
}

// BenchmarkSearch measures recall latency at 1k, 10k and 100k entries
// (100k: a memory with team pools and several machines) on the
// keyword path (embedder off) and the vector path (hash vectors, query
// vector precomputed so the embedder's own time is excluded); "turns" is
// the vector path over dialogue turns, where replies borrow their
// question's cosine.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		for _, path := range []string{"keyword", "vector", "turns"} {
			if n > 10000 && path == "turns" {
				continue // a turn an entry is the dialogue eval's shape, not a 100k memory's
			}
			b.Run(fmt.Sprintf("%s/%d", path, n), func(b *testing.B) {
				emb, docs := embed.Off(), rank.SyntheticDocs(n, 1)
				switch path {
				case "vector":
					emb = embed.Hash()
				case "turns":
					emb, docs = embed.Hash(), syntheticTurns(n)
				}
				ix, _ := benchIndexOf(b, docs, emb)
				ctx := context.Background()
				vecs := make([][]float32, len(benchQueries))
				for i, q := range benchQueries {
					vecs[i], _ = ix.EmbedQuery(ctx, q)
				}
				durs := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					q := rank.Query{Text: benchQueries[i%len(benchQueries)], Vector: vecs[i%len(vecs)], Limit: 10}
					t0 := time.Now()
					if _, err := ix.Search(ctx, q); err != nil {
						b.Fatal(err)
					}
					durs = append(durs, time.Since(t0))
				}
				reportLatency(b, durs)
			})
		}
	}
}

// BenchmarkSync measures a full sync from an empty index file and an
// incremental sync after one edit among 10k entries (hash embedder).
func BenchmarkSync(b *testing.B) {
	docs := rank.SyntheticDocs(10000, 1)
	b.Run("full/10000", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			dir := b.TempDir()
			src := NewMemSource(docs...)
			ix, err := Open(context.Background(), Options{Path: filepath.Join(dir, "i.sqlite"), Source: src,
				Embedder: embed.Hash(), Logger: quietLogger(), ScanInterval: -1})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := ix.Sync(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			ix.Close()
			b.StartTimer()
		}
	})
	b.Run("reopen-warm/10000", func(b *testing.B) {
		// restart: load the cached 10k entries and verify them by mtime, no embedding
		dir := b.TempDir()
		src := NewMemSource(docs...)
		opts := Options{Path: filepath.Join(dir, "i.sqlite"), Source: src, Embedder: embed.Hash(), Logger: quietLogger(), ScanInterval: -1}
		ix, err := Open(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		ix.Sync(context.Background())
		if err := ix.WaitEmbedded(context.Background()); err != nil { // vectors stored, or the reopen queues them again
			b.Fatal(err)
		}
		ix.Close()
		for b.Loop() {
			ix, err := Open(context.Background(), opts)
			if err != nil {
				b.Fatal(err)
			}
			st, err := ix.Sync(context.Background())
			if err != nil || st.Loaded != 0 || st.Queued != 0 {
				b.Fatalf("warm reopen did work: %+v %v", st, err)
			}
			ix.Close()
		}
	})
	b.Run("incremental-1-edit/10000", func(b *testing.B) {
		ix, src := benchIndex(b, 10000, embed.Hash())
		durs := make([]time.Duration, 0, b.N)
		for i := 0; b.Loop(); i++ {
			d := docs[i%len(docs)]
			d.Description = fmt.Sprintf("edited %d %s", i, d.Description)
			src.Put(d)
			t0 := time.Now()
			st, err := ix.Sync(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(t0))
			if st.Queued != 1 || st.Loaded != 1 {
				b.Fatalf("incremental sync did %+v", st)
			}
		}
		reportLatency(b, durs)
	})
}

// BenchmarkMemory reports resident memory and Go heap with one 10k-entry
// index loaded (hash vectors, 256 dims); the loop body is a search so the
// figure includes a query's working set.
func BenchmarkMemory(b *testing.B) {
	runtime.GC()
	before := rssMB()
	ix, _ := benchIndex(b, 10000, embed.Hash())
	for b.Loop() {
		if _, err := ix.Search(context.Background(), rank.Query{Text: "redis cache failover"}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(rssMB(), "rss-MB")
	b.ReportMetric(rssMB()-before, "rss-delta-MB")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
}

// rssMB reads VmRSS of this process.
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
