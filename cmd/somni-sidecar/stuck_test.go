//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// stuckEntry is an entry recall finds, with a score a fold visibly raises.
const stuckEntry = "---\nname: pg-port\ndescription: staging postgres listens on 6543\ntype: fact\nscore: 0.5\n---\n\nUse port 6543.\n"

// TestStuckUsageJournal plants what no fold can read where the usage journal
// or its claim belongs and drives the binary: doctor names it before any
// dream, the next dream moves it aside instead of failing on it forever, the
// recall after that reinforces again, and doctor names the quarantined file
// and the journal's state.
func TestStuckUsageJournal(t *testing.T) {
	plants := []struct {
		name  string
		plant func(t *testing.T, p string)
	}{
		{"over its bound", func(t *testing.T, p string) {
			mustDo(t, os.WriteFile(p, []byte("2026-12-01\tm\tknowledge/pg-port/SKILL.md\n"), 0o644))
			mustDo(t, os.Truncate(p, 5<<20)) // sparse: the size is what matters
		}},
		{"a FIFO", func(t *testing.T, p string) { mustDo(t, syscall.Mkfifo(p, 0o644)) }},
		{"a directory", func(t *testing.T, p string) { mustDo(t, os.MkdirAll(filepath.Join(p, "x"), 0o755)) }},
		{"a link outside", func(t *testing.T, p string) {
			outside := filepath.Join(t.TempDir(), "journal")
			mustDo(t, os.WriteFile(outside, []byte("2026-12-01\tm\tknowledge/pg-port/SKILL.md\n"), 0o644))
			mustDo(t, os.Symlink(outside, p))
		}},
	}
	for _, at := range []string{".usage.log", ".usage.folding"} {
		for _, tc := range plants {
			t.Run(at+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				entry := filepath.Join(dir, "memory/knowledge/pg-port/SKILL.md")
				mustDo(t, os.MkdirAll(filepath.Dir(entry), 0o755))
				mustDo(t, os.WriteFile(entry, []byte(stuckEntry), 0o644))
				planted := filepath.Join(dir, "memory", at)
				tc.plant(t, planted)

				out, code := runCLI(t, "--data-dir", dir, "--embed", "off", "doctor")
				if code != 1 {
					t.Errorf("doctor before a dream: exit %d, want 1\n%s", code, out)
				}
				mustContain(t, "doctor before a dream", out, planted+": usage-journal: ", "the next dream moves it aside")

				s := start(t, dir, nil)
				for dream := 1; dream <= 2; dream++ {
					if got := s.tool("recall_memories", map[string]any{"query": "staging postgres port"}); !strings.Contains(got, "pg-port") {
						t.Fatalf("recall %d did not find the entry: %.300s", dream, got)
					}
					var run struct{ Status string }
					s.call("sleep.run", map[string]any{"trigger": "test"}, &run)
				}
				s.call("shutdown", nil, nil)
				if code := s.waitExit(); code != 0 {
					t.Errorf("exit %d", code)
				}
				if got := testutil.ReadFile(t, entry); strings.Contains(got, "score: 0.5\n") {
					t.Errorf("recall reinforcement stopped: two recalls and two dreams left\n%s", got)
				}
				for _, p := range []string{".usage.log", ".usage.folding"} {
					if fi, err := os.Lstat(filepath.Join(dir, "memory", p)); err == nil && !fi.Mode().IsRegular() {
						t.Errorf("%s is still %v after two dreams", p, fi.Mode())
					}
				}
				q, _ := filepath.Glob(filepath.Join(dir, "memory", ".usage.quarantine-*"))
				if len(q) != 1 {
					t.Fatalf("quarantined %v, want the planted file kept", q)
				}

				out, code = runCLI(t, "--data-dir", dir, "--embed", "off", "doctor")
				if code != 1 {
					t.Errorf("doctor after the dreams: exit %d, want 1\n%s", code, out)
				}
				mustContain(t, "doctor after the dreams", out, q[0]+": usage-journal: quarantined", "usage journal: 1 quarantined")
			})
		}
	}
}

// TestPlantedLockFile: a FIFO or a folder where memory/.somni.lock (or
// .dream.lock) belongs makes every write (every dream) fail; doctor names it
// with what to do, and once it is removed doctor is clean again.
func TestPlantedLockFile(t *testing.T) {
	tests := []struct {
		lock, name string
		plant      func(t *testing.T, p string)
		want       string
	}{
		{".somni.lock", "a FIFO", func(t *testing.T, p string) { mustDo(t, syscall.Mkfifo(p, 0o644)) }, "a FIFO where the write lock file belongs: every write to memory fails"},
		{".somni.lock", "a directory", func(t *testing.T, p string) { mustDo(t, os.Mkdir(p, 0o755)) }, "a directory where the write lock file belongs: every write to memory fails"},
		{".dream.lock", "a FIFO", func(t *testing.T, p string) { mustDo(t, syscall.Mkfifo(p, 0o644)) }, "a FIFO where the dream lock file belongs: every dream fails"},
		{".dream.lock", "a directory", func(t *testing.T, p string) { mustDo(t, os.Mkdir(p, 0o755)) }, "a directory where the dream lock file belongs: every dream fails"},
	}
	for _, tc := range tests {
		t.Run(tc.lock+"/"+tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mustDo(t, os.MkdirAll(filepath.Join(dir, "memory"), 0o755))
			p := filepath.Join(dir, "memory", tc.lock)
			tc.plant(t, p)
			out, code := runCLI(t, "--data-dir", dir, "--embed", "off", "doctor")
			if code != 1 {
				t.Errorf("doctor: exit %d, want 1\n%s", code, out)
			}
			mustContain(t, "doctor", out, p+": lock: "+tc.want, "remove it", "1 problem(s)")
			mustDo(t, os.Remove(p))
			out, code = runCLI(t, "--data-dir", dir, "--embed", "off", "doctor")
			if code != 0 {
				t.Errorf("doctor after removing it: exit %d\n%s", code, out)
			}
			mustContain(t, "doctor after removing it", out, "ok: no problems", "usage journal: empty")
		})
	}
}
