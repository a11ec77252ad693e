//go:build linux

package testutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// SmallDisk mounts a tmpfs of size bytes for the test. Mounting needs root
// (CAP_SYS_ADMIN), which CI has: the test fails rather than skips without
// it, so a run that did not check a full disk never passes as one that did.
func SmallDisk(t testing.TB, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Fatalf("cannot mount a %d-byte tmpfs at %s (%v): the disk-full tests need root or CAP_SYS_ADMIN "+
			"and a kernel with tmpfs, as CI runs them; as another user: sudo -E go test -run DiskFull", size, dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// FillDisk writes one file under dir until the file system refuses it, and
// returns a func that removes it again: the space comes back at once. The
// disk is full when the step under test writes, whatever the scheduler
// does: nothing races the code under test.
func FillDisk(t testing.TB, dir string) (free func()) {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for err == nil {
		_, err = f.Write(chunk)
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling %s: %v, want ENOSPC", dir, err)
	}
	return func() {
		t.Helper()
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}
