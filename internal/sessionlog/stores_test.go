package sessionlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/testutil"
)

// TestRestartContinuesTheSessionLog: a sidecar restarted mid-conversation
// (the host respawns it) keeps writing the session's log instead of
// splitting one conversation over two files.
func TestRestartContinuesTheSessionLog(t *testing.T) {
	a := newTestLogs(t)
	if _, err := a.Capture().Append("chat-7", "user", "first half of the turn", "", "", ""); err != nil {
		t.Fatal(err)
	}
	a.Capture().CloseAll() // what shutdown does
	b := secondLogs(t, a)
	if _, err := b.Capture().Append("chat-7", "agent", "second half", "", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Capture().Append("other-chat", "user", "a different conversation", "", "", ""); err != nil {
		t.Fatal(err)
	}
	b.Capture().CloseAll()
	logs, _ := b.Files(context.Background(), false)
	if len(logs) != 2 {
		t.Fatalf("logs %v, want one for chat-7 and one for other-chat", logs)
	}
	l, err := b.Read(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Blocks) != 2 || !strings.Contains(l.Blocks[1].Text, "second half") || l.Meta.Value("message_count") != "2" {
		t.Fatalf("the session did not continue in its log: %d blocks, count %s\n%s", len(l.Blocks), l.Meta.Value("message_count"), l.Raw)
	}
	// Once this process closed it, the session starts a new log (a dream may be archiving the old one).
	if _, err := b.Capture().Append("chat-7", "user", "after close", "", "", ""); err != nil {
		t.Fatal(err)
	}
	b.Capture().CloseAll()
	if logs, _ := b.Files(context.Background(), false); len(logs) != 3 {
		t.Fatalf("logs after a close in the same process: %v", logs)
	}
}

// TestMarkLogProcessedOnlyLogs: the dreamer may only archive what Pending would list — not an
// in-flight temp file of an atomic write, nor a user's non-log file that happens to sit in session-log/.
func TestMarkLogProcessedOnlyLogs(t *testing.T) {
	for _, name := range []string{".2026-11-30_001.md.tmp-123", "notes.txt", ".hidden.md"} {
		t.Run(name, func(t *testing.T) {
			s := newTestLogs(t)
			p := filepath.Join(s.st.MemoryDir(), "session-log", name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("keep me\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := s.MarkProcessed(name); !errors.Is(err, memory.ErrInvalid) {
				t.Errorf("MarkProcessed(%q) = %v, want memory.ErrInvalid", name, err)
			}
			if got := testutil.ReadFile(t, p); got != "keep me\n" {
				t.Errorf("file changed: %q", got)
			}
		})
	}
}

// TestNewLogLockedFromItsFirstMoment opens sessions in one store while the
// other lists pending logs as fast as it can: a log is locked before its
// name appears, so the other side never takes a live log for a pending one.
func TestNewLogLockedFromItsFirstMoment(t *testing.T) {
	a := newTestLogs(t)
	b := secondLogs(t, a)
	done := make(chan struct{})
	var seen []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			p, err := b.Pending()
			if err != nil {
				t.Error(err)
				return
			}
			seen = append(seen, p...)
		}
	}()
	c := a.Capture()
	for i := 0; i < 300; i++ {
		if _, err := c.Append(fmt.Sprintf("chat-%d", i), "user", "hello", "", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	// The writers must outlive the listing: once c is unreachable the GC
	// may finalise their files, which drops their locks, as a process that
	// ends does; a live sidecar's capture is never unreachable.
	runtime.KeepAlive(c)
	if len(seen) > 0 {
		t.Fatalf("the other store listed %d live logs as pending, e.g. %s", len(seen), filepath.Base(seen[0]))
	}
}

func BenchmarkCaptureAppend(b *testing.B) {
	s := newTestLogs(b)
	c := s.Capture()
	msg := "Could you check why the CI docker build fails with the BuildKit cache mount error again?"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Append("bench", "user", msg, "alice", "p2p", ""); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	c.CloseAll()
}

// TestTwoWritersOneLog opens two stores on one data dir, as two sidecars
// (or a sidecar and a tool) would: a log one side's live session holds is
// neither pending for nor archivable by the other side's dream. flock locks
// belong to open files, so two stores in one process conflict exactly as two
// processes do.
func TestTwoWritersOneLog(t *testing.T) {
	ctx := context.Background()
	a := newTestLogs(t)
	b := secondLogs(t, a)

	if _, err := a.Capture().Append("chat", "user", "held by a", "", "", ""); err != nil {
		t.Fatal(err)
	}
	pending, err := b.Pending()
	if err != nil || len(pending) != 0 {
		t.Fatalf("the other store sees a live log as pending: %v %v", pending, err)
	}
	logs, _ := a.Files(ctx, false)
	if len(logs) != 1 {
		t.Fatalf("logs %v", logs)
	}
	if _, err := b.MarkProcessed(logs[0]); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Fatalf("the other store archived a live log: %v", err)
	}
	if _, err := a.Capture().Close("chat"); err != nil {
		t.Fatal(err)
	}
	if pending, _ := b.Pending(); len(pending) != 1 {
		t.Fatalf("after close the log is pending for the other store: %v", pending)
	}
}
