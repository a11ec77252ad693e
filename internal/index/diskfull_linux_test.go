//go:build linux

package index

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/testutil"
)

// TestDiskFullCache: the notes live on a disk with space, the cache file
// on one that fills after it was opened. A sync whose rows the cache file
// refuses still publishes what it read, says so once, and the first write
// once space is back (the next sync, else Close) leaves a file that a
// restart reads whole: every entry, no row of a note removed meanwhile,
// every vector, nothing read or embedded again.
func TestDiskFullCache(t *testing.T) {
	ctx := context.Background()
	note := func(i int) string { return fmt.Sprintf("note-%03d", i) }
	add := func(from, to int) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			for i := from; i < to; i++ {
				mustWrite(t, root, "knowledge", note(i), fmt.Sprintf("runbook for service topic%03d", i),
					strings.Repeat("check the dashboard, then the deploy log, then roll back. ", 4))
			}
		}
	}
	tests := []struct {
		name      string
		emb       string                             // "off", "hash", or "gated": hash, held until the disk is full
		before    int                                // notes synced while there is space
		whileFull func(t *testing.T, root string)    // what changes once the disk is full
		afterFree func(t *testing.T, ix *Index) bool // what runs once space is back; false: nothing else
		want      []int                              // the notes indexed in the end
	}{
		{name: "first sync", emb: "off", whileFull: add(0, 120), want: span(0, 120)},
		{name: "notes removed and added", emb: "off", before: 60, whileFull: func(t *testing.T, root string) {
			for i := 10; i < 20; i++ {
				if err := os.RemoveAll(filepath.Join(root, "knowledge", note(i))); err != nil {
					t.Fatal(err)
				}
			}
			add(60, 80)(t, root)
		}, want: append(span(0, 10), span(20, 80)...)},
		{name: "vectors", emb: "hash", whileFull: add(0, 120), want: span(0, 120)},
		{name: "vectors alone", emb: "gated", before: 120, whileFull: func(*testing.T, string) {}, want: span(0, 120)},
		{name: "space back by Close", emb: "off", whileFull: add(0, 120), afterFree: func(*testing.T, *Index) bool { return false },
			want: span(0, 120)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, disk := t.TempDir(), testutil.SmallDisk(t, 2<<20)
			var emb embed.Embedder = embed.Off()
			gate := make(chan struct{})
			switch tc.emb {
			case "hash":
				emb = embed.Hash()
			case "gated": // rows written with space, their vectors once it is gone
				emb = &gatedEmbedder{Embedder: embed.Hash(), gate: gate}
			}
			var logs logBuffer
			open := func() *Index {
				ix, err := Open(ctx, Options{Path: filepath.Join(disk, "index.sqlite"), Source: dirSource{root},
					Embedder: emb, ScanInterval: -1, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
				if err != nil {
					t.Fatal(err)
				}
				return ix
			}
			ix := open()
			add(0, tc.before)(t, root)
			if _, err := ix.Sync(ctx); err != nil {
				t.Fatal(err)
			}

			free := testutil.FillDisk(t, disk)
			close(gate)
			tc.whileFull(t, root)
			for range 3 {
				if _, err := ix.Sync(ctx); err != nil {
					t.Fatalf("sync on a full disk: %v", err)
				}
				if err := ix.WaitEmbedded(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if got := ix.Status().Entries; got != len(tc.want) {
				t.Errorf("entries on a full disk = %d, want %d", got, len(tc.want))
			}
			last := note(tc.want[len(tc.want)-1])
			if hits, err := ix.Search(ctx, rank.Query{Text: last}); err != nil || len(hits) == 0 || hits[0].Doc.Name != last {
				t.Errorf("search %s on a full disk: %v %v", last, names(hits), err)
			}
			if c := strings.Count(logs.String(), "index cache not written"); c != 1 {
				t.Errorf("the cache failure was logged %d times, want once:\n%s", c, logs.String())
			}

			free()
			if tc.afterFree == nil || tc.afterFree(t, ix) {
				if _, err := ix.Sync(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(logs.String(), "index cache written again") {
				t.Errorf("no line says the cache was written again:\n%s", logs.String())
			}

			// the restart reads the file alone
			counting := &countingEmbedder{Embedder: embed.Hash()}
			if tc.emb != "off" {
				emb = counting
			}
			ix = open()
			defer ix.Close()
			if st := ix.Status(); st.Entries != len(tc.want) || (tc.emb != "off" && st.Embedded != len(tc.want)) {
				t.Errorf("reopened cache: %d entries, %d embedded, want %d", st.Entries, st.Embedded, len(tc.want))
			}
			st, err := ix.Sync(ctx)
			if err != nil || st.Loaded != 0 || st.Removed != 0 || st.Queued != 0 {
				t.Errorf("first sync after the restart: %+v %v, want nothing loaded, removed or queued", st, err)
			}
			if err := ix.WaitEmbedded(ctx); err != nil || counting.texts.Load() != 0 {
				t.Errorf("the restart embedded %d texts (%v), want none", counting.texts.Load(), err)
			}
		})
	}
}

// span is the notes from, …, to-1.
func span(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// gatedEmbedder embeds once gate is closed.
type gatedEmbedder struct {
	embed.Embedder
	gate chan struct{}
}

func (g *gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Embedder.Embed(ctx, texts)
}

func (g *gatedEmbedder) Calibration() embed.Calibration { return embed.CalibrationOf(g.Embedder) }
