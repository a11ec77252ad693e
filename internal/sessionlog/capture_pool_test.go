package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/testutil"
)

// smallPool bounds c to max open logs, as maxOpenLogs does at scale.
func smallPool(c *Capture, max int) {
	c.pool.mu.Lock()
	c.pool.max = max
	c.pool.mu.Unlock()
}

// held is how many slots c's writers hold.
func held(c *Capture) int {
	c.pool.mu.Lock()
	defer c.pool.mu.Unlock()
	return c.pool.held
}

// sessionPath is the log session id writes (or wrote, before its log was
// closed to bound descriptors).
func sessionPath(c *Capture, id string) string {
	c.mu.Lock()
	w := c.sessions[id]
	c.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.path
}

// marks lists the names in session-log/.live that mark a log.
func marksOnDisk(t *testing.T, s *Logs) []string {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(s.dir, liveDirName))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), ownerPrefix) {
			out = append(out, de.Name())
		}
	}
	return out
}

// texts is every block's text in the logs of dirs, by log file name.
func texts(t *testing.T, s *Logs, dirs ...string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, d := range dirs {
		paths, err := s.logFilesIn(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			l, err := s.Read(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Blocks) == 0 {
				t.Errorf("%s holds no block", filepath.Base(p))
			}
			for _, b := range l.Blocks {
				out[filepath.Base(p)] = append(out[filepath.Base(p)], b.Text)
			}
		}
	}
	return out
}

// TestLogsClosedToBoundDescriptors runs sessions past a bound of two open
// logs, so each message reopens its session's log that another session's
// message closed. Every message lands in its session's one log, in order;
// no more than two logs are open at once; and a log closed that way is
// live all the same: another store neither lists it pending, nor archives
// it, nor recovers it as a crash leftover. What may happen to a log while
// it is closed — this process's dream archives it, a person moves it, the
// session is closed — leaves the session's next message in a new log.
func TestLogsClosedToBoundDescriptors(t *testing.T) {
	const sessions, rounds = 5, 4
	tests := []struct {
		name string
		// meanwhile acts on session s-0's log, closed by the bound.
		meanwhile func(t *testing.T, s *Logs, c *Capture, path string)
		// newLog: s-0's next message starts a new log.
		newLog bool
		// found is how many of s-0's messages the folder and its archive hold.
		found int
	}{
		{"nothing happens", func(t *testing.T, s *Logs, c *Capture, path string) {
			other := secondLogs(t, s)
			if p, err := other.Pending(); err != nil || len(p) != 0 {
				t.Errorf("the other store lists live logs pending: %v %v", p, err)
			}
			if _, err := other.MarkProcessed(path); err == nil || !strings.Contains(err.Error(), "another process") {
				t.Errorf("the other store archived a live log: %v", err)
			}
			if got, err := other.Capture().RecoverCrashed(); err != nil || len(got) != 0 {
				t.Errorf("the other store recovered live logs: %v %v", got, err)
			}
		}, false, rounds + 1},
		{"archived by this process's dream", func(t *testing.T, s *Logs, c *Capture, path string) {
			if _, err := s.MarkProcessed(path); err != nil {
				t.Fatal(err)
			}
		}, true, rounds + 1},
		{"moved away by hand", func(t *testing.T, s *Logs, c *Capture, path string) {
			if err := os.Rename(path, filepath.Join(t.TempDir(), "moved.md")); err != nil {
				t.Fatal(err)
			}
		}, true, 1},
		{"closed", func(t *testing.T, s *Logs, c *Capture, path string) {
			if _, err := c.Close("s-0"); err != nil {
				t.Fatal(err)
			}
			if got := testutil.ReadFile(t, path); !strings.Contains(got, "status: pending") || !strings.Contains(got, "message_count: "+strconv.Itoa(rounds)) {
				t.Errorf("closed while its log was closed, the log is not final:\n%s", got)
			}
		}, true, rounds + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestLogs(t)
			c := s.Capture()
			smallPool(c, 2)
			say := func(i, r int) {
				t.Helper()
				if _, err := c.Append(fmt.Sprintf("s-%d", i), "user", fmt.Sprintf("s-%d r-%d", i, r), "", "", ""); err != nil {
					t.Fatal(err)
				}
				if n := held(c); n > 2 {
					t.Fatalf("%d logs open, bound 2", n)
				}
			}
			for r := 0; r < rounds; r++ {
				for i := 0; i < sessions; i++ {
					say(i, r)
				}
			}
			path := sessionPath(c, "s-0")
			if !strings.Contains(strings.Join(marksOnDisk(t, s), " "), filepath.Base(path)) {
				t.Fatalf("s-0's log, closed by the bound, is not marked live: %v", marksOnDisk(t, s))
			}
			if got := testutil.ReadFile(t, path); strings.Contains(got, "status:") {
				t.Fatalf("a live log has a status:\n%s", got)
			}
			tc.meanwhile(t, s, c, path)
			say(0, rounds)
			if moved := sessionPath(c, "s-0") != path; moved != tc.newLog {
				t.Errorf("s-0 went on in a new log: %v, want %v", moved, tc.newLog)
			}
			c.CloseAll()
			if m := marksOnDisk(t, s); len(m) != 0 {
				t.Errorf("marks left once every session closed: %v", m)
			}
			byLog := texts(t, s, s.dir, filepath.Join(s.dir, "archived"))
			for i := 0; i < sessions; i++ {
				var logs []string
				var got []string
				for name, ts := range byLog {
					if strings.HasPrefix(ts[0], fmt.Sprintf("s-%d ", i)) {
						logs = append(logs, name)
						got = append(got, ts...)
					}
				}
				want := rounds
				if i == 0 {
					want = tc.found
				}
				if len(got) != want {
					t.Errorf("s-%d: %d messages in %v, want %d: %v", i, len(got), logs, want, got)
				}
				if i != 0 && len(logs) != 1 {
					t.Errorf("s-%d wrote %d logs, want one: %v", i, len(logs), logs)
				}
			}
		})
	}
}

