// Package lazyre compiles a regular expression on its first use, once: a
// package's patterns then cost a process nothing until something needs
// them, where a package-level regexp.MustCompile runs at every start (the
// sidecar's first reply is due in 10 ms; a CLI command or a sidecar before
// its first capture or compaction never runs most of them).
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern the first time it is called
// (panicking, as regexp.MustCompile does, on a pattern that does not
// compile) and the same *regexp.Regexp every time.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
