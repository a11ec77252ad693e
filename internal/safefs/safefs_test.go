//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// mustOK returns a check that fails t at once on an error.
func mustOK(t *testing.T) func(error) {
	return func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

func newFS(t *testing.T) (*FS, string, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "data")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("root:x:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	return f, root, outside
}

// TestReadRule drives every kind of hostile path through ReadFile.
func TestReadRule(t *testing.T) {
	f, root, outside := newFS(t)
	must := mustOK(t)
	must(os.WriteFile(filepath.Join(root, "ok.md"), []byte("fine"), 0o644))
	must(os.Mkdir(filepath.Join(root, "sub"), 0o755))
	must(os.Symlink("../ok.md", filepath.Join(root, "sub", "inside-link.md")))
	must(os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "abs-link.md")))
	must(os.Symlink("../outside/secret.md", filepath.Join(root, "rel-escape.md")))
	must(os.Symlink(outside, filepath.Join(root, "dirlink")))
	must(os.WriteFile(filepath.Join(root, "big.md"), make([]byte, 2048), 0o644))
	must(syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644))
	tests := []struct {
		name string
		path string
		want error // nil ⇒ read succeeds
	}{
		{"plain file", filepath.Join(root, "ok.md"), nil},
		{"link inside the root", filepath.Join(root, "sub", "inside-link.md"), nil},
		{"absolute link out", filepath.Join(root, "abs-link.md"), ErrOutside},
		{"relative link out", filepath.Join(root, "rel-escape.md"), ErrOutside},
		{"through a linked directory", filepath.Join(root, "dirlink", "secret.md"), ErrOutside},
		{"dot-dot path", filepath.Join(root, "..", "outside", "secret.md"), ErrOutside},
		{"not under any root", filepath.Join(outside, "secret.md"), ErrOutside},
		{"directory", filepath.Join(root, "sub"), ErrNotRegular},
		{"over the limit", filepath.Join(root, "big.md"), ErrTooLarge},
		{"missing", filepath.Join(root, "nope.md"), fs.ErrNotExist},
		{"fifo does not block", filepath.Join(root, "fifo.md"), ErrNotRegular},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := f.ReadFile(tc.path, 1024); done <- err }()
			select {
			case err := <-done:
				if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
					t.Fatalf("ReadFile(%s) = %v, want %v", tc.path, err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("ReadFile blocked")
			}
		})
	}
}

