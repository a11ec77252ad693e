package sessionlog

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/memory"
)

// TestCrashDuringAppendBurst kills a writer process with SIGKILL in the middle of a burst of session
// appends, then checks that every acknowledged session block is complete: the log parses and only the
// last block may be cut.
func TestCrashDuringAppendBurst(t *testing.T) {
	if dir := os.Getenv("SOMNI_SESSIONLOG_CRASH_DIR"); dir != "" {
		crashWriter(dir) // child: write until killed
		return
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringAppendBurst$")
		cmd.Env = append(os.Environ(), "SOMNI_SESSIONLOG_CRASH_DIR="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it write for a while, then kill -9.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if des, _ := os.ReadDir(filepath.Join(dir, "memory", "session-log")); len(des) > 0 {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(20+round*15) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		st, err := memory.Open(memory.Config{DataDir: dir, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		l := New(st)
		files, _ := l.Files(t.Context(), false)
		if len(files) == 0 {
			t.Fatalf("round %d: no session log (child stderr: %s)", round, stderr.String())
		}
		for _, f := range files {
			log, err := l.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range log.Blocks[:max(0, len(log.Blocks)-1)] {
				if !strings.HasPrefix(b.Text, "message ") {
					t.Fatalf("%s block %d: %q", f, i, b.Text)
				}
			}
		}
	}
}

func crashWriter(dir string) {
	st, err := memory.Open(memory.Config{DataDir: dir, Logger: quietLogger()})
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
