package memory

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/testutil"
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
	s, err := Open(Config{DataDir: dir, Logger: testutil.QuietLogger()})
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
