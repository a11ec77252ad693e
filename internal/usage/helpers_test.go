package usage

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/memory"
)

var fixedNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.Local)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newTestStore opens a store on a fresh data dir at fixedNow.
func newTestStore(t testing.TB) *memory.Store {
	t.Helper()
	s, err := memory.Open(memory.Config{DataDir: t.TempDir(), Now: func() time.Time { return fixedNow }, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// secondStore opens another store on a's data dir, as a second sidecar (or
// an MCP server) would. Locks belong to open files, so two stores in one
// process conflict exactly as two processes do.
func secondStore(t testing.TB, a *memory.Store) *memory.Store {
	t.Helper()
	b, err := memory.Open(memory.Config{DataDir: a.DataDir(), Now: a.Now, Logger: a.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
