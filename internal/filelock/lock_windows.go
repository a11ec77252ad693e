//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffsetHigh places the one locked byte: far past the end of any
// file we lock. Windows byte-range locks are mandatory — a locked range
// cannot be read by anyone else — so locking a session log's first byte
// would stop the other process from reading the log; nothing ever reads
// 2^62 bytes in.
const lockOffsetHigh = 1 << 30

// Lock takes f's exclusive lock with LockFileEx. Like flock it belongs
// to the handle, conflicts between two handles of one process, and the
// system releases it when the process dies. Without wait a held lock is
// ErrLocked at once.
func Lock(f *os.File, wait bool) error {
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &ol)
	if err == nil {
		return nil
	}
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrLocked
	}
	return &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: err}
}

// Unlock releases f's lock (closing f releases it too).
func Unlock(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	if err := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol); err != nil {
		return &os.PathError{Op: "UnlockFileEx", Path: f.Name(), Err: err}
	}
	return nil
}
