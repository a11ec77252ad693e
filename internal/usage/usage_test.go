//go:build unix

package usage

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/memory/memtest"
	"github.com/somni-dev/somni/internal/testutil"
)

// unreadableJournals plant something no fold can read where the usage journal
// or its claim belongs; one byte past the fold's read margin is too big.
var unreadableJournals = testutil.UnreadableFiles("2026-11-30\tm\tknowledge/x/SKILL.md\n", readBytes+1)

// TestFoldQuarantinesUnreadableJournal: a journal or a claim no fold can
// read is moved aside (kept, named by doctor) and folding goes on, so
// recalls after it reinforce again instead of being dropped for good.
func TestFoldQuarantinesUnreadableJournal(t *testing.T) {
	ctx := context.Background()
	for _, at := range []string{journalName, foldingName} {
		for _, tc := range unreadableJournals {
			t.Run(at+"/"+tc.Name, func(t *testing.T) {
				s := memtest.NewStore(t)
				e, err := s.CreateKnowledge(ctx, memory.KnowledgeInput{Name: "recalled", Type: "fact", Description: "a fact recalled after the damage", Body: "body\n", Verified: true})
				if err != nil {
					t.Fatal(err)
				}
				tc.Plant(t, filepath.Join(s.MemoryDir(), at))
				for dream := 1; dream <= 2; dream++ {
					_ = Of(s).NoteRecall([]string{e.Path}) // refused while the journal itself is damaged
					if _, err := Of(s).Fold(ctx); err != nil {
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
				q, _ := filepath.Glob(filepath.Join(s.MemoryDir(), Quarantine+"*"))
				if len(q) != 1 {
					t.Fatalf("quarantined %v, want the one damaged file kept", q)
				}
				for _, p := range []string{journalName, foldingName} {
					if fi, err := os.Lstat(filepath.Join(s.MemoryDir(), p)); err == nil && !fi.Mode().IsRegular() {
						t.Errorf("%s is still %v", p, fi.Mode())
					}
				}
				// What doctor says of it is package doctor's test (state_test.go).
				if got := Of(s).Quarantined(); len(got) != 1 || got[0] != q[0] {
					t.Errorf("Quarantined() = %v, want %v", got, q)
				}
			})
		}
	}
}

// TestFoldOnceAcrossStores folds one journal from two stores at once:
// every hit is applied exactly once (a fold in progress is not folded again
// by the other side).
func TestFoldOnceAcrossStores(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 20; round++ {
		a := memtest.NewStore(t)
		b := memtest.SecondStore(t, a)
		foldBoth := func() { // both stores fold the journal at once
			var wg sync.WaitGroup
			for _, s := range []*memory.Store{a, b} {
				wg.Add(1)
				go func(s *memory.Store) {
					defer wg.Done()
					if _, err := Of(s).Fold(ctx); err != nil {
						t.Error(err)
					}
				}(s)
			}
			wg.Wait()
		}
		e, err := a.CreateKnowledge(ctx, memory.KnowledgeInput{Name: "folded", Type: "fact", Description: "a fact recalled often", Body: "body\n", Verified: true})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := 0; i < 40; i++ {
			want = append(want, e.Path)
		}
		if err := Of(a).NoteRecall(want); err != nil {
			t.Fatal(err)
		}
		foldBoth()
		got, err := a.Load(e.Path)
		if err != nil {
			t.Fatal(err)
		}
		// 40 hits on the creation day: one same-day use each (+0.05), capped at 1.
		if got.Score() != 1 || got.Stability() != 0 {
			t.Fatalf("round %d: score %v stability %d", round, got.Score(), got.Stability())
		}
		// A tighter check: 4 hits are +0.2 exactly once.
		if err := Of(a).NoteRecall(want[:4]); err != nil {
			t.Fatal(err)
		}
		lower := func(e *memory.Entry) error { e.SetScore(e.Score() - 0.5); return nil }
		if _, err := memory.EditorOf(a).Rewrite(ctx, got.Path, lower); err != nil {
			t.Fatal(err)
		}
		before, _ := a.Load(e.Path)
		foldBoth()
		after, _ := a.Load(e.Path)
		if d := after.Score() - before.Score(); d < 0.199 || d > 0.201 {
			t.Fatalf("round %d: 4 same-day hits moved the score by %.3f, want 0.200 (folded twice?)", round, d)
		}
	}
}
