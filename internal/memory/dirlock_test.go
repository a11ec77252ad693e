package memory

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// secondStore opens another store on a's data dir, as a second sidecar (or
// an MCP server) would. Locks belong to open files, so two stores in one
// process conflict exactly as two processes do.
func secondStore(t testing.TB, a *Store) *Store {
	t.Helper()
	b, err := Open(Config{DataDir: a.DataDir(), Now: a.now, Logger: a.log})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDreamLockExclusiveAcrossStores(t *testing.T) {
	a := newTestStore(t)
	b := secondStore(t, a)
	steps := []struct {
		who    *Store
		name   string
		wantOK bool
	}{
		{a, "a takes it", true},
		{b, "b is refused while a dreams", false},
		{a, "a again is refused too (one dream per store at a time)", false},
	}
	var release func()
	for _, st := range steps {
		rel, ok, err := st.who.TryDreamLock()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if ok != st.wantOK {
			t.Fatalf("%s: ok = %v", st.name, ok)
		}
		if ok {
			release = rel
		}
	}
	release()
	rel, ok, err := b.TryDreamLock()
	if err != nil || !ok {
		t.Fatalf("after a released, b is refused: %v %v", ok, err)
	}
	rel()
}

// TestLocksDieWithTheProcess kills (SIGKILL) a process holding the dream
// lock and the store's write lock: both must be free at once, or a crashed
// sidecar would leave the data dir locked for good.
func TestLocksDieWithTheProcess(t *testing.T) {
	if os.Getenv("SOMNI_LOCK_HELPER_DIR") != "" {
		t.Skip("running as the helper")
	}
	a := newTestStore(t)
	if err := os.MkdirAll(a.MemoryDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), "SOMNI_LOCK_HELPER_DIR="+a.DataDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "locked") {
		t.Fatalf("helper: %q %v", line, err)
	}
	if _, ok, err := a.TryDreamLock(); ok || err != nil {
		t.Fatalf("the helper's dream lock is not seen: ok=%v err=%v", ok, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = a.lock(ctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the helper's write lock is not seen: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	start := time.Now()
	rel, ok, err := a.TryDreamLock()
	if err != nil || !ok {
		t.Fatalf("dream lock still held after kill -9: ok=%v err=%v", ok, err)
	}
	rel()
	unlock, err := a.lock(context.Background())
	if err != nil {
		t.Fatalf("write lock after kill -9: %v", err)
	}
	unlock()
	t.Logf("both locks free %v after the holder was killed", time.Since(start))
}

// TestLockHelperProcess is the process TestLocksDieWithTheProcess kills.
func TestLockHelperProcess(t *testing.T) {
	dir := os.Getenv("SOMNI_LOCK_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process for TestLocksDieWithTheProcess")
	}
	s, err := Open(Config{DataDir: dir, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.TryDreamLock(); !ok || err != nil {
		t.Fatalf("helper: dream lock: %v %v", ok, err)
	}
	if _, err := s.lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
}

// TestFoldUsageOnceAcrossStores folds one journal from two stores at once:
// every hit is applied exactly once (a fold in progress is not folded again
// by the other side).
func TestFoldUsageOnceAcrossStores(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 20; round++ {
		a := newTestStore(t)
		b := secondStore(t, a)
		foldBoth := func() { // both stores fold the journal at once
			var wg sync.WaitGroup
			for _, s := range []*Store{a, b} {
				wg.Add(1)
				go func(s *Store) {
					defer wg.Done()
					if _, err := s.FoldUsage(ctx); err != nil {
						t.Error(err)
					}
				}(s)
			}
			wg.Wait()
		}
		e, err := a.CreateKnowledge(ctx, KnowledgeInput{Name: "folded", Type: "fact", Description: "a fact recalled often", Body: "body\n", Verified: true})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := 0; i < 40; i++ {
			want = append(want, e.Path)
		}
		if err := a.NoteRecall(want); err != nil {
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
		if err := a.NoteRecall(want[:4]); err != nil {
			t.Fatal(err)
		}
		if _, err := a.update(got, SkillUpdate{ScoreDelta: -0.5}, nil); err != nil {
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

// TestCloseIntentionOnceAcrossStores completes and cancels one intention
// from two stores at once: one wins, the other is told it is gone, and the
// archived file says closed exactly once.
func TestCloseIntentionOnceAcrossStores(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 30; round++ {
		a := newTestStore(t)
		b := secondStore(t, a)
		it, err := a.Intentions().Add(ctx, IntentionInput{What: "renew the certificate"})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, s := range []*Store{a, b} {
			wg.Add(1)
			go func(i int, s *Store) {
				defer wg.Done()
				if i == 0 {
					_, errs[i] = s.Intentions().Complete(ctx, it.ID)
				} else {
					_, errs[i] = s.Intentions().Cancel(ctx, it.ID)
				}
			}(i, s)
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: want exactly one close to succeed: %v / %v", round, errs[0], errs[1])
		}
		data, err := os.ReadFile(filepath.Join(a.dirs.intentions, "archived", it.ID, "INTENT.md"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "- closed:"); n != 1 {
			t.Fatalf("round %d: %d closed lines:\n%s", round, n, data)
		}
		if des, _ := os.ReadDir(filepath.Join(a.dirs.intentions, "archived")); len(des) != 1 {
			t.Fatalf("round %d: %d archived copies", round, len(des))
		}
	}
}
