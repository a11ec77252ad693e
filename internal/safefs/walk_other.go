//go:build !unix

package safefs

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// walkRoot is WalkDir inside r: fs.WalkDir over the root, which resolves
// each directory from the root again; with only set, other files are not
// reported (every folder is still listed).
func walkRoot(r *os.Root, root, rel, only string, fn fs.WalkDirFunc) error {
	return fs.WalkDir(r.FS(), filepath.ToSlash(rel), func(p string, d fs.DirEntry, err error) error {
		if only != "" && err == nil && !d.IsDir() && d.Name() != only {
			return nil
		}
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err != nil {
			err = mapErr("walk", abs, err)
		}
		return fn(abs, d, err)
	})
}

// quietLeaf is false here: every folder is listed.
func quietLeaf(fs.DirEntry, time.Time, bool) bool { return false }

// leafCountingAt is false here.
func leafCountingAt(string) bool { return false }
