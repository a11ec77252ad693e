package safefs

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TempPrefix and TempInfix name the temp files of atomic writes:
// ".<base>.tmp-<random>", hidden so no scan takes them for memories.
const (
	TempPrefix = "."
	TempInfix  = ".tmp-"
)

// IsTempName reports whether a file name is an atomic write's temp file.
func IsTempName(name string) bool {
	return strings.HasPrefix(name, TempPrefix) && strings.Contains(name, TempInfix)
}

// parent is p's directory opened inside the root, for calls by base name.
type parent struct {
	root *os.Root // the directory as a Root
	base string
}

func (f *FS) openParent(op, p string, create bool) (*parent, error) {
	if create {
		if err := f.MkdirAll(filepath.Dir(p)); err != nil {
			return nil, err
		}
	}
	r, rel, err := f.open(op, p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if rel == "." {
		return nil, &fs.PathError{Op: op, Path: p, Err: errors.New("is a root directory")}
	}
	d, err := r.OpenRoot(filepath.Dir(rel))
	if err != nil {
		return nil, mapErr(op, p, err)
	}
	return &parent{root: d, base: filepath.Base(rel)}, nil
}

func (d *parent) close() { _ = d.root.Close() }

// checkTarget refuses a link or a non-regular file where a regular file is to be written.
func (d *parent) checkTarget(p string) (exists bool, err error) {
	fi, err := d.root.Lstat(d.base)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, mapErr("lstat", p, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return true, &fs.PathError{Op: "write", Path: p, Err: ErrSymlink}
	}
	if !fi.Mode().IsRegular() {
		return true, &fs.PathError{Op: "write", Path: p, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode()))}
	}
	return true, nil
}

// tempName is a fresh random temp-file name beside the target:
// ".<base>.tmp-<random>".
func (d *parent) tempName() string {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	return TempPrefix + d.base + TempInfix + hex.EncodeToString(rnd[:])
}

// writeTemp writes data to a fresh temp file beside the target and fsyncs it.
// The Version is the temp file's: once it is swapped or linked in, it is the
// target's, so the writer can compare-and-swap again without reading it back.
func (d *parent) writeTemp(p string, data []byte) (string, Version, error) {
	for try := 0; try < 8; try++ {
		name := d.tempName()
		file, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", Version{}, fmt.Errorf("safefs: temp file for %s: %w", p, err)
		}
		_, werr := file.Write(data)
		if werr == nil {
			werr = file.Sync()
		}
		var info fs.FileInfo
		if werr == nil {
			info, werr = file.Stat()
		}
		cerr := file.Close()
		if err := errors.Join(werr, cerr); err != nil {
			_ = d.root.Remove(name)
			return "", Version{}, fmt.Errorf("safefs: write temp file for %s: %w", p, err)
		}
		return name, Version{info: info, data: data}, nil
	}
	return "", Version{}, fmt.Errorf("safefs: no free temp name beside %s", p)
}

// sync makes a rename in the directory durable; file systems that cannot
// fsync a directory are tolerated.
func (d *parent) sync() error {
	dir, err := d.root.Open(".")
	if err != nil {
		return fmt.Errorf("safefs: open dir: %w", err)
	}
	defer dir.Close()
	if err := dir.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("safefs: fsync dir: %w", err)
	}
	return nil
}

// Create writes a new file p atomically and fails with fs.ErrExist instead of
// replacing one (link(2) refuses an existing name, rename(2) would not). It
// returns the Version written.
func (f *FS) Create(p string, data []byte) (Version, error) {
	d, err := f.openParent("create", p, true)
	if err != nil {
		return Version{}, err
	}
	defer d.close()
	if exists, err := d.checkTarget(p); err != nil {
		return Version{}, err
	} else if exists {
		return Version{}, &fs.PathError{Op: "create", Path: p, Err: fs.ErrExist}
	}
	tmp, ver, err := d.writeTemp(p, data)
	if err != nil {
		return Version{}, err
	}
	defer d.root.Remove(tmp)
	if err := d.root.Link(tmp, d.base); err != nil {
		return Version{}, mapErr("create", p, err)
	}
	return ver, d.sync()
}

