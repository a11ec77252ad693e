package assoc

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/index/rank"
)

var benchCues = []string{
	"redis-cli CONFIG GET maxmemory-policy on the cache cluster",
	"kubectl rollout undo deployment/api after failed deploy",
	"数据库慢查询需要加索引吗",
	"psql -h db-node-420 -c 'select 1'",
	"why is the kafka consumer lagging after the deploy",
	"帮我看看灰度发布的回滚步骤",
}

// BenchmarkThought measures one associative gate decision at 1k and 10k
// entries with the hash embedder, including embedding the cue (cached
// after the first time a session sees it, as in production) — a fresh
// session per op, so habituation never short-cuts the work.
func BenchmarkThought(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, cached := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d/cue-cached=%v", n, cached), func(b *testing.B) {
				ix, err := index.Open(context.Background(), index.Options{
					Path: filepath.Join(b.TempDir(), "index.sqlite"), Source: index.NewMemSource(rank.SyntheticDocs(n, 1)...),
					Embedder: embed.Hash(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), ScanInterval: -1})
				if err != nil {
					b.Fatal(err)
				}
				defer ix.Close()
				if _, err := ix.Sync(context.Background()); err != nil {
					b.Fatal(err)
				}
				g := New(ix, Config{}, nil)
				durs := make([]time.Duration, 0, b.N)
				for i := 0; b.Loop(); i++ {
					session := fmt.Sprint("s", i)
					if cached {
						session = "same"
					}
					t0 := time.Now()
					if _, err := g.Thought(context.Background(), session, benchCues[i%len(benchCues)]); err != nil {
						b.Fatal(err)
					}
					durs = append(durs, time.Since(t0))
					if cached {
						g.mu.Lock()
						clear(g.session("same").hinted)
						g.mu.Unlock()
					}
				}
				sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
				b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(durs[len(durs)*99/100].Microseconds())/1000, "p99-ms")
			})
		}
	}
}
