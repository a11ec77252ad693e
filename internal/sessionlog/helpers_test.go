package sessionlog

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

// newTestLogs returns the session logs of a fresh store at a fixed time.
func newTestLogs(t testing.TB) *Logs {
	t.Helper()
	st, err := memory.Open(memory.Config{DataDir: t.TempDir(), Now: func() time.Time { return fixedNow }, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return New(st)
}

// secondLogs opens another store on a's data dir, as a second sidecar (or
// an MCP server) would. Locks belong to open files, so two stores in one
// process conflict exactly as two processes do.
func secondLogs(t testing.TB, a *Logs) *Logs {
	t.Helper()
	st, err := memory.Open(memory.Config{DataDir: a.st.DataDir(), Now: a.st.Now, Logger: a.log})
	if err != nil {
		t.Fatal(err)
	}
	return New(st)
}

// pyLogs copies testdata/pydata into a temp dir and returns its session
// logs, with the clock they read (the fixture's day after, until set).
func pyLogs(t testing.TB) (*Logs, *time.Time) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "data")
	testutil.CopyTree(t, testutil.Testdata("pydata"), dst)
	now := fixedNow
	st, err := memory.Open(memory.Config{DataDir: dst, Now: func() time.Time { return now }, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return New(st), &now
}
