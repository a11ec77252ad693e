//go:build linux

package safefs

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// swap puts tmp in place of the target. With RENAME_EXCHANGE the file it
// displaced is left at tmp, so the caller can check it was the one it meant
// to replace (exchanged = true); file systems without the flag fall back to
// a plain rename (exchanged = false).
func (d *parent) swap(tmp string) (exchanged bool, err error) {
	dir, err := d.root.Open(".")
	if err != nil {
		return false, err
	}
	defer dir.Close()
	fd := int(dir.Fd())
	err = unix.Renameat2(fd, tmp, fd, d.base, unix.RENAME_EXCHANGE)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return false, d.root.Rename(tmp, d.base)
	}
	return false, err
}

// settle waits for a truncate already under way on the displaced file (at
// name) before Replace checks it. An editor's open(O_TRUNC) may have found
// that file by its path before the exchange and still be truncating it —
// ext4 can park the truncate for milliseconds waiting on the journal, which
// our own fsync keeps busy — and an edit that lands after the check would
// go to a file Replace is about to unlink. The truncate holds the inode's
// lock; a zero-length write takes the same lock, so it returns only after
// the truncate, and it changes nothing (not even the times). Best effort: a
// file we may not open for writing is checked as it is.
func (d *parent) settle(name string) {
	f, err := d.root.OpenFile(name, os.O_WRONLY|oNonblock, 0)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = unix.Write(int(f.Fd()), nil)
}
