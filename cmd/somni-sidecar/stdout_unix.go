//go:build unix

package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// isolateStdout moves the protocol onto a private duplicate of fd 1 and
// points fd 1 (and os.Stdout) at stderr. Anything else that writes to
// stdout — a stray fmt.Println, a native library's warning — then lands in
// the log instead of corrupting the JSON-RPC stream.
func isolateStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("dup stdout: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("redirect stdout to stderr: %w", err)
	}
	proto := os.NewFile(uintptr(fd), "protocol-stdout")
	// The *os.File that was os.Stdout owns fd 1: unreferenced, the collector
	// would close fd 1, and the next file opened would take its number (the
	// test saw fd 1 become /dev/null once the index opened after the first
	// reply, with a collection soon after).
	fd1 = os.Stdout
	os.Stdout = os.Stderr
	return proto, nil
}

// fd1 keeps the original os.Stdout, now fd 1 pointing at stderr, open.
var fd1 *os.File
