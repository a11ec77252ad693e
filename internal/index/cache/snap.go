package cache

import "os"

// The index keeps its corpus whole in a second file beside the cache (its
// snapshot, written and read by package index): like the cache it is
// derived and machine-local, and a cache file rebuilt under another
// identity makes it useless (see Generation). It lives and goes with the
// cache file, so its file operations are here.

// SnapshotPath is the snapshot file of the cache file at p.
func SnapshotPath(p string) string { return p + "-snap" }

// OpenSnapshot opens the snapshot of the cache file at p to read.
func OpenSnapshot(p string) (*os.File, error) { return os.Open(SnapshotPath(p)) }

// WriteSnapshot writes parts as the snapshot of the cache file at p,
// through a temp file beside it renamed over it: a reader sees the old
// file or the new one. The temp name is fixed, so a process killed
// mid-write leaves one file the next write replaces; two processes
// writing at once can leave a file whose checksum fails, which a reader
// passes over.
func WriteSnapshot(p string, parts [][]byte) error {
	dst := SnapshotPath(p)
	tmp := dst + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	for _, b := range parts {
		if err == nil {
			_, err = f.Write(b)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
