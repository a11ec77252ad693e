//go:build unix

package memory

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// unreadableJournals plant something no fold can read at p: what an attacker, a bad
// copy or a full disk leaves where the usage journal or its claim belongs.
var unreadableJournals = []struct {
	name  string
	plant func(t *testing.T, p string)
}{
	{"over its bound", func(t *testing.T, p string) {
		mustWrite(t, p, "2026-11-30\tm\tknowledge/x/SKILL.md\n")
		if err := os.Truncate(p, usageReadBytes+1); err != nil {
			t.Fatal(err)
		}
	}},
	{"a FIFO", func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{"a directory", func(t *testing.T, p string) {
		if err := os.MkdirAll(filepath.Join(p, "inside"), 0o755); err != nil {
			t.Fatal(err)
		}
	}},
	{"a link outside", func(t *testing.T, p string) {
		outside := filepath.Join(t.TempDir(), "journal")
		mustWrite(t, outside, "2026-11-30\tm\tknowledge/x/SKILL.md\n")
		if err := os.Symlink(outside, p); err != nil {
			t.Fatal(err)
		}
	}},
	{"a dangling link", func(t *testing.T, p string) {
		if err := os.Symlink("gone", p); err != nil {
			t.Fatal(err)
		}
	}},
}

func mustWrite(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFoldQuarantinesUnreadableJournal: a journal or a claim no fold can
// read is moved aside (kept, named by doctor) and folding goes on, so
// recalls after it reinforce again instead of being dropped for good.
func TestFoldQuarantinesUnreadableJournal(t *testing.T) {
	ctx := context.Background()
	for _, at := range []string{usageJournal, usageFolding} {
		for _, tc := range unreadableJournals {
			t.Run(at+"/"+tc.name, func(t *testing.T) {
				s := newTestStore(t)
				e, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "recalled", Type: "fact", Description: "a fact recalled after the damage", Body: "body\n", Verified: true})
				if err != nil {
					t.Fatal(err)
				}
				tc.plant(t, filepath.Join(s.MemoryDir(), at))
				for dream := 1; dream <= 2; dream++ {
					_ = s.NoteRecall([]string{e.Path}) // refused while the journal itself is damaged
					if _, err := s.FoldUsage(ctx); err != nil {
						t.Fatalf("fold %d: %v", dream, err)
					}
				}
				got, err := s.Load(e.Path)
				if err != nil {
					t.Fatal(err)
				}
				if got.Score() <= e.Score() {
					t.Errorf("score %v after two recalls and two folds, was %v: hits were dropped", got.Score(), e.Score())
				}
				q, _ := filepath.Glob(filepath.Join(s.MemoryDir(), UsageQuarantine+"*"))
				if len(q) != 1 {
					t.Fatalf("quarantined %v, want the one damaged file kept", q)
				}
				for _, p := range []string{usageJournal, usageFolding} {
					if fi, err := os.Lstat(filepath.Join(s.MemoryDir(), p)); err == nil && !fi.Mode().IsRegular() {
						t.Errorf("%s is still %v", p, fi.Mode())
					}
				}
				// What doctor says of it is package doctor's test (state_test.go).
				if got := s.UsageJournal().Quarantined(); len(got) != 1 || got[0] != q[0] {
					t.Errorf("Quarantined() = %v, want %v", got, q)
				}
			})
		}
	}
}
