// Package memtest opens stores for the tests of the packages built over
// package memory (intentions, identity, usage, sessionlog, doctor, …).
// Package memory's own tests cannot import it (it imports memory) and keep
// their in-package helpers; the generic ones (clock, logger, ReadFile) are
// in package testutil, which both use.
//
// Map:
//
//	memtest.go  NewStore, PyStore, SecondStore: a fresh store, one on a copy of testdata/pydata, a second one on the same data dir
package memtest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/testutil"
)

// NewStore opens a store on a fresh data dir whose clock reads
// testutil.FixedNow.
func NewStore(t testing.TB) *memory.Store {
	t.Helper()
	return open(t, t.TempDir(), func() time.Time { return testutil.FixedNow })
}

// PyStore copies testdata/pydata into a temp dir and opens a store on it
// whose clock reads *clock (testutil.FixedNow when clock is nil), so a test
// can move the time between calls. It returns the data dir too.
func PyStore(t testing.TB, clock *time.Time) (*memory.Store, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "data")
	testutil.CopyTree(t, testutil.Testdata("pydata"), dst)
	if clock == nil {
		now := testutil.FixedNow
		clock = &now
	}
	return open(t, dst, func() time.Time { return *clock }), dst
}

// SecondStore opens another store on a's data dir, as a second sidecar (or
// an MCP server) would. Locks belong to open files, so two stores in one
// process conflict exactly as two processes do.
func SecondStore(t testing.TB, a *memory.Store) *memory.Store {
	t.Helper()
	b, err := memory.Open(memory.Config{DataDir: a.DataDir(), Now: a.Now, Logger: a.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func open(t testing.TB, dir string, now func() time.Time) *memory.Store {
	t.Helper()
	s, err := memory.Open(memory.Config{DataDir: dir, Now: now, Logger: testutil.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
