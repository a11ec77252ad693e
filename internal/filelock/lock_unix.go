//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// Lock takes f's exclusive advisory lock (flock): it belongs to the open
// file, so two opens conflict even in one process, and the kernel drops it
// when the holder dies, kill -9 included. Without wait a held lock is
// ErrLocked at once.
func Lock(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		default:
			return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
		}
	}
}

// Unlock releases f's lock (closing f releases it too).
func Unlock(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
	}
	return nil
}
