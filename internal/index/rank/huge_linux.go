package rank

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePages asks for the n bytes at p to be backed by huge pages where
// the kernel allows it (transparent_hugepage "madvise" or "always"): a
// start's few large slabs (the snapshot's strings, the entries, the
// postings) are written once, whole, and kept, and faulting them in 2 MB
// at a time instead of 4 KB makes their first touch several times cheaper
// (docs/ARCHITECTURE.md, Measurements). Only the 2 MB-aligned middle is
// advised; a failure changes nothing.
func hugePages(p unsafe.Pointer, n uintptr) {
	const huge = 2 << 20
	start := (uintptr(p) + huge - 1) &^ (huge - 1)
	end := (uintptr(p) + n) &^ (huge - 1)
	if end <= start {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start), unix.MADV_HUGEPAGE)
}
