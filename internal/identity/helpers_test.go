package identity

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/testutil"
)

var fixedNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.Local)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pyStore copies testdata/pydata into a temp dir and opens a store on it
// whose clock reads *clock (fixedNow when clock is nil).
func pyStore(t testing.TB, clock *time.Time) (*memory.Store, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "data")
	testutil.CopyTree(t, testutil.Testdata("pydata"), dst)
	if clock == nil {
		clock = &fixedNow
	}
	s, err := memory.Open(memory.Config{DataDir: dst, Now: func() time.Time { return *clock }, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return s, dst
}