// Replace writes data over p only if p still holds what prev read (a
// compare-and-swap); otherwise it changes nothing and returns ErrChanged, and
// the caller re-reads and re-applies its change. prev = Missing creates p and
// fails with ErrChanged if it appeared meanwhile.
//
// The check and the swap cannot be one step on a file system, so Replace
// swaps with an exchange where the kernel offers one and then checks what it
// displaced: an edit that landed between check and swap (in place or by
// rename) is swapped back, never lost. It returns the Version written.
func (f *FS) Replace(p string, data []byte, prev Version) (Version, error) {
	if !prev.Exists() {
		ver, err := f.Create(p, data)
		if errors.Is(err, fs.ErrExist) {
			return Version{}, &fs.PathError{Op: "replace", Path: p, Err: ErrChanged}
		}
		return ver, err
	}
	d, err := f.openParent("replace", p, false)
	if err != nil {
		return Version{}, err
	}
	defer d.close()
	if exists, err := d.checkTarget(p); err != nil {
		return Version{}, err
	} else if !exists {
		return Version{}, &fs.PathError{Op: "replace", Path: p, Err: ErrChanged}
	}
	if !d.holds(d.base, prev) {
		return Version{}, &fs.PathError{Op: "replace", Path: p, Err: ErrChanged}
	}
	tmp, ver, err := d.writeTemp(p, data)
	if err != nil {
		return Version{}, err
	}
	exchanged, err := d.swap(tmp)
	if err != nil {
		_ = d.root.Remove(tmp)
		return Version{}, mapErr("replace", p, err)
	}
	if exchanged {
		d.settle(tmp)
	}
	if exchanged && !d.holds(tmp, prev) {
		// Someone wrote between our check and the swap: put their file back.
		if _, err := d.swap(tmp); err != nil {
			return Version{}, fmt.Errorf("safefs: replace %s: restoring a concurrent edit (kept as %s): %w", p, tmp, err)
		}
		_ = d.root.Remove(tmp)
		return Version{}, &fs.PathError{Op: "replace", Path: p, Err: ErrChanged}
	}
	if exchanged {
		_ = d.root.Remove(tmp)
	}
	return ver, d.sync()
}

// holds reports whether name is still the file and the bytes prev read.
func (d *parent) holds(name string, prev Version) bool {
	file, err := d.root.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return false
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil || !info.Mode().IsRegular() || !os.SameFile(info, prev.info) ||
		info.Size() != int64(len(prev.data)) || !info.ModTime().Equal(prev.info.ModTime()) {
		return false
	}
	data, err := readAtMost(file, int64(len(prev.data)))
	return err == nil && bytes.Equal(data, prev.data)
}

// CreateLocked is Create for a file its writer keeps open and locked: the
// new file is opened for appending, handed to lock (which takes the
// writer's lock on it) and only then linked under its name, so no other
// process ever sees p unlocked. It returns the open file; on any failure p
// is not created.
func (f *FS) CreateLocked(p string, data []byte, lock func(*os.File) error) (*os.File, error) {
	d, err := f.openParent("create", p, true)
	if err != nil {
		return nil, err
	}
	defer d.close()
	if exists, err := d.checkTarget(p); err != nil {
		return nil, err
	} else if exists {
		return nil, &fs.PathError{Op: "create", Path: p, Err: fs.ErrExist}
	}
	tmp := d.tempName()
	file, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("safefs: temp file for %s: %w", p, err)
	}
	defer d.root.Remove(tmp)
	fail := func(err error) (*os.File, error) {
		file.Close()
		return nil, err
	}
	if _, err := file.Write(data); err != nil {
		return fail(fmt.Errorf("safefs: write temp file for %s: %w", p, err))
	}
	if err := file.Sync(); err != nil {
		return fail(fmt.Errorf("safefs: write temp file for %s: %w", p, err))
	}
	if err := lock(file); err != nil {
		return fail(fmt.Errorf("safefs: lock %s: %w", p, err))
	}
	if err := d.root.Link(tmp, d.base); err != nil {
		return fail(mapErr("create", p, err))
	}
	if err := d.sync(); err != nil {
		return fail(err)
	}
	return file, nil
}

