package memory

import (
	"errors"
	"os"
)

// errLocked is a lock another open file (another process, or another store
// in this one) holds.
var errLocked = errors.New("locked by another process")

// lockWriter marks f as held by a live session writer. The lock dies with
// the process, so a log still locked is not a crash leftover.
func lockWriter(f *os.File) error { return lockFile(f, false) }

// tryLock reports whether nobody else holds f's writer lock (and takes it).
func tryLock(f *os.File) bool { return lockFile(f, false) == nil }
