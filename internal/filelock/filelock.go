// Package filelock is the one OS advisory file lock of the data directory:
// the store's write and dream locks and every live session log's writer
// lock are this lock on different files. It belongs to the open file, so two
// opens conflict even in one process, and the system drops it when the
// holder dies (kill -9 included), so a crash never leaves a file locked.
//
// Files, by job:
//
//	filelock.go     ErrLocked, TryLock
//	lock_unix.go    Lock/Unlock with flock
//	lock_windows.go Lock/Unlock with LockFileEx on one byte far past any file's end
//	lock_other.go   Lock/Unlock without advisory locks (wasm, plan9): always granted
package filelock

import (
	"errors"
	"os"
)

// ErrLocked is a lock another open file (another process, or another store
// in this one) holds.
var ErrLocked = errors.New("locked by another process")

// TryLock reports whether nobody else holds f's lock, taking it if so.
func TryLock(f *os.File) bool { return Lock(f, false) == nil }
