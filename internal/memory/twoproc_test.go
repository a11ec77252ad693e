//go:build unix

package memory

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestTwoWritersOneDataDir opens two stores on one data dir, as two sidecars
// (or a sidecar and a tool) would: intention ids are never reused. flock
// locks belong to open files, so two stores in one process conflict exactly
// as two processes do.
func TestTwoWritersOneDataDir(t *testing.T) {
	ctx := context.Background()
	a := newTestStore(t)
	b, err := Open(Config{DataDir: a.DataDir(), Now: a.now, Logger: a.log})
	if err != nil {
		t.Fatal(err)
	}
	const each = 60
	ids := make(chan string, 2*each)
	var wg sync.WaitGroup
	for _, s := range []*Store{a, b} {
		wg.Add(1)
		go func(s *Store) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				it, err := s.Intentions().Add(ctx, IntentionInput{What: fmt.Sprintf("task %d", i)})
				if err != nil {
					t.Error(err)
					return
				}
				ids <- it.Entry.Name
			}
		}(s)
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("intention id %s given out twice", id)
		}
		seen[id] = true
	}
	open, _, err := a.Intentions().List(ctx)
	if err != nil || len(open) != 2*each {
		t.Fatalf("%d open intentions on disk, want %d (%v)", len(open), 2*each, err)
	}

}
