package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/somni-dev/somni/internal/index/rank"
)

// BenchmarkOpenCache is what a start pays to read an index of n entries
// back from its cache (--embed off, MemSource docs): from the snapshot
// the last Close wrote, and from the SQLite rows with their lexical views
// (the snapshot removed before each open). Open only: no listing, no sync.
func BenchmarkOpenCache(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		docs := rank.SyntheticDocs(n, 1)
		dir := b.TempDir()
		opts := Options{Path: filepath.Join(dir, "i.sqlite"), Source: NewMemSource(docs...), Logger: quietLogger(), ScanInterval: -1}
		ix, err := Open(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
		ix.Close()
		snap := opts.Path + "-snap"
		keep := filepath.Join(dir, "keep-snap")
		if err := os.Rename(snap, keep); err != nil {
			b.Fatal(err)
		}
		for _, from := range []string{"snapshot", "rows"} {
			b.Run(fmt.Sprintf("%s/%d", from, n), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					os.Remove(snap)
					if from == "snapshot" {
						if err := os.Link(keep, snap); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
					ix, err := Open(context.Background(), opts)
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					if got := ix.snapID != ""; got != (from == "snapshot") || ix.Cached() != n {
						b.Fatalf("opened from the snapshot: %v, %d entries", got, ix.Cached())
					}
					ix.Close() // unchanged: writes no snapshot
					b.StartTimer()
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/open")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
