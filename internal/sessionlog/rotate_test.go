package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/testutil"
)

// logsOnDisk lists the .md logs directly in session-log/, with their parsed form.
func logsOnDisk(t *testing.T, s *Logs) map[string]*Log {
	t.Helper()
	paths, err := s.logFilesIn(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Log{}
	for _, p := range paths {
		l, err := s.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = l
	}
	return out
}

// TestRotationSpareNeverSeen: a session near its log's size limit has its
// next log made in the background, locked, before it is needed. Nobody
// lists, recovers or archives that successor while it is empty — not this
// process, not another — and a session that ends before using it leaves
// no empty log behind. Every log that did receive blocks starts at its
// first block's time, whenever its file was made.
func TestRotationSpareNeverSeen(t *testing.T) {
	var mu sync.Mutex
	now := testutil.FixedNow
	tick := func() time.Time { // every reading a second later
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	st, err := memory.Open(memory.Config{DataDir: t.TempDir(), Now: tick, Logger: testutil.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	s := New(st)
	c := s.Capture()
	other := secondLogs(t, s)
	msg := strings.Repeat("w", 1000)
	appended := 0
	for i := 0; i < 80; i++ {
		if _, err := c.Append("s", "user", msg, "", "", ""); err != nil {
			t.Fatal(err)
		}
		appended++
		for _, l := range []*Logs{s, other} {
			pending, err := l.Pending()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pending {
				if lg, _ := l.Read(p); lg == nil || len(lg.Blocks) == 0 || lg.Status() != StatusPending {
					t.Fatalf("after %d appends Pending lists %s, which is not a finalised log with blocks", appended, p)
				}
			}
		}
		if done, err := other.Capture().RecoverCrashed(); err != nil || len(done) != 0 {
			t.Fatalf("another process recovered %v (%v): a live writer's logs are locked", done, err)
		}
	}
	if _, err := c.Close("s"); err != nil {
		t.Fatal(err)
	}
	logs := logsOnDisk(t, s)
	if len(logs) < 3 {
		t.Fatalf("expected rotations, have %d logs", len(logs))
	}
	total := 0
	for p, l := range logs {
		if len(l.Blocks) == 0 {
			t.Errorf("%s has no blocks: a spare outlived its session", filepath.Base(p))
			continue
		}
		total += len(l.Blocks)
		if got, want := l.Meta.Value("start_time"), l.Blocks[0].Time; got != want {
			t.Errorf("%s start_time %s, first block %s", filepath.Base(p), got, want)
		}
		if l.Status() != StatusPending || l.Meta.Value("message_count") != fmt.Sprint(len(l.Blocks)) {
			t.Errorf("%s not finalised: status %q count %q blocks %d", filepath.Base(p), l.Status(), l.Meta.Value("message_count"), len(l.Blocks))
		}
	}
	if total != appended {
		t.Errorf("%d blocks on disk, %d appended", total, appended)
	}
}

// TestSpareOfAnEarlierDayIsNotUsed: a successor made before midnight is
// dropped when the rotation happens on the next day; the new log is named
// for the day its first block is written.
func TestSpareOfAnEarlierDayIsNotUsed(t *testing.T) {
	now := testutil.FixedNow
	st, err := memory.Open(memory.Config{DataDir: t.TempDir(), Now: func() time.Time { return now }, Logger: testutil.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	s := New(st)
	c := s.Capture()
	msg := strings.Repeat("d", 1000)
	for i := 0; i < 20; i++ { // past three quarters, not yet rotated
		if _, err := c.Append("s", "user", msg, "", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(24 * time.Hour)
	for i := 0; i < 10; i++ {
		if _, err := c.Append("s", "user", msg, "", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Close("s"); err != nil {
		t.Fatal(err)
	}
	day2 := now.Format("2006-01-02")
	found := false
	for p, l := range logsOnDisk(t, s) {
		if len(l.Blocks) == 0 {
			t.Errorf("%s has no blocks", filepath.Base(p))
		}
		// A log goes on past midnight until it rotates (as it always has);
		// one that starts on the second day is named for it.
		if strings.HasPrefix(filepath.Base(p), day2) {
			found = true
		}
		if len(l.Blocks) > 0 && strings.HasPrefix(l.Blocks[0].Time, day2) && !strings.HasPrefix(filepath.Base(p), day2) {
			t.Errorf("%s starts on %s but is named for the day before", filepath.Base(p), l.Blocks[0].Time)
		}
	}
	if !found {
		t.Error("no log named for the second day")
	}
}

// TestLiveLogMovedByHand: a person who moves a live log away does not get
// the session's later messages in a headerless file at the old name; once
// the move is seen (at most pathCheckEvery later) the session goes on in a
// new log with a header, and the moved file keeps what it had.
func TestLiveLogMovedByHand(t *testing.T) {
	s := newTestLogs(t)
	c := s.Capture()
	if _, err := c.Append("s", "user", "before the move", "", "", ""); err != nil {
		t.Fatal(err)
	}
	var live string
	for p := range logsOnDisk(t, s) {
		live = p
	}
	moved := filepath.Join(t.TempDir(), "moved.md")
	if err := os.Rename(live, moved); err != nil {
		t.Fatal(err)
	}
	time.Sleep(pathCheckEvery + 10*time.Millisecond)
	if _, err := c.Append("s", "user", "after the move", "", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Close("s"); err != nil {
		t.Fatal(err)
	}
	logs := logsOnDisk(t, s)
	if len(logs) != 1 {
		t.Fatalf("want the one new log, have %d", len(logs))
	}
	for p, l := range logs {
		if l.Meta.Value("session_id") == "" || len(l.Blocks) != 1 || l.Blocks[0].Text != "after the move" {
			t.Errorf("%s: header %v, blocks %v", p, l.Meta.Keys(), l.Blocks)
		}
	}
	if got := testutil.ReadFile(t, moved); !strings.Contains(got, "before the move") || strings.Contains(got, "after the move") {
		t.Errorf("moved file:\n%s", got)
	}
}

// TestLogNumbersWithTwoWriters: two processes creating logs on one day
// never share a number, and neither reuses an archived one, although each
// remembers where it stopped instead of listing the folder every time.
func TestLogNumbersWithTwoWriters(t *testing.T) {
	a := newTestLogs(t)
	b := secondLogs(t, a)
	ca, cb := a.Capture(), b.Capture()
	for i := 0; i < 6; i++ {
		for w, c := range []*Capture{ca, cb} {
			id := fmt.Sprintf("s%d-%d", i, w) // distinct: a session would go on in its earlier log
			if _, err := c.Append(id, "user", "hello "+id, "", "", ""); err != nil {
				t.Fatal(err)
			}
			p, err := c.Close(id)
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				if _, err := a.MarkProcessed(p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, dir := range []string{a.dir, filepath.Join(a.dir, "archived")} {
		des, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			if de.IsDir() {
				continue
			}
			if seen[de.Name()] {
				t.Errorf("%s is both pending and archived", de.Name())
			}
			seen[de.Name()] = true
		}
	}
	if len(seen) != 12 {
		t.Errorf("%d logs for 12 sessions: %v", len(seen), seen)
	}
}
