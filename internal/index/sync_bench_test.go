package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// BenchmarkWatchedRecall measures recall latency at 10k entries on disk
// with the watcher on, as the sidecar runs it: every recall reinforces
// the entries it returned, i.e. rewrites their files with a new score
// (atomically, like memory's writer), and the next recall must pick that
// up. "no-write" is the same index with nothing written between searches.
// "plain" sources handle the rewrites by stat; "subtree" ones implement
// SubtreeScanner. The writes and the wait for their events are outside
// the measured search time; p50/p99 are of Search alone, loads/op counts
// the files re-read per search.
func BenchmarkWatchedRecall(b *testing.B) {
	const n = 10000
	root := b.TempDir()
	docs := rank.SyntheticDocs(n, 1)
	paths := make(map[string]int, n) // file path → index into docs
	for i, d := range docs {
		p := filepath.Join(root, "knowledge", d.Name, "SKILL.md")
		writeAtomic(b, p, noteText(d.Name, d.Description, d.Body, d.Score))
		paths[p] = i
	}
	for _, tc := range []struct {
		name      string
		reinforce bool
		subtree   bool
		emb       func() embed.Embedder
	}{
		{"keyword/no-write", false, false, embed.Off},
		{"keyword/reinforce-plain", true, false, embed.Off},
		{"keyword/reinforce-subtree", true, true, embed.Off},
		{"vector/no-write", false, false, embed.Hash},
		{"vector/reinforce-plain", true, false, embed.Hash},
	} {
		b.Run(fmt.Sprintf("%s/%d", tc.name, n), func(b *testing.B) {
			ctx := context.Background()
			ts := &trackedSource{dirSource: dirSource{root}}
			var src Source = ts
			if tc.subtree {
				src = subtreeSource{ts}
			}
			ix, err := Open(ctx, Options{Path: filepath.Join(b.TempDir(), "i.sqlite"), Source: src,
				Embedder: tc.emb(), Logger: quietLogger(), WatchDirs: []string{root}})
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			if !ix.Watching() {
				b.Skip("no inotify here")
			}
			if _, err := ix.Sync(ctx); err != nil {
				b.Fatal(err)
			}
			vecs := make([][]float32, len(benchQueries))
			for i, q := range benchQueries {
				vecs[i], _ = ix.EmbedQuery(ctx, q) // the embedder's own time is not recall's
			}
			c0 := ix.Counters()
			durs := make([]time.Duration, 0, 1024)
			for i := 0; b.Loop(); i++ {
				q := rank.Query{Text: benchQueries[i%len(benchQueries)], Vector: vecs[i%len(vecs)], Limit: 10}
				t0 := time.Now()
				hits, err := ix.Search(ctx, q)
				durs = append(durs, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				if !tc.reinforce {
					continue
				}
				b.StopTimer()
				for _, h := range hits {
					d := &docs[paths[h.Doc.Path]]
					d.Score = min(1, d.Score+0.01)
					writeAtomic(b, h.Doc.Path, noteText(d.Name, d.Description, d.Body, d.Score))
				}
				for _, h := range hits {
					waitRecorded(b, ix, h.Doc.Path)
				}
				b.StartTimer()
			}
			reportLatency(b, durs)
			d := counterDelta(c0, ix.Counters())
			b.ReportMetric(float64(d.Loaded)/float64(len(durs)), "loads/op")
			b.ReportMetric(float64(d.Embedded), "embeds")
			b.ReportMetric(float64(d.FullScans), "full-scans")
			b.ReportMetric(0, "ns/op") // the loop includes untimed writes; p50/p99 are the numbers
		})
	}
}