// TestBoundWaitsForBusyWriters runs more sessions at once than the bound
// lets hold a log: a message whose log cannot open until another session's
// append is done waits for it, and none is lost or refused.
func TestBoundWaitsForBusyWriters(t *testing.T) {
	tests := []struct {
		name               string
		max, sessions, per int
	}{
		{"one log open, eight sessions", 1, 8, 40},
		{"three open, twelve sessions", 3, 12, 25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestLogs(t)
			c := s.Capture()
			smallPool(c, tc.max)
			var wg sync.WaitGroup
			for i := 0; i < tc.sessions; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := 0; k < tc.per; k++ {
						if _, err := c.Append(fmt.Sprintf("s-%d", i), "user", fmt.Sprintf("s-%d #%d", i, k), "", "", ""); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			if n := held(c); n > tc.max {
				t.Errorf("%d logs open, bound %d", n, tc.max)
			}
			c.CloseAll()
			got := 0
			for _, ts := range texts(t, s, s.dir) {
				got += len(ts)
			}
			if want := tc.sessions * tc.per; got != want {
				t.Errorf("%d messages in the logs, want %d", got, want)
			}
		})
	}
}

// TestCrashWithLogsClosedToBoundDescriptors kills a writer with SIGKILL
// while most of its sessions' logs are closed to bound descriptors and
// marked live. The marks die with it: recovery finalises every log (all
// of its complete blocks kept) and clears their marks.
func TestCrashWithLogsClosedToBoundDescriptors(t *testing.T) {
	const sessions = 12
	if dir := os.Getenv("SOMNI_SESSIONLOG_BOUND_CRASH_DIR"); dir != "" {
		boundCrashWriter(dir, sessions)
		return
	}
	dir := t.TempDir()
	ready := func() bool { // every session has a log, and some are closed
		des, _ := os.ReadDir(filepath.Join(dir, "memory", "session-log", liveDirName))
		logs, _ := filepath.Glob(filepath.Join(dir, "memory", "session-log", "*.md"))
		return len(des) > 2 && len(logs) >= sessions
	}
	testutil.CrashRounds(t, "SOMNI_SESSIONLOG_BOUND_CRASH_DIR", dir, 3, ready, func(round int, childStderr string) {
		st, err := memory.Open(memory.Config{DataDir: dir, Logger: testutil.QuietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		l := New(st)
		if _, err := l.Capture().RecoverCrashed(); err != nil {
			t.Fatalf("round %d: recover: %v", round, err)
		}
		files, _ := l.Files(t.Context(), false)
		if len(files) < sessions {
			t.Fatalf("round %d: %d logs, want %d or more (child stderr: %s)", round, len(files), sessions, childStderr)
		}
		for _, f := range files {
			log, err := l.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(log.Blocks) == 0 || log.Status() != StatusPending {
				t.Fatalf("round %d: %s after recovery: %d blocks, status %q", round, f, len(log.Blocks), log.Status())
			}
			for i, b := range log.Blocks[:len(log.Blocks)-1] {
				if !strings.HasPrefix(b.Text, "message ") {
					t.Fatalf("%s block %d: %q", f, i, b.Text)
				}
			}
		}
		if m := marksOnDisk(t, l); len(m) != 0 {
			t.Fatalf("round %d: marks of a dead process left after recovery: %v", round, m)
		}
	})
}

func boundCrashWriter(dir string, sessions int) {
	st, err := memory.Open(memory.Config{DataDir: dir, Logger: testutil.QuietLogger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	c := New(st).Capture()
	smallPool(c, 3)
	for v := 0; ; v++ {
		if _, err := c.Append(fmt.Sprintf("s-%d", v%sessions), "user", fmt.Sprintf("message %d", v), "", "", ""); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}

// BenchmarkSessionAppendEvicted appends in turn to sessions fewer than the
// bound (each log stays open) and more (each append reopens its log): the
// cost of a reopen, which maxOpenLogs weighs against descriptors.
func BenchmarkSessionAppendEvicted(b *testing.B) {
	msg := "Could you check why the CI docker build fails with the BuildKit cache mount error again?"
	for _, tc := range []struct {
		name     string
		sessions int
	}{
		{"open", maxOpenLogs / 2},
		{"reopened", maxOpenLogs * 2},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := newTestLogs(b).Capture()
			open := func() { // logs made outside the timer
				for i := 0; i < tc.sessions; i++ {
					if _, err := c.Append(fmt.Sprintf("s-%d", i), "user", msg, "", "", ""); err != nil {
						b.Fatal(err)
					}
				}
			}
			open()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// New logs before a spare is made or a log rotates: both
				// would add creates to what is measured.
				if i%tc.sessions == 0 && i > 0 && (i/tc.sessions)%30 == 0 {
					b.StopTimer()
					c.CloseAll()
					open()
					b.StartTimer()
				}
				if _, err := c.Append(fmt.Sprintf("s-%d", i%tc.sessions), "user", msg, "", "", ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
