package safefs

import "golang.org/x/sys/unix"

// LeafCounting reports whether the file system holding fd counts a folder's
// subfolders in its link count (2 + subfolders), so a count of 2 proves a
// leaf: ext2/3/4, XFS and tmpfs do. Others may not (btrfs reports 1, some
// FUSE file systems 2 for every folder), and are listed folder by folder.
func LeafCounting(fd int) bool {
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil {
		return false
	}
	switch st.Type {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		return true
	}
	return false
}