// OpenLock opens (creating) the regular file p to hold a lock on: never
// through a link, never truncating what is there.
func (f *FS) OpenLock(p string) (*os.File, error) {
	d, err := f.openParent("lock", p, true)
	if err != nil {
		return nil, err
	}
	defer d.close()
	if _, err := d.checkTarget(p); err != nil {
		return nil, err
	}
	file, err := d.root.OpenFile(d.base, os.O_RDWR|os.O_CREATE|oNonblock, 0o644)
	if err != nil {
		return nil, mapErr("lock", p, err)
	}
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
		file.Close()
		return nil, &fs.PathError{Op: "lock", Path: p, Err: ErrNotRegular}
	}
	return file, nil
}

// OpenAppend opens p for appending. With create it makes a new file and
// fails with fs.ErrExist if one is there; without, p must be an existing
// regular file that is not a link.
func (f *FS) OpenAppend(p string, create bool) (*os.File, error) {
	d, err := f.openParent("append", p, create)
	if err != nil {
		return nil, err
	}
	defer d.close()
	if create {
		file, err := d.root.OpenFile(d.base, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		if err != nil {
			return nil, mapErr("create", p, err)
		}
		return file, nil
	}
	before, err := d.root.Lstat(d.base)
	if err != nil {
		return nil, mapErr("append", p, err)
	}
	if before.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "append", Path: p, Err: ErrSymlink}
	}
	file, err := d.root.OpenFile(d.base, os.O_WRONLY|os.O_APPEND|oNonblock, 0)
	if err != nil {
		return nil, mapErr("append", p, err)
	}
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() || !os.SameFile(info, before) {
		file.Close()
		return nil, &fs.PathError{Op: "append", Path: p, Err: ErrChanged}
	}
	return file, nil
}

// RemoveStaleTemps deletes atomic-write temp files under dir older than
// age: what a killed write left. Younger ones may be another process's write
// in progress. It returns how many it removed.
func (f *FS) RemoveStaleTemps(dir string, age time.Duration) (int, error) {
	return f.RemoveStaleTempsSince(dir, age, time.Time{})
}

// RemoveStaleTempsSince is RemoveStaleTemps that passes over a folder
// without subfolders whose names have not changed since since (its ctime
// is older: a temp file made in it, or removed, would have moved it),
// where the file system's link counts say which folders those are: a
// sweep after one that ran at t, with since = t - age, reads one stat per
// quiet entry folder instead of listing it (100k entry folders: 1.9 s of
// CPU listed, <numbers> passed over). A zero since lists every folder.
func (f *FS) RemoveStaleTempsSince(dir string, age time.Duration, since time.Time) (int, error) {
	leaves := !since.IsZero() && leafCountingAt(dir)
	n := 0
	cutoff := time.Now().Add(-age)
	err := f.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return nil // unreadable folders are doctor's business, not a cleanup failure
		}
		if de.IsDir() {
			if p != dir && strings.HasPrefix(de.Name(), ".") {
				return fs.SkipDir // .git and the like hold no temp files of ours
			}
			if p != dir && quietLeaf(de, since, leaves) {
				return fs.SkipDir
			}
			return nil
		}
		if !de.Type().IsRegular() || !IsTempName(de.Name()) {
			return nil
		}
		if info, err := de.Info(); err == nil && info.ModTime().Before(cutoff) {
			if f.Remove(p) == nil {
				n++
			}
		}
		return nil
	})
	return n, err
}
