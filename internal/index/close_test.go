package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// TestCloseDuringWork closes a watched index while searches, full syncs,
// path syncs and file churn run: nothing may panic or race (run with
// -race), every call either answers or returns an error, and calls after
// Close return an error naming the closed index.
func TestCloseDuringWork(t *testing.T) {
	root := t.TempDir()
	seedNotes(t, root)
	ctx := context.Background()
	ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "index.sqlite"), Source: dirSource{root},
		Embedder: embed.Hash(), Logger: quietLogger(), WatchDirs: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	work := []func(i int){
		func(int) { ix.Search(ctx, rank.Query{Text: "billing database failover"}) },
		func(int) { ix.Sync(ctx) },
		func(int) { ix.SyncPaths(ctx, filepath.Join(root, "knowledge")) },
		func(i int) { // churn: new dirs, files, removals
			d := filepath.Join(root, "knowledge", "churn")
			os.MkdirAll(d, 0o755)
			mustWrite(t, root, "knowledge", "churn-note", "churn", strings.Repeat("x", i%7))
			if i%3 == 0 {
				os.RemoveAll(d)
			}
		},
	}
	for _, f := range work {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				f(i)
			}
		}()
	}
	for range 20 {
		ix.Search(ctx, rank.Query{Text: "redis eviction"})
	}
	if err := ix.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	close(stop)
	wg.Wait()
	if err := ix.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for name, call := range map[string]func() error{
		"Search":    func() error { _, err := ix.Search(ctx, rank.Query{Text: "x"}); return err },
		"Sync":      func() error { _, err := ix.Sync(ctx); return err },
		"SyncPaths": func() error { _, err := ix.SyncPaths(ctx, root); return err },
		"Links":     func() error { _, err := ix.Links(ctx, false); return err },
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("%s after Close: %v, want an error naming the closed index", name, err)
		}
	}
}
