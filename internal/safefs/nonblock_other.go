//go:build !unix

package safefs

// oNonblock is 0 where opens of special files do not block (Windows has no FIFOs in the file system).
const oNonblock = 0
