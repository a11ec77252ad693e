package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Refusals. Each is wrapped with the path and the operation.
var (
	// ErrOutside is a path, or a link on it, that leads out of every root.
	ErrOutside = errors.New("leads outside the data directory")
	// ErrSymlink is a write target that is a symbolic link.
	ErrSymlink = errors.New("is a symbolic link (somni never writes through links)")
	// ErrNotRegular is a read of something that is not a regular file (FIFO, device, socket, directory).
	ErrNotRegular = errors.New("is not a regular file")
	// ErrTooLarge is a file over the caller's read limit.
	ErrTooLarge = errors.New("is larger than the limit")
	// ErrChanged is a compare-and-swap that found the file changed on every try.
	ErrChanged = errors.New("changed on disk while it was being rewritten")
)

// IsRefusal reports whether err is one of the boundary's refusals (as
// opposed to a missing file or an I/O error): what doctor lists.
func IsRefusal(err error) bool {
	return errors.Is(err, ErrOutside) || errors.Is(err, ErrSymlink) || errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge)
}

// FS confines file access to a set of root directories.
type FS struct {
	roots []string // absolute and clean, longest first so nested roots resolve to the innermost
}

// New returns an FS over roots (absolute paths; relative ones are made absolute).
// A root that is nested in another still counts as its own root.
func New(roots ...string) (*FS, error) {
	f := &FS{}
	for _, r := range roots {
		if r == "" {
			continue
		}
		a, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("safefs: root %s: %w", r, err)
		}
		f.roots = append(f.roots, filepath.Clean(a))
	}
	if len(f.roots) == 0 {
		return nil, errors.New("safefs: no root")
	}
	sort.Slice(f.roots, func(i, j int) bool { return len(f.roots[i]) > len(f.roots[j]) })
	return f, nil
}

// Roots returns the roots, innermost first.
func (f *FS) Roots() []string { return append([]string(nil), f.roots...) }

// Contains reports whether p lies lexically inside one of the roots (the root itself included).
func (f *FS) Contains(p string) bool {
	_, _, ok := f.split(p)
	return ok
}

// split finds the innermost root holding p and p's path relative to it.
func (f *FS) split(p string) (root, rel string, ok bool) {
	p = filepath.Clean(p)
	for _, r := range f.roots {
		if p == r {
			return r, ".", true
		}
		if strings.HasPrefix(p, r+string(filepath.Separator)) {
			return r, p[len(r)+1:], true
		}
	}
	return "", "", false
}

// open resolves p to its root, opened for this one operation: a Root holds the
// directory's descriptor, and a long-lived one would keep serving a folder a
// person has since deleted and recreated.
func (f *FS) open(op, p string) (*os.Root, string, error) {
	root, rel, ok := f.split(p)
	if !ok {
		return nil, "", &fs.PathError{Op: op, Path: p, Err: ErrOutside}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, "", &fs.PathError{Op: op, Path: p, Err: err}
	}
	return r, rel, nil
}

