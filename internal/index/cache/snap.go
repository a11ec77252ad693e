package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The index keeps its corpus whole in a second file beside the cache (its
// snapshot, written and read by package index): like the cache it is
// derived and machine-local, and a cache file rebuilt under another
// identity makes it useless (see Generation). It lives and goes with the
// cache file, so its file operations are here.

// SnapshotPath is the snapshot file of the cache file at p.
func SnapshotPath(p string) string { return p + "-snap" }

// OpenSnapshot opens the snapshot of the cache file at p to read, with
// its size: a regular file only, so a link planted in its place cannot
// make the index read a file outside the data dir (it is refused as
// fs.ErrInvalid).
func OpenSnapshot(p string) (*os.File, int64, error) {
	name := SnapshotPath(p)
	before, err := os.Lstat(name)
	if err != nil {
		return nil, 0, err
	}
	if !before.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("index snapshot %s: not a regular file: %w", name, fs.ErrInvalid)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) { // replaced between the two
		f.Close()
		return nil, 0, fmt.Errorf("index snapshot %s: changed while opened: %w", name, fs.ErrInvalid)
	}
	return f, after.Size(), nil
}

// WriteSnapshot writes parts as the snapshot of the cache file at p,
// through a temp file beside it renamed over it: a reader sees the old
// file or the new one. The temp file is made anew (whatever had its name,
// a link included, is removed first, and O_EXCL refuses to follow one
// planted meanwhile), so no write reaches outside the data dir; a rename
// replaces a link at the snapshot's own name, never its target. A process
// killed mid-write leaves a temp file the next write replaces; two
// processes writing at once can leave a file whose checksum fails, which
// a reader passes over.
func WriteSnapshot(p string, parts [][]byte) error {
	dst := SnapshotPath(p)
	tmp := dst + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("index snapshot: %w", err)
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("index snapshot: %w", err)
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
		return fmt.Errorf("index snapshot: %w", err)
	}
	return nil
}
