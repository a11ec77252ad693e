//go:build unix

package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/memory/memtest"
	"github.com/somni-dev/somni/internal/testutil"
	"github.com/somni-dev/somni/internal/usage"
)

func mustWrite(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// unreadableJournals plant something no fold can read where the usage journal
// or its claim belongs. Twice the journal's bound is past the fold's read
// margin too.
var unreadableJournals = testutil.UnreadableFiles("2026-11-30\tm\tknowledge/x/SKILL.md\n", 2*usage.MaxJournalBytes)

// journalFiles names the journal and its claim, for subtests.
var journalFiles = []struct {
	name string
	path func(usage.Journal) string
}{
	{"journal", func(u usage.Journal) string { j, _ := u.Files(); return j }},
	{"folding", func(u usage.Journal) string { _, f := u.Files(); return f }},
}

// TestDoctorNamesQuarantinedJournal: once the dreams' folds moved a damaged
// journal aside, doctor names the quarantined file and the summary counts it.
func TestDoctorNamesQuarantinedJournal(t *testing.T) {
	ctx := context.Background()
	for _, at := range journalFiles {
		for _, tc := range unreadableJournals {
			t.Run(at.name+"/"+tc.Name, func(t *testing.T) {
				s := memtest.NewStore(t)
				e, err := s.CreateKnowledge(ctx, memory.KnowledgeInput{Name: "recalled", Type: "fact", Description: "a fact recalled after the damage", Body: "body\n", Verified: true})
				if err != nil {
					t.Fatal(err)
				}
				tc.Plant(t, at.path(usage.Of(s)))
				for dream := 1; dream <= 2; dream++ {
					_ = usage.Of(s).NoteRecall([]string{e.Path}) // refused while the journal itself is damaged
					if _, err := usage.Of(s).Fold(ctx); err != nil {
						t.Fatalf("fold %d: %v", dream, err)
					}
				}
				q := usage.Of(s).Quarantined()
				if len(q) != 1 {
					t.Fatalf("quarantined %v, want the one damaged file kept", q)
				}
				findings, err := Check(ctx, s, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !hasFinding(findings, q[0], "usage-journal", "quarantined") {
					t.Errorf("doctor does not name %s:\n%v", q[0], findings)
				}
				if line := UsageSummary(s); !strings.Contains(line, "1 quarantined") {
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
	for _, at := range journalFiles {
		for _, tc := range unreadableJournals {
			t.Run(at.name+"/"+tc.Name, func(t *testing.T) {
				s := memtest.NewStore(t)
				if err := os.MkdirAll(s.MemoryDir(), 0o755); err != nil {
					t.Fatal(err)
				}
				p := at.path(usage.Of(s))
				tc.Plant(t, p)
				findings, err := Check(ctx, s, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !hasFinding(findings, p, "usage-journal", "the next dream moves it aside to "+usage.Quarantine+"<time>") {
					t.Errorf("doctor does not name %s:\n%v", p, findings)
				}
				if line := UsageSummary(s); !strings.Contains(line, s.Rel(p)+" unreadable") {
					t.Errorf("journal summary %q does not name %s unreadable", line, s.Rel(p))
				}
			})
		}
	}
}

// TestUsageSummary: doctor's one line on the journal, for each state.
func TestUsageSummary(t *testing.T) {
	s := memtest.NewStore(t)
	if got := UsageSummary(s); got != "usage journal: empty" {
		t.Errorf("fresh store: %q", got)
	}
	e, err := s.CreateKnowledge(context.Background(), memory.KnowledgeInput{Name: "recalled", Type: "fact", Description: "a fact recalled", Body: "body\n", Verified: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := usage.Of(s).NoteRecall([]string{e.Path, e.Path}); err != nil {
		t.Fatal(err)
	}
	if got, want := UsageSummary(s), "usage journal: 2 recall hits pending"; !strings.HasPrefix(got, want) {
		t.Errorf("pending: %q, want %q…", got, want)
	}
	journal, folding := usage.Of(s).Files()
	if err := os.Rename(journal, folding); err != nil {
		t.Fatal(err)
	}
	if got, want := UsageSummary(s), "usage journal: 2 recall hits claimed by a fold"; !strings.HasPrefix(got, want) {
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
	locks := []struct {
		name, what string
		path       func(*memory.Store) string
	}{
		{"write", "every write to memory", func(s *memory.Store) string { w, _ := s.LockFiles(); return w }},
		{"dream", "every dream", func(s *memory.Store) string { _, d := s.LockFiles(); return d }},
	}
	for _, lock := range locks {
		for _, tc := range tests {
			t.Run(lock.name+"/"+tc.name, func(t *testing.T) {
				s := memtest.NewStore(t)
				if err := os.MkdirAll(s.MemoryDir(), 0o755); err != nil {
					t.Fatal(err)
				}
				p := lock.path(s)
				tc.plant(t, p)
				findings, err := Check(ctx, s, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !hasFinding(findings, p, "lock", lock.what+" fails until it is gone; move it away or remove it") {
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
	s := memtest.NewStore(t)
	unlock, err := s.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if findings, err := Check(ctx, s, nil); err != nil || len(findings) != 0 {
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