// mapErr turns os.Root's escape error (its sentinel is unexported) into ErrOutside.
func mapErr(op, p string, err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "path escapes from parent") {
		return &fs.PathError{Op: op, Path: p, Err: ErrOutside}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: p, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// Stat returns p's file info, following links that stay inside the root.
func (f *FS) Stat(p string) (fs.FileInfo, error) {
	r, rel, err := f.open("stat", p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	fi, err := r.Stat(rel)
	return fi, mapErr("stat", p, err)
}

// Lstat returns p's file info without following a final link.
func (f *FS) Lstat(p string) (fs.FileInfo, error) {
	r, rel, err := f.open("lstat", p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	fi, err := r.Lstat(rel)
	return fi, mapErr("lstat", p, err)
}

// Exists reports whether something (of any type, a dangling link included) is at p.
func (f *FS) Exists(p string) bool {
	_, err := f.Lstat(p)
	return err == nil
}

// ReadDir lists directory p sorted by name; a missing directory is fs.ErrNotExist.
func (f *FS) ReadDir(p string) ([]fs.DirEntry, error) {
	r, rel, err := f.open("readdir", p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	des, err := fs.ReadDir(r.FS(), filepath.ToSlash(rel))
	return des, mapErr("readdir", p, err)
}

// ReadDirNames lists the names in directory p sorted, as ReadDir does, but
// stats nothing: inside an os.Root, ReadDir lstats every entry (a lazy stat
// cannot be done there), so a caller that only reads names (the next free
// daily number, at every session-log rotation) would pay one fstatat per
// file in the folder.
func (f *FS) ReadDirNames(p string) ([]string, error) {
	r, rel, err := f.open("readdir", p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d, err := r.Open(rel)
	if err != nil {
		return nil, mapErr("readdir", p, err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, mapErr("readdir", p, err)
	}
	sort.Strings(names)
	return names, nil
}

// WalkDir walks the tree at start like filepath.WalkDir, with absolute paths,
// never descending through a link (a linked directory is reported as a link).
func (f *FS) WalkDir(start string, fn fs.WalkDirFunc) error {
	r, rel, err := f.open("walk", start)
	if err != nil {
		return fn(start, nil, err)
	}
	defer r.Close()
	root, _, _ := f.split(start)
	return walkRoot(r, root, rel, "", fn)
}

// WalkNamed is WalkDir reporting only the folders and the files called
// name (the memory layout's SKILL.md). It may skip listing a folder the
// file system says has no subfolders and look name up in it instead, so a
// tree of 50k entry folders is read with one lookup each rather than a
// listing each.
func (f *FS) WalkNamed(start, name string, fn fs.WalkDirFunc) error {
	r, rel, err := f.open("walk", start)
	if err != nil {
		return fn(start, nil, err)
	}
	defer r.Close()
	root, _, _ := f.split(start)
	return walkRoot(r, root, rel, name, fn)
}

// MkdirAll creates directory p and its parents inside the root (the root
// itself is created as configured).
func (f *FS) MkdirAll(p string) error {
	root, _, ok := f.split(p)
	if !ok {
		return &fs.PathError{Op: "mkdir", Path: p, Err: ErrOutside}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("safefs: create root %s: %w", root, err)
	}
	r, rel, err := f.open("mkdir", p)
	if err != nil {
		return err
	}
	defer r.Close()
	if rel == "." {
		return nil
	}
	return mapErr("mkdir", p, r.MkdirAll(rel, 0o755))
}

// Remove removes the file or empty directory p (a link itself, never its target).
func (f *FS) Remove(p string) error {
	r, rel, err := f.open("remove", p)
	if err != nil {
		return err
	}
	defer r.Close()
	return mapErr("remove", p, r.Remove(rel))
}

// Link makes dst a second name of the file src (a hard link), refusing a
// dst that exists; both must be inside one root. It is how session logs
// closed to bound descriptors are marked live: the mark shares the locked
// owner file, so the lock speaks for every log it marks.
func (f *FS) Link(src, dst string) error {
	sr, srel, ok1 := f.split(src)
	dr, drel, ok2 := f.split(dst)
	if !ok1 || !ok2 || sr != dr {
		return &fs.PathError{Op: "link", Path: src + " → " + dst, Err: ErrOutside}
	}
	r, err := os.OpenRoot(sr)
	if err != nil {
		return fmt.Errorf("safefs: link %s: %w", dst, err)
	}
	defer r.Close()
	return mapErr("link", dst, r.Link(srel, drel))
}

// Rename moves src to dst, refusing a dst that exists (archives never overwrite).
// Both must be inside roots; when they are in different roots (a memory and a
// skill folder configured apart) the move is a plain rename of the two paths
// after the same checks.
func (f *FS) Rename(src, dst string) error {
	if f.Exists(dst) {
		return &fs.PathError{Op: "rename", Path: dst, Err: fs.ErrExist}
	}
	sr, srel, ok1 := f.split(src)
	dr, drel, ok2 := f.split(dst)
	if !ok1 || !ok2 {
		return &fs.PathError{Op: "rename", Path: src + " → " + dst, Err: ErrOutside}
	}
	if err := f.MkdirAll(filepath.Dir(dst)); err != nil {
		return err
	}
	if sr == dr {
		r, err := os.OpenRoot(sr)
		if err != nil {
			return fmt.Errorf("safefs: rename %s: %w", src, err)
		}
		defer r.Close()
		return mapErr("rename", src, r.Rename(srel, drel))
	}
	// Different roots: check each side's parent resolves inside its root.
	for _, p := range []string{filepath.Dir(src), filepath.Dir(dst)} {
		if err := f.checkResolvesInside(p); err != nil {
			return err
		}
	}
	if fi, err := f.Lstat(src); err != nil {
		return err
	} else if fi.Mode()&fs.ModeSymlink != 0 {
		return &fs.PathError{Op: "rename", Path: src, Err: ErrSymlink}
	}
	return mapErr("rename", src, os.Rename(src, dst))
}

// checkResolvesInside reports ErrOutside when directory p, links resolved, is not inside its root.
func (f *FS) checkResolvesInside(p string) error {
	root, _, ok := f.split(p)
	if !ok {
		return &fs.PathError{Op: "resolve", Path: p, Err: ErrOutside}
	}
	rr, err1 := filepath.EvalSymlinks(root)
	pr, err2 := filepath.EvalSymlinks(p)
	if err1 != nil || err2 != nil {
		return &fs.PathError{Op: "resolve", Path: p, Err: errors.Join(err1, err2)}
	}
	if pr != rr && !strings.HasPrefix(pr, rr+string(filepath.Separator)) {
		return &fs.PathError{Op: "resolve", Path: p, Err: ErrOutside}
	}
	return nil
}
