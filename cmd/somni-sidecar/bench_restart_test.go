package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRestart measures what growing from 10k to 100k short notes
// (15 words, --embed off) costs on a usual start, one whose index cache
// exists: sync-ms is spawn → the first index.sync reply (target ≤ 1000 at
// 100k), which answers once the index read from the cache has been
// reconciled with the files; recall-ms is spawn → the first recall's
// reply on a start asked nothing else first (target ≤ 100 at any size:
// answered from the cache while it is reconciled); rss-MB the
// resident memory after 50 recalls sent at once after the sync (start-up
// housekeeping may still run), rss-later-MB after 50 more sent 3 s later
// (what a session's recalls meet), first-peak-MB the high-water mark of
// the start that built the cache. KB/note and KB/note-later (the larger
// sizes) are the resident growth per note from 10k (target ≤ 2). Medians
// of the iterations; the release build when scripts/bench.sh passes
// SOMNI_BENCH_BIN. SOMNI_BENCH_MEMPROFILE=dir writes each size's heap
// profile there, at the later point (go tool pprof -sample_index=inuse_space).
// SOMNI_BENCH_RESTART=10000,50000 picks the sizes.
func BenchmarkRestart(b *testing.B) {
	rss, later := map[int]float64{}, map[int]float64{}
	sizes := []int{10000, 50000, 100000}
	if v := os.Getenv("SOMNI_BENCH_RESTART"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
				sizes = append(sizes, n)
			}
		}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			dir := corpusOf(b, n, 15)
			for _, s := range []string{"", "-wal", "-shm", "-snap"} {
				os.Remove(dir + "/index.sqlite" + s) // a first start builds it
			}
			first := startSynced(b, dir, nil)
			_, firstPeak := procMemMB(b, first.cmd.Process.Pid)
			first.stop()
			var syncs, recalls, rsss, laters []float64
			for b.Loop() {
				// a start asked a recall at once, answered from the cache
				t0 := time.Now()
				side, _ := spawnLineEnv(b, nil, benchBin(), sidecarArgs(dir)...)
				if reply := side.roundTrip(b, `{"jsonrpc":"2.0","id":1,"method":"tools.call","params":{"name":"recall_memories","args":{"query":"zzsentinel","limit":5}}}`); !strings.Contains(reply, fmt.Sprintf("entry-%05d", n-1)) {
					b.Fatalf("first recall: %.300s", reply)
				}
				recalls = append(recalls, ms(time.Since(t0)))
				side.stop()

				var env []string
				if d := os.Getenv("SOMNI_BENCH_MEMPROFILE"); d != "" {
					env = []string{fmt.Sprintf("SOMNI_MEMPROFILE=%s/heap-%d.pprof", d, n)}
				}
				t0 = time.Now()
				side = startSynced(b, dir, env)
				syncs = append(syncs, ms(time.Since(t0)))
				queries := benchQueries(100)
				for i := range 100 {
					if i == 50 {
						r, _ := procMemMB(b, side.cmd.Process.Pid)
						rsss = append(rsss, r)
						time.Sleep(3 * time.Second)
					}
					side.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools.call","params":{"name":"recall_memories","args":{"query":%q,"limit":5}}}`, i+3, queries[i]))
				}
				r, _ := procMemMB(b, side.cmd.Process.Pid)
				laters = append(laters, r)
				if env != nil {
					side.cmd.Process.Signal(syscall.SIGUSR1)
					time.Sleep(time.Second) // a collection and the write
				}
				side.stop()
			}
			rss[n], later[n] = median(rsss), median(laters)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(median(syncs), "sync-ms")
			b.ReportMetric(median(recalls), "recall-ms")
			b.ReportMetric(rss[n], "rss-MB")
			b.ReportMetric(later[n], "rss-later-MB")
			b.ReportMetric(firstPeak, "first-peak-MB")
			if n > 10000 && rss[10000] > 0 {
				b.ReportMetric((rss[n]-rss[10000])*1024/float64(n-10000), "KB/note")
				b.ReportMetric((later[n]-later[10000])*1024/float64(n-10000), "KB/note-later")
			}
		})
	}
}

// startSynced starts the sidecar on dir and waits for its first
// index.sync reply.
func startSynced(b *testing.B, dir string, env []string) *lineChild {
	b.Helper()
	side, _ := spawnLineEnv(b, env, benchBin(), sidecarArgs(dir)...)
	if reply := side.roundTrip(b, `{"jsonrpc":"2.0","id":1,"method":"index.sync","params":{"reason":"bench"}}`); !strings.Contains(reply, `"ok":true`) {
		b.Fatalf("index.sync: %s", reply)
	}
	return side
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
