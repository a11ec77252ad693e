// Package safefs is the data directory as a boundary: every read, listing,
// write, rename and removal of somni's memory files goes through an FS, which
// resolves each path inside one of its roots with openat-style calls
// (os.Root), so no link, however it is planted, leads a read or a write out
// of the data directory.
//
// The rule, enforced here and nowhere else:
//
//   - Reads follow a symbolic link only while it stays inside its root (a
//     relative link to a sibling folder works; /etc/passwd, an absolute link or
//     ../../ does not): ErrOutside.
//   - Writes never go through a link: a target that is a symlink is refused
//     (ErrSymlink) rather than followed or replaced.
//   - Only regular files are read, opened non-blocking so a FIFO or a device
//     named *.md never stalls a caller (ErrNotRegular).
//   - Every read has a byte limit chosen by the caller (ErrTooLarge past it).
//
// Map: fs.go (FS, roots, errors, stat/list/walk), read.go (bounded reads that
// return the Version read), write.go (atomic Create, compare-and-swap Replace,
// both returning the Version written; rename, append opens), swap_linux.go / swap_other.go (how Replace
// swaps the new bytes in: renameat2 RENAME_EXCHANGE where the kernel has it,
// so a file replaced by someone else between check and swap is put back),
// nonblock_unix.go / nonblock_other.go (opening without blocking on a FIFO),
// walk_unix.go / walk_other.go (how WalkDir and WalkNamed descend: by
// directory descriptor with O_NOFOLLOW where the system has openat, through
// the root elsewhere), leaf_linux.go / leaf_other.go (LeafCounting: which
// file systems' link counts prove a folder has no subfolders, so WalkNamed
// and the watcher look into it by name instead of listing it),
// dirents_linux.go (ReadDirNamesFd: a folder's names and types straight
// from getdents on a raw descriptor, for the watcher's walk and the walks
// here) / dirents_other.go (the same through os.File.ReadDir elsewhere).
package safefs
