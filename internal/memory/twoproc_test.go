//go:build unix

package memory

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestTwoWritersOneDataDir opens two stores on one data dir, as two sidecars
// (or a sidecar and a tool) would: intention ids are never reused, and a log
// one side's live session holds is neither pending for nor archivable by the
// other side's dream. flock locks belong to open files, so two stores in one
// process conflict exactly as two processes do.
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
				it, err := s.AddIntention(ctx, IntentionInput{What: fmt.Sprintf("task %d", i)})
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
	open, _, err := a.Intentions(ctx)
	if err != nil || len(open) != 2*each {
		t.Fatalf("%d open intentions on disk, want %d (%v)", len(open), 2*each, err)
	}

	if _, err := a.Capture().Append("chat", "user", "held by a", "", "", ""); err != nil {
		t.Fatal(err)
	}
	pending, err := b.PendingLogs()
	if err != nil || len(pending) != 0 {
		t.Fatalf("the other store sees a live log as pending: %v %v", pending, err)
	}
	logs, _ := a.SessionLogFiles(ctx, false)
	if len(logs) != 1 {
		t.Fatalf("logs %v", logs)
	}
	if _, err := b.MarkLogProcessed(logs[0]); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Fatalf("the other store archived a live log: %v", err)
	}
	if _, err := a.Capture().Close("chat"); err != nil {
		t.Fatal(err)
	}
	if pending, _ := b.PendingLogs(); len(pending) != 1 {
		t.Fatalf("after close the log is pending for the other store: %v", pending)
	}
}
