package memory

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
)

// TestCrashDuringWriteBurst kills a writer process with SIGKILL in the middle of a burst of Saves,
// then checks that every memory file is complete (old or new content, never half).
func TestCrashDuringWriteBurst(t *testing.T) {
	if dir := os.Getenv("SOMNI_MEMORY_CRASH_DIR"); dir != "" {
		crashWriter(dir) // child: write until killed
		return
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringWriteBurst$")
		cmd.Env = append(os.Environ(), "SOMNI_MEMORY_CRASH_DIR="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it write for a while, then kill -9.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join(dir, "memory", "knowledge", "k-9", "SKILL.md")); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(20+round*15) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		s, err := Open(Config{DataDir: dir, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		es, problems, err := s.List(t.Context(), KindKnowledge)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != 0 {
			t.Fatalf("round %d: half-written files: %+v (child stderr: %s)", round, problems, stderr.String())
		}
		if len(es) != 10 {
			t.Fatalf("round %d: %d entries, want 10", round, len(es))
		}
		for _, e := range es {
			if !strings.HasPrefix(e.Body, "version ") || !strings.HasSuffix(e.Body, "end\n") {
				t.Fatalf("round %d: torn body in %s: %q", round, e.Path, e.Body)
			}
		}
	}
}

func crashWriter(dir string) {
	s, err := Open(Config{DataDir: dir, Logger: quietLogger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	big := strings.Repeat("payload line that makes the file span several pages\n", 400)
	for v := 0; ; v++ {
		for i := 0; i < 10; i++ {
			name := fmt.Sprintf("k-%d", i)
			e := s.newEntry(KindKnowledge, filepath.Join(s.dirs.knowledge, name, "SKILL.md"), name, "crash test", "fact", 0.5,
				fmt.Sprintf("version %d\n%send\n", v, big))
			if err := s.Save(e); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
	}
}
