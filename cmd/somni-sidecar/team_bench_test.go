package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkTeamPool is what a mounted team pool costs: 10,000 personal
// notes alone, then with a pool of 10,000 more (--team), each a start that
// reads the index cache built by the start before. ready-ms is spawn →
// first answered index.sync (the whole index loaded and checked against
// the files), recall-p50-ms the recall tool over the fixed query set, rss-MB
// the resident memory after the recalls. Release build (SOMNI_BENCH_BIN).
func BenchmarkTeamPool(b *testing.B) {
	const n = 10000
	personal := corpusOf(b, n, 15)
	pool := filepath.Join(corpusOf(b, n, 16), "memory")
	for _, tc := range []struct {
		name  string
		extra []string
	}{
		{"pools=0", nil},
		{"pools=1", []string{"--team", "bench=" + pool}},
	} {
		b.Run(fmt.Sprintf("notes=%d/%s", n, tc.name), func(b *testing.B) {
			args := append(sidecarArgs(personal), tc.extra...)
			for _, s := range []string{"", "-wal", "-shm"} {
				os.Remove(filepath.Join(personal, "index.sqlite"+s))
			}
			sync := `{"jsonrpc":"2.0","id":1,"method":"index.sync","params":{"reason":"bench"}}`
			first, _ := spawnLine(b, benchBin(), args...)
			if reply := first.roundTrip(b, sync); !strings.Contains(reply, `"ok":true`) {
				b.Fatalf("index.sync: %s", reply)
			}
			first.stop()
			side, t0 := spawnLine(b, benchBin(), args...)
			defer side.stop()
			if reply := side.roundTrip(b, sync); !strings.Contains(reply, `"ok":true`) {
				b.Fatalf("index.sync: %s", reply)
			}
			ready := time.Since(t0)
			queries := benchQueries(64)
			var ds []time.Duration
			for i := 0; b.Loop(); i++ {
				t := time.Now()
				reply := side.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools.call","params":{"name":"recall_memories","args":{"query":%q,"limit":5}}}`, i+3, queries[i%len(queries)]))
				ds = append(ds, time.Since(t))
				if !strings.Contains(reply, `"result"`) {
					b.Fatalf("recall failed: %s", reply)
				}
			}
			if tc.extra != nil {
				got := side.roundTrip(b, `{"jsonrpc":"2.0","id":2,"method":"tools.call","params":{"name":"search_knowledge","args":{"query":"zzsentinel","limit":10}}}`)
				if !strings.Contains(got, "team bench") {
					b.Fatalf("the pool's entries are not recalled: %s", got)
				}
			}
			rss, _ := procMemMB(b, side.cmd.Process.Pid)
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(ms(ready), "ready-ms")
			b.ReportMetric(ms(percentile(ds, 0.5)), "recall-p50-ms")
			b.ReportMetric(rss, "rss-MB")
		})
	}
}
