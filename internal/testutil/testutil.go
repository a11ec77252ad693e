// Package testutil holds what the tests of several packages share: the
// hand-made fixtures under testdata/ and copying them somewhere writable,
// and the small helpers every store test needs. It imports nothing of
// somni's, so package memory's own tests can use it too; opening a store
// on a fixture is package memtest's job.
//
//	testutil.go  Testdata, CopyTree, Pydata, Model: fixture paths and writable copies
//	secrets.go   the secret corpus of testdata/secrets, line by line
//	secretnames.go  SecretNames, CheckSecretNameRefused: names that become folders, some holding a secret
//	crash.go     CrashRounds: the kill -9 harness of the crash tests
//	yaml.go      BillionLaughs: the YAML alias bomb the front-matter readers must survive
//	disk_linux.go  SmallDisk, FillDisk: a tmpfs of its own for a test, filled until it refuses a write
//	helpers.go   FixedNow, QuietLogger, ReadFile: the fixture tests' clock, a silent logger, a file's text
//	unreadable_unix.go  UnreadableFiles: a bounded file damaged five ways (too big, FIFO, directory, links)
package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Testdata returns the absolute path of testdata/<elem...> in the repository.
func Testdata(elem ...string) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "testdata")
	return filepath.Join(append([]string{root}, elem...)...)
}

// CopyTree copies the directory src to dst (created as needed), so a test
// may modify a fixture without touching the repository.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// Pydata returns a fresh writable copy of testdata/pydata, the data
// directory in the Python sidecar's format (one broken file among good ones).
func Pydata(t testing.TB) string {
	t.Helper()
	dst := t.TempDir()
	CopyTree(t, Testdata("pydata"), dst)
	return dst
}

// Model returns the absolute path of models/<elem...> (what `make models`
// installs), skipping the test when it is not there.
func Model(tb testing.TB, elem ...string) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(append([]string{filepath.Dir(file), "..", "..", "models"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("%s missing: run `make models` first", p)
	}
	return p
}