// TestWriteRule: no write goes through a link or out of the root.
func TestWriteRule(t *testing.T) {
	f, root, outside := newFS(t)
	target := filepath.Join(outside, "secret.md")
	if err := os.Symlink(target, filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ok.md", filepath.Join(root, "inner-link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	// A Version of some real file: a replace must refuse a link before it compares anything.
	if err := os.WriteFile(filepath.Join(root, "ok.md"), []byte("fine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, real, err := f.ReadVersion(filepath.Join(root, "ok.md"), 1024)
	if err != nil {
		t.Fatal(err)
	}
	writes := []struct {
		name string
		do   func() error
		want error
	}{
		{"replace a link out", func() error { _, err := f.Replace(filepath.Join(root, "link.md"), []byte("x"), real); return err }, ErrSymlink},
		{"replace a link inside", func() error {
			_, err := f.Replace(filepath.Join(root, "inner-link.md"), []byte("x"), real)
			return err
		}, ErrSymlink},
		{"create through a linked dir", func() error { _, err := f.Create(filepath.Join(root, "dirlink", "new.md"), []byte("x")); return err }, ErrOutside},
		{"create over a link", func() error { _, err := f.Create(filepath.Join(root, "link.md"), []byte("x")); return err }, ErrSymlink},
		{"append to a link", func() error { _, err := f.OpenAppend(filepath.Join(root, "link.md"), false); return err }, ErrSymlink},
		{"mkdir through a linked dir", func() error { return f.MkdirAll(filepath.Join(root, "dirlink", "d")) }, ErrOutside},
		{"rename into a linked dir", func() error {
			_ = os.WriteFile(filepath.Join(root, "mv.md"), []byte("x"), 0o644)
			return f.Rename(filepath.Join(root, "mv.md"), filepath.Join(root, "dirlink", "mv.md"))
		}, ErrOutside},
	}
	for _, tc := range writes {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if b, _ := os.ReadFile(target); string(b) != "root:x:0:0\n" {
				t.Fatalf("outside file changed: %q", b)
			}
			if des, _ := os.ReadDir(outside); len(des) != 1 {
				t.Fatalf("outside dir gained files: %v", des)
			}
			if fi, err := os.Lstat(filepath.Join(root, "link.md")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("the link was replaced: %v %v", fi, err)
			}
		})
	}
}

// TestReplace is the compare-and-swap: it writes only over what was read.
func TestReplace(t *testing.T) {
	f, root, _ := newFS(t)
	p := filepath.Join(root, "e.md")
	if err := os.WriteFile(p, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, v, err := f.ReadVersion(p, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	// An in-place edit after the read: the swap must refuse.
	if err := os.WriteFile(p, []byte("hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Replace(p, []byte("ours"), v); !errors.Is(err, ErrChanged) {
		t.Fatalf("Replace over an edit = %v, want ErrChanged", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "hand" {
		t.Fatalf("edit lost: %q", b)
	}
	_, v, _ = f.ReadVersion(p, 1<<20)
	written, err := f.Replace(p, []byte("ours"), v)
	if err != nil {
		t.Fatal(err)
	}
	// The Version Replace returns is what a read now returns: a second swap needs no read.
	if _, err := f.Replace(p, []byte("ours again"), written); err != nil {
		t.Fatalf("replace against the written version: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "ours again" {
		t.Fatalf("got %q", b)
	}
	// Creating with Missing fails once someone else created it.
	q := filepath.Join(root, "new.md")
	if _, err := f.Replace(q, []byte("a"), Missing); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Replace(q, []byte("b"), Missing); !errors.Is(err, ErrChanged) {
		t.Fatalf("second create = %v", err)
	}
	des, _ := os.ReadDir(root)
	for _, de := range des {
		if IsTempName(de.Name()) {
			t.Fatalf("temp file left: %s", de.Name())
		}
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	f, root, _ := newFS(t)
	old := filepath.Join(root, "k", ".SKILL.md.tmp-abc")
	young := filepath.Join(root, "k", ".SKILL.md.tmp-def")
	_ = os.MkdirAll(filepath.Dir(old), 0o755)
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * time.Hour)
	_ = os.Chtimes(old, past, past)
	n, err := f.RemoveStaleTemps(root, time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v", n, err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Fatal("young temp removed")
	}
}

// TestReadDirNames lists the same names as ReadDir, sorted, with ReadDir's
// errors: a missing directory, one reached through a link out of the root.
func TestReadDirNames(t *testing.T) {
	f, root, outside := newFS(t)
	for _, name := range []string{"b.md", "a.md", "c.txt"} {
		if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	des, err := f.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, de := range des {
		want = append(want, de.Name())
	}
	got, err := f.ReadDirNames(root)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ReadDirNames = %v, %v; ReadDir names %v", got, err, want)
	}
	if _, err := f.ReadDirNames(filepath.Join(root, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing directory: %v", err)
	}
	if _, err := f.ReadDirNames(filepath.Join(root, "dirlink")); !errors.Is(err, ErrOutside) {
		t.Fatalf("linked directory out of the root: %v", err)
	}
	if _, err := f.ReadDirNames(outside); !errors.Is(err, ErrOutside) {
		t.Fatalf("not under any root: %v", err)
	}
}

// TestRemoveStaleTempsSince: a sweep given the time of the last one passes
// over a folder without subfolders whose names have not changed since (its
// temp files, if any, were there for the last sweep to find), and still
// lists a folder with subfolders and one that changed.
func TestRemoveStaleTempsSince(t *testing.T) {
	f, root, _ := newFS(t)
	if !leafCountingAt(root) {
		t.Skip("this file system's link counts do not tell leaves")
	}
	leaf := filepath.Join(root, "k", "entry", ".SKILL.md.tmp-abc")
	inner := filepath.Join(root, "k", ".SKILL.md.tmp-def") // k has a subfolder
	past := time.Now().Add(-2 * time.Hour)
	seed := func() {
		for _, p := range []string{leaf, inner} {
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			_ = os.Chtimes(p, past, past)
		}
	}
	seed()
	// the last sweep came after the leaf's last change: passed over
	n, err := f.RemoveStaleTempsSince(root, time.Hour, time.Now().Add(time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v; want the one beside a subfolder", n, err)
	}
	if _, err := os.Stat(leaf); err != nil {
		t.Fatal("a quiet leaf was listed")
	}
	// the leaf changed after the last sweep: listed
	n, err = f.RemoveStaleTempsSince(root, time.Hour, time.Now().Add(-time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v; want the one in the changed leaf", n, err)
	}
	if _, err := os.Stat(leaf); err == nil {
		t.Fatal("a stale temp file in a changed leaf stayed")
	}
}
