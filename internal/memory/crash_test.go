package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// TestCrashDuringWriteBurst kills a writer process with SIGKILL in the middle of a burst of Saves,
// then checks that every memory file is complete (old or new content, never half).
func TestCrashDuringWriteBurst(t *testing.T) {
	if dir := os.Getenv("SOMNI_MEMORY_CRASH_DIR"); dir != "" {
		crashWriter(dir) // child: write until killed
		return
	}
	dir := t.TempDir()
	ready := func() bool {
		_, err := os.Stat(filepath.Join(dir, "memory", "knowledge", "k-9", "SKILL.md"))
		return err == nil
	}
	testutil.CrashRounds(t, "SOMNI_MEMORY_CRASH_DIR", dir, 3, ready, func(round int, childStderr string) {
		s, err := Open(Config{DataDir: dir, Logger: testutil.QuietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		es, problems, err := s.List(t.Context(), KindKnowledge)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != 0 {
			t.Fatalf("round %d: half-written files: %+v (child stderr: %s)", round, problems, childStderr)
		}
		if len(es) != 10 {
			t.Fatalf("round %d: %d entries, want 10", round, len(es))
		}
		for _, e := range es {
			if !strings.HasPrefix(e.Body, "version ") || !strings.HasSuffix(e.Body, "end\n") {
				t.Fatalf("round %d: torn body in %s: %q", round, e.Path, e.Body)
			}
		}
	})
}

func crashWriter(dir string) {
	s, err := Open(Config{DataDir: dir, Logger: testutil.QuietLogger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	big := strings.Repeat("payload line that makes the file span several pages\n", 400)
	for v := 0; ; v++ {
		for i := 0; i < 10; i++ {
			name := fmt.Sprintf("k-%d", i)
			e := s.NewEntry(Draft{Kind: KindKnowledge, Path: filepath.Join(s.dirs.knowledge, name, "SKILL.md"), Name: name,
				Description: "crash test", Type: "fact", Score: 0.5, Body: fmt.Sprintf("version %d\n%send\n", v, big)})
			if err := s.Save(e); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
	}
}
