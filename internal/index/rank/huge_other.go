//go:build !linux

package rank

import "unsafe"

// hugePages does nothing here (see huge_linux.go).
func hugePages(unsafe.Pointer, uintptr) {}
