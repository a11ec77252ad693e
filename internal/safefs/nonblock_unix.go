//go:build unix

package safefs

import "syscall"

// oNonblock keeps an open of a FIFO from waiting for a writer.
const oNonblock = syscall.O_NONBLOCK
