//go:build unix

package memory

import (
	"os"
	"syscall"
)

// lockWriter marks f as held by a live session writer. The advisory lock
// dies with the process, so a log still locked is not a crash leftover.
func lockWriter(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

// tryLock reports whether nobody else holds f's writer lock (and takes it).
func tryLock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
