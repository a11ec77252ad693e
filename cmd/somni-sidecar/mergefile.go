package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/memmerge"
	"github.com/somni-dev/somni/internal/safefs"
)

// mergeFileUsage is how git is told to run the driver (.git/config or
// `git config`): %O base, %A ours (the result is written back there), %B
// theirs, %P the file's path in the tree.
const mergeFileUsage = `usage: somni-sidecar merge-file %O %A %B %P (git config merge.somni.driver "somni-sidecar merge-file %O %A %B %P")`

// cmdMergeFile is git's merge driver for memory files: it merges %B into %A
// (memmerge.Merge) and writes their version that could not be merged as a
// sibling file in the work tree, at its path under the current directory
// (git runs drivers at the top of the work tree), so the sync engine's next
// commit takes it. It exits 0 whenever nothing is lost, a sibling included;
// otherwise 1 with one sentence on stderr, %A left as ours, and git leaves
// the file conflicted for the engine.
func cmdMergeFile(args []string, stderr io.Writer) int {
	if len(args) != 4 {
		fmt.Fprintln(stderr, mergeFileUsage)
		return 2
	}
	if err := mergeFile(args[0], args[1], args[2], args[3]); err != nil {
		fmt.Fprintf(stderr, "somni-sidecar merge-file: %s was not merged, git leaves it conflicted: %v.\n", args[3], err)
		return 1
	}
	return 0
}

func mergeFile(basePath, oursPath, theirsPath, treePath string) error {
	top, err := os.Getwd()
	if err != nil {
		return err
	}
	abs := make([]string, 3)
	roots := []string{top}
	for i, p := range []string{basePath, oursPath, theirsPath} {
		if abs[i], err = filepath.Abs(p); err != nil {
			return err
		}
		roots = append(roots, filepath.Dir(abs[i]))
	}
	// git's own temp copies of the three versions may lie anywhere it chose;
	// only the sibling is confined to the work tree.
	sides, err := safefs.New(roots...)
	if err != nil {
		return err
	}
	tree, err := safefs.New(top)
	if err != nil {
		return err
	}
	base, err := sides.ReadFile(abs[0], memmerge.MaxSideBytes)
	if err != nil {
		return err
	}
	if len(base) == 0 {
		base = nil // git's base for a file both sides added
	}
	ours, oursVersion, err := sides.ReadVersion(abs[1], memmerge.MaxSideBytes)
	if err != nil {
		return err
	}
	theirs, err := sides.ReadFile(abs[2], memmerge.MaxSideBytes)
	if err != nil {
		return err
	}
	res, err := memmerge.Merge(filepath.ToSlash(treePath), base, ours, theirs)
	if err != nil {
		return err
	}
	// The sibling first: once %A says merged, their text must already be safe.
	if res.Sibling != nil {
		if err := writeSibling(tree, top, res.Sibling); err != nil {
			return err
		}
	}
	if bytes.Equal(res.Merged, ours) {
		return nil
	}
	_, err = sides.Replace(abs[1], res.Merged, oursVersion)
	return err
}

// writeSibling creates the sibling under top, never through a link and never
// over another file: one already there with the same bytes is this merge
// run before (its name hashes their text).
func writeSibling(tree *safefs.FS, top string, s *memmerge.Sibling) error {
	if !fs.ValidPath(s.Path) || strings.Contains(s.Path, `\`) {
		return fmt.Errorf("sibling path %q is not a relative path inside the work tree", s.Path)
	}
	p := filepath.Join(top, filepath.FromSlash(s.Path))
	if err := tree.MkdirAll(filepath.Dir(p)); err != nil {
		return err
	}
	_, err := tree.Create(p, s.Data)
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	if there, rerr := tree.ReadFile(p, int64(len(s.Data))+1); rerr == nil && bytes.Equal(there, s.Data) {
		return nil
	}
	return fmt.Errorf("%s already holds another file", s.Path)
}
