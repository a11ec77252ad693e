package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/testutil"
)

// TestCrashDuringAppendBurst kills a writer process with SIGKILL in the middle of a burst of session
// appends, then checks that every acknowledged session block is complete: the log parses and only the
// last block may be cut.
func TestCrashDuringAppendBurst(t *testing.T) {
	if dir := os.Getenv("SOMNI_SESSIONLOG_CRASH_DIR"); dir != "" {
		crashWriter(dir) // child: write until killed
		return
	}
	dir := t.TempDir()
	// under way once a block is on disk: a log file alone may be made
	// ahead and hold none yet, and recovery removes it
	ready := func() bool {
		logs, _ := filepath.Glob(filepath.Join(dir, "memory", "session-log", "*.md"))
		for _, f := range logs {
			if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "message 0") {
				return true
			}
		}
		return false
	}
	testutil.CrashRounds(t, "SOMNI_SESSIONLOG_CRASH_DIR", dir, 3, ready, func(round int, childStderr string) {
		st, err := memory.Open(memory.Config{DataDir: dir, Logger: testutil.QuietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		l := New(st)
		if _, err := l.Capture().RecoverCrashed(); err != nil {
			t.Fatalf("round %d: recover: %v", round, err)
		}
		files, _ := l.Files(t.Context(), false)
		if len(files) == 0 {
			t.Fatalf("round %d: no session log (child stderr: %s)", round, childStderr)
		}
		for _, f := range files {
			log, err := l.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			// A log made ahead for the next rotation is removed, not left empty.
			if len(log.Blocks) == 0 || log.Status() != StatusPending {
				t.Fatalf("round %d: %s after recovery: %d blocks, status %q", round, f, len(log.Blocks), log.Status())
			}
			for i, b := range log.Blocks[:max(0, len(log.Blocks)-1)] {
				if !strings.HasPrefix(b.Text, "message ") {
					t.Fatalf("%s block %d: %q", f, i, b.Text)
				}
			}
		}
	})
}

func crashWriter(dir string) {
	st, err := memory.Open(memory.Config{DataDir: dir, Logger: testutil.QuietLogger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	c := New(st).Capture()
	for v := 0; ; v++ {
		if _, err := c.Append("crash", "user", fmt.Sprintf("message %d", v), "", "", ""); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}
