package sessionlog

import (
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/memory/memtest"
	"github.com/somni-dev/somni/internal/testutil"
)

// newTestLogs returns the session logs of a fresh store at a fixed time.
func newTestLogs(t testing.TB) *Logs {
	t.Helper()
	return New(memtest.NewStore(t))
}

// secondLogs opens another store on a's data dir, as a second sidecar (or
// an MCP server) would, and returns its session logs.
func secondLogs(t testing.TB, a *Logs) *Logs {
	t.Helper()
	return New(memtest.SecondStore(t, a.st.(*memory.Store)))
}

// pyLogs copies testdata/pydata into a temp dir and returns its session
// logs, with the clock they read (the fixture's day after, until set).
func pyLogs(t testing.TB) (*Logs, *time.Time) {
	t.Helper()
	now := testutil.FixedNow
	st, _ := memtest.PyStore(t, &now)
	return New(st), &now
}
