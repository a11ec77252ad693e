package cache

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestSnapshotFileStaysInside: links planted at the snapshot's name or at
// its temp file's, pointing outside the data dir, are neither followed to
// read nor written through; the snapshot lands inside as a regular file
// and reads back.
func TestSnapshotFileStaysInside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	data, outside := t.TempDir(), t.TempDir()
	p := filepath.Join(data, "index.sqlite")
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("outside the data dir"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{SnapshotPath(p), SnapshotPath(p) + ".tmp"} {
		if err := os.Symlink(secret, name); err != nil {
			t.Fatal(err)
		}
	}
	if f, _, err := OpenSnapshot(p); !errors.Is(err, fs.ErrInvalid) {
		if f != nil {
			f.Close()
		}
		t.Fatalf("OpenSnapshot through a link outside: %v, want a refusal", err)
	}
	if err := WriteSnapshot(p, [][]byte{[]byte("head "), []byte("body")}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "outside the data dir" {
		t.Fatalf("the file outside was written through a link: %q", b)
	}
	fi, err := os.Lstat(SnapshotPath(p))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("snapshot is not a regular file inside: %v %v", fi, err)
	}
	f, size, err := OpenSnapshot(p)
	if err != nil || size != int64(len("head body")) {
		t.Fatalf("open: size %d, %v", size, err)
	}
	defer f.Close()
	if b, _ := io.ReadAll(f); string(b) != "head body" {
		t.Fatalf("read back %q", b)
	}
}
