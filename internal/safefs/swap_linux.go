//go:build linux

package safefs

import (
	"errors"

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
