package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/somni-dev/somni/internal/sessionlog"
)

// lowFileLimit is macOS's default descriptor limit, and what `ulimit -n
// 256` leaves a sidecar started from a shell: both limits, so the Go
// runtime cannot raise its own.
const lowFileLimit = 256

// limitFiles lowers the running sidecar's descriptor limits (soft and hard)
// and checks the kernel applied them: a test that believes it runs under a
// limit it does not would pass for nothing.
func limitFiles(t *testing.T, s *proc, n uint64) {
	t.Helper()
	pid := s.cmd.Process.Pid
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: n, Max: n}, nil); err != nil {
		t.Fatalf("prlimit(%d, RLIMIT_NOFILE, %d): %v", pid, n, err)
	}
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(fmt.Sprintf(`(?m)^Max open files\s+%d\s+%d\s+files`, n, n))
	if !want.Match(limits) {
		t.Fatalf("sidecar's descriptor limit not applied:\n%s", limits)
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sidecar holds %d descriptors at rest, limit %d", len(fds), n)
}

// TestManyLiveSessionsUnderLowFileLimit keeps 1,000 sessions live in one
// sidecar limited to 256 descriptors, every session appended to several
// times with all requests in flight at once. Each append must be
// acknowledged and found, once, in a log of its session; no log may be
// left with a header and no message; closing them all finalises every log.
// Midway a second sidecar starts on the same data dir: the logs the first
// closed to stay under its limit are live all the same, so the second
// counts none pending and its crash recovery finalises none.
func TestManyLiveSessionsUnderLowFileLimit(t *testing.T) {
	tests := []struct {
		name     string
		sessions int
		rounds   int
	}{
		{"1000 sessions interleaved", 1000, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := start(t, dir, nil)
			limitFiles(t, s, lowFileLimit)

			acked := map[string]bool{}
			appendRounds(t, s, tc.sessions, 0, tc.rounds, acked)
			checkLogs(t, dir, acked, false)

			other := start(t, dir, nil)
			var ping struct {
				PendingLogs int `json:"pendingLogs"`
			}
			other.call("ping", nil, &ping) // answered after its crash recovery
			if ping.PendingLogs != 0 {
				t.Errorf("a second sidecar counts %d of the live logs pending", ping.PendingLogs)
			}
			other.kill()
			checkLogs(t, dir, acked, false)

			appendRounds(t, s, tc.sessions, tc.rounds, tc.rounds+1, acked)
			checkLogs(t, dir, acked, false)

			var closed struct {
				Closed int `json:"closed"`
			}
			s.call("session.closeAll", nil, &closed)
			if closed.Closed != tc.sessions {
				t.Errorf("closeAll closed %d sessions with a log, want %d", closed.Closed, tc.sessions)
			}
			checkLogs(t, dir, acked, true)
			// What marked the closed logs live goes with the sessions.
			marks, _ := filepath.Glob(filepath.Join(dir, "memory", "session-log", ".live", "*.md"))
			if len(marks) > 0 {
				t.Errorf("%d live marks left once every session closed, e.g. %s", len(marks), filepath.Base(marks[0]))
			}
			if strings.Contains(s.stderr.String(), "too many open files") {
				t.Errorf("the sidecar ran out of descriptors:\n%s", grepLines(s.stderr.String(), "too many open files", 5))
			}
		})
	}
}

// appendRounds sends rounds [from, to) of one append to each of n sessions,
// all in flight at once, and records in acked the texts acknowledged.
func appendRounds(t *testing.T, s *proc, n, from, to int, acked map[string]bool) {
	t.Helper()
	type sent struct {
		text string
		ch   chan wire
	}
	var inFlight []sent
	for r := from; r < to; r++ {
		for i := 0; i < n; i++ {
			text := fmt.Sprintf("sess-%04d round-%d", i, r)
			_, ch := s.send("session.append", map[string]any{"sessionId": fmt.Sprintf("chat-%04d", i), "role": []string{"user", "agent"}[r%2], "text": text})
			inFlight = append(inFlight, sent{text, ch})
		}
	}
	var failed []string
	for _, f := range inFlight {
		w := s.wait(f.ch, "session.append")
		if w.Error != nil {
			failed = append(failed, f.text+": "+w.Error.Message)
			continue
		}
		acked[f.text] = true
	}
	if len(failed) > 0 {
		t.Errorf("%d of %d appends refused; first: %s", len(failed), len(inFlight), failed[0])
	}
}

// checkLogs parses every session log under dir: each acknowledged text is
// in exactly one log, each log holds the texts of one session only and at
// least one message; live (not final), no log has a status, final, every
// log is finalised with its count.
func checkLogs(t *testing.T, dir string, acked map[string]bool, final bool) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "memory", "session-log", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	headerOnly := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		log := sessionlog.Parse(p, data)
		if len(log.Blocks) == 0 {
			headerOnly++
			if headerOnly <= 3 {
				t.Errorf("%s holds no message:\n%s", filepath.Base(p), data)
			}
			continue
		}
		session := ""
		for _, b := range log.Blocks {
			found[b.Text]++
			who, _, _ := strings.Cut(b.Text, " ")
			if session == "" {
				session = who
			} else if who != session {
				t.Errorf("%s mixes %s and %s", filepath.Base(p), session, who)
			}
		}
		if !final && log.Status() != "" {
			t.Errorf("%s of a live session has status %q: taken for a closed log", filepath.Base(p), log.Status())
		}
		if final {
			if got := log.Status(); got != sessionlog.StatusPending {
				t.Errorf("%s after closeAll: status %q, want %q", filepath.Base(p), got, sessionlog.StatusPending)
			}
			if got := log.Meta.Value("message_count"); got != strconv.Itoa(len(log.Blocks)) {
				t.Errorf("%s: message_count %s, %d blocks", filepath.Base(p), got, len(log.Blocks))
			}
		}
	}
	if headerOnly > 0 {
		t.Errorf("%d of %d logs hold a header and no message", headerOnly, len(paths))
	}
	missing := 0
	for text := range acked {
		if found[text] != 1 {
			missing++
			if missing <= 3 {
				t.Errorf("acknowledged %q found %d times in the logs", text, found[text])
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged appends not found exactly once (%d logs)", missing, len(acked), len(paths))
	}
}

// grepLines returns up to n lines of s containing sub.
func grepLines(s, sub string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && len(out) < n {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
