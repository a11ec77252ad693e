//go:build !unix

package safefs

import (
	"io/fs"
	"os"
	"path/filepath"
)

// walkRoot is WalkDir inside r: fs.WalkDir over the root, which resolves
// each directory from the root again.
func walkRoot(r *os.Root, root, rel string, fn fs.WalkDirFunc) error {
	return fs.WalkDir(r.FS(), filepath.ToSlash(rel), func(p string, d fs.DirEntry, err error) error {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err != nil {
			err = mapErr("walk", abs, err)
		}
		return fn(abs, d, err)
	})
}
