//go:build !unix

package main

import "os"

// isolateStdout is a no-op where fds cannot be rearranged: library code
// already never writes to stdout.
func isolateStdout() (*os.File, error) { return os.Stdout, nil }
