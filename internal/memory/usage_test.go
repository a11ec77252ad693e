//go:build unix

package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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
				e, err := s.CreateKnowledge(ctx, "recalled", "fact", "a fact recalled after the damage", "body\n", true)
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
				q, _ := filepath.Glob(filepath.Join(s.MemoryDir(), usageQuarantine+"*"))
				if len(q) != 1 {
					t.Fatalf("quarantined %v, want the one damaged file kept", q)
				}
				for _, p := range []string{usageJournal, usageFolding} {
					if fi, err := os.Lstat(filepath.Join(s.MemoryDir(), p)); err == nil && !fi.Mode().IsRegular() {
						t.Errorf("%s is still %v", p, fi.Mode())
					}
				}
				findings, err := s.Doctor(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !hasFinding(findings, q[0], "usage-journal", "quarantined") {
					t.Errorf("doctor does not name %s:\n%v", q[0], findings)
				}
				if line := s.UsageJournal().Summary(); !strings.Contains(line, "1 quarantined") {
					t.Errorf("journal summary %q does not count the quarantined file", line)
				}
			})
		}
	}
}

// TestDoctorNamesUnreadableJournal: before any dream, doctor already says
// that recall hits are being lost and what the next dream will do.
func TestDoctorNamesUnreadableJournal(t *testing.T) {
	ctx := context.Background()
	for _, at := range []string{usageJournal, usageFolding} {
		for _, tc := range unreadableJournals {
			t.Run(at+"/"+tc.name, func(t *testing.T) {
				s := newTestStore(t)
				if err := os.MkdirAll(s.MemoryDir(), 0o755); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(s.MemoryDir(), at)
				tc.plant(t, p)
				findings, err := s.Doctor(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !hasFinding(findings, p, "usage-journal", "the next dream moves it aside") {
					t.Errorf("doctor does not name %s:\n%v", p, findings)
				}
			})
		}
	}
}

// TestUsageSummary: doctor's one line on the journal, for each state.
func TestUsageSummary(t *testing.T) {
	s := newTestStore(t)
	if got := s.UsageJournal().Summary(); got != "usage journal: empty" {
		t.Errorf("fresh store: %q", got)
	}
	e, err := s.CreateKnowledge(context.Background(), "recalled", "fact", "a fact recalled", "body\n", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.NoteRecall([]string{e.Path, e.Path}); err != nil {
		t.Fatal(err)
	}
	if got, want := s.UsageJournal().Summary(), "usage journal: 2 recall hits pending"; !strings.HasPrefix(got, want) {
		t.Errorf("pending: %q, want %q…", got, want)
	}
	if err := os.Rename(filepath.Join(s.MemoryDir(), usageJournal), filepath.Join(s.MemoryDir(), usageFolding)); err != nil {
		t.Fatal(err)
	}
	if got, want := s.UsageJournal().Summary(), "usage journal: 2 recall hits claimed by a fold"; !strings.HasPrefix(got, want) {
		t.Errorf("claimed: %q, want %q…", got, want)
	}
}

// TestDoctorNamesBlockedLock: a lock file that is not a regular file blocks
// every write (or every dream); doctor names it and says how to clear it.
func TestDoctorNamesBlockedLock(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		plant func(t *testing.T, p string)
	}{
		{"a FIFO", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"a link inside", func(t *testing.T, p string) {
			mustWrite(t, p+".target", "")
			if err := os.Symlink(filepath.Base(p)+".target", p); err != nil {
				t.Fatal(err)
			}
		}},
		{"a link outside", func(t *testing.T, p string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "lock"), p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, lock := range []string{writeLockName, dreamLockName} {
		for _, tc := range tests {
			t.Run(lock+"/"+tc.name, func(t *testing.T) {
				s := newTestStore(t)
				if err := os.MkdirAll(s.MemoryDir(), 0o755); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(s.MemoryDir(), lock)
				tc.plant(t, p)
				findings, err := s.Doctor(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !hasFinding(findings, p, "lock", "remove it") {
					t.Errorf("doctor does not name %s:\n%v", p, findings)
				}
				n := 0
				for _, f := range findings {
					if f.Path == p {
						n++
					}
				}
				if n != 1 {
					t.Errorf("doctor names %s %d times:\n%v", p, n, findings)
				}
			})
		}
	}
	// A lock file as somni makes it is no finding.
	s := newTestStore(t)
	unlock, err := s.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if findings, err := s.Doctor(ctx, nil); err != nil || len(findings) != 0 {
		t.Errorf("doctor on a store with its own lock file: %v %v", findings, err)
	}
}

func hasFinding(fs []Finding, path, kind, reason string) bool {
	for _, f := range fs {
		if f.Path == path && f.Kind == kind && strings.Contains(f.Reason, reason) {
			return true
		}
	}
	return false
}
