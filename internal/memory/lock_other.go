//go:build !unix && !windows

package memory

import "os"

// Without advisory locks (wasm, plan9) every lock is granted: the store
// then trusts that one process owns the data directory, which the host
// guarantees by spawning one.
func lockFile(*os.File, bool) error { return nil }

func unlockFile(*os.File) error { return nil }
