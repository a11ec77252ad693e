//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// DirEnt is one name a folder lists and its type bits (fs.FileMode.Type)
// as the listing says.
type DirEnt struct {
	Name string
	Type fs.FileMode
}

// IsDir reports whether the listing says the name is a folder.
func (e DirEnt) IsDir() bool { return e.Type.IsDir() }

// walkTree walks dir (an open directory inside the root, at abs) the way
// fs.WalkDir does, but descends by file descriptor: each subdirectory is
// opened relative to its parent's descriptor with O_NOFOLLOW, one openat,
// and an entry's Info is an fstatat on that descriptor. An os.Root walk
// resolves every directory from the root again, component by component,
// which was nearly half of a large store's restart (measured in
// docs/ARCHITECTURE.md, Measurements). The boundary
// holds as with os.Root: no component is ever followed as a link (a
// directory swapped for a link between listing and opening fails to open
// and is reported to fn as an error).
//
// With only set (WalkNamed), files not named only are not reported, a
// folder the file system says has no subfolders (LeafCounting) is not
// listed (its only is looked up by name instead, one fstatat where listing
// costs getdents), and subfolders are opened ahead, a chunk at a time, on
// several threads (openAhead); fn is still called in order, on one.
func walkTree(dir *os.File, abs string, fn fs.WalkDirFunc, only string, leaves bool) error {
	ents, err := readEnts(dir)
	if err != nil {
		// as fs.WalkDir: the directory is reported a second time, with the error
		if err := fn(abs, dirEntryOf(dir, abs), mapErr("walk", abs, err)); err != nil && err != filepath.SkipDir {
			return err
		}
	}
	if only != "" {
		ents = slices.DeleteFunc(ents, func(e DirEnt) bool { return !e.IsDir() && e.Name != only })
	}
	slices.SortFunc(ents, func(a, b DirEnt) int { return strings.Compare(a.Name, b.Name) })
	fd := int(dir.Fd())
	// two chunks' worth, reused in turn: 100k entry folders made 18 MB of them
	var bufs [2][]opened
	chunkOf := func(k int) []DirEnt {
		return ents[min(k*prefetchChunk, len(ents)):min((k+1)*prefetchChunk, len(ents))]
	}
	subs := openAhead(fd, chunkOf(0), only, leaves, &bufs[0])
	for k := 0; len(chunkOf(k)) > 0; k++ {
		// the next chunk is opened while fn sees this one: the lookups
		// and fn's work (one thread) overlap instead of taking turns
		next, ahead := chunkOf(k+1), (<-chan []opened)(nil)
		if len(next) > 0 && only != "" {
			ch := make(chan []opened, 1)
			go func(b *[]opened) { ch <- openAhead(fd, next, only, leaves, b) }(&bufs[(k+1)%2])
			ahead = ch
		}
		err := walkChunk(fd, abs, chunkOf(k), subs, fn, only, leaves)
		closeOpened(subs)
		if ahead != nil {
			subs = <-ahead
		} else if len(next) > 0 {
			subs = openAhead(fd, next, only, leaves, &bufs[(k+1)%2])
		}
		if err != nil {
			closeOpened(subs)
			if err == errSkipRest {
				return nil // a file's SkipDir skips the rest of its directory
			}
			return err
		}
	}
	return nil
}

// joinName is filepath.Join for a clean abs and a name a folder listed
// (never "." or "..", no separator), without Clean's pass over the whole
// path, which a listing pays twice an entry folder (docs/ARCHITECTURE.md,
// Measurements).
func joinName(abs, name string) string {
	if abs == "" || os.IsPathSeparator(abs[len(abs)-1]) {
		return abs + name
	}
	return abs + string(filepath.Separator) + name
}

// closeOpened closes the descriptors a chunk opened ahead still holds.
func closeOpened(subs []opened) {
	for i := range subs {
		if subs[i].fd >= 0 {
			unix.Close(subs[i].fd)
			subs[i].fd = -1
		}
	}
}

// errSkipRest is a file's SkipDir, passed up from walkChunk.
var errSkipRest = errors.New("skip the rest of the directory")

// walkChunk reports ents (one chunk of a directory, in order) to fn and
// descends into its subfolders, opened ahead in subs; each descriptor it
// is done with is closed and set to -1.
func walkChunk(fd int, abs string, ents []DirEnt, subs []opened, fn fs.WalkDirFunc, only string, leaves bool) error {
	for i, e := range ents {
		child := joinName(abs, e.Name)
		de := &fdEntry{dirfd: fd, name: e.Name, typ: e.Type}
		if err := fn(child, de, nil); err != nil {
			if err == filepath.SkipDir {
				if e.IsDir() {
					continue
				}
				return errSkipRest
			}
			return err
		}
		if !e.IsDir() {
			continue
		}
		o := &subs[i]
		if only == "" {
			o.fd, o.err = OpenDirAt(fd, e.Name)
		}
		if o.err != nil {
			if err := fn(child, de, mapErr("walk", child, &fs.PathError{Op: "openat", Path: child, Err: o.err})); err != nil && err != filepath.SkipDir {
				return err
			}
			continue
		}
		var err error
		if o.leaf {
			err = visitNamed(o.fd, child, only, o.has, &o.st, fn)
		} else {
			sub := os.NewFile(uintptr(o.fd), child)
			o.fd = -1 // sub owns it now
			err = walkTree(sub, child, fn, only, leaves)
			sub.Close()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// opened is a subfolder opened ahead of its turn: its descriptor (-1 when
// it is not open), why it would not open, and for a leaf whether it holds
// the file looked for, with that file's stat.
type opened struct {
	fd   int
	err  error
	leaf bool
	has  bool
	st   unix.Stat_t
}

// prefetchChunk is how many subfolders are opened ahead at once: each
// holds a descriptor until its turn, far below any descriptor limit.
const prefetchChunk = 128

// openAhead opens the subfolders among ents relative to fd, on up to four
// threads: the lookups of 100k entry folders are a restart's longest
// wait, and each is independent of the others. Only a named walk opens
// ahead (a full walk opens each folder in walkChunk, after fn); fn still
// sees every entry in order.
func openAhead(fd int, ents []DirEnt, only string, leaves bool, buf *[]opened) []opened {
	if cap(*buf) < len(ents) {
		*buf = make([]opened, len(ents))
	}
	out := (*buf)[:len(ents)]
	clear(out)
	open := func(i int) {
		o := &out[i]
		o.fd = -1
		if !ents[i].IsDir() {
			return
		}
		name := ents[i].Name
		if only != "" && leaves {
			// A leaf is looked into by name without opening it: two
			// fstatats, not openat, fstat, fstatat and close (100k entry
			// folders: half the listing's calls). A folder swapped for a
			// link between the two would have the second stat what the
			// link points at: a size and an mtime, never its contents,
			// which are read through the boundary (the walk reports the
			// path inside the tree, and the reader refuses a link).
			var st unix.Stat_t
			if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil &&
				st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Nlink == 2 {
				err := unix.Fstatat(fd, name+"/"+only, &o.st, unix.AT_SYMLINK_NOFOLLOW)
				if err == nil || err == unix.ENOENT {
					o.leaf, o.has = true, err == nil
					return
				}
				// unreadable: opening it says why, as for any folder
			}
		}
		cfd, err := OpenDirAt(fd, name)
		if err != nil {
			o.err = err
			return
		}
		o.fd = cfd
	}
	if only == "" {
		// a full walk opens each folder in turn, once fn has seen it
		// (fn may skip it: the temp sweep passes over quiet leaves)
		for i := range out {
			out[i].fd = -1
		}
		return out
	}
	workers := min(runtime.GOMAXPROCS(0), 4)
	if workers < 2 || len(ents) < 2*workers {
		for i := range ents {
			open(i)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(ents); i = int(next.Add(1)) - 1 {
				open(i)
			}
		}()
	}
	wg.Wait()
	return out
}

// dirEntryOf is the entry fn is given for a directory it was already told
// of, when reading it fails.
func dirEntryOf(dir *os.File, abs string) fs.DirEntry {
	return &fdEntry{dirfd: -1, name: filepath.Base(abs), typ: fs.ModeDir, file: dir}
}

// fdEntry is a directory entry whose Info is read relative to its parent's
// descriptor, never through a path: valid while fn runs (the walk closes
// the descriptor once the directory is done).
type fdEntry struct {
	dirfd int
	name  string
	typ   fs.FileMode
	file  *os.File    // set instead of dirfd for the directory itself
	info  fs.FileInfo // already read (a leaf's file), or nil
}

func (e *fdEntry) Name() string      { return e.name }
func (e *fdEntry) IsDir() bool       { return e.typ.IsDir() }
func (e *fdEntry) Type() fs.FileMode { return e.typ }

func (e *fdEntry) Info() (fs.FileInfo, error) {
	if e.info != nil {
		return e.info, nil
	}
	if e.file != nil {
		return e.file.Stat()
	}
	var st unix.Stat_t
	if err := unix.Fstatat(e.dirfd, e.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, &fs.PathError{Op: "lstat", Path: e.name, Err: fs.ErrNotExist}
		}
		return nil, &fs.PathError{Op: "lstat", Path: e.name, Err: err}
	}
	return &statInfo{name: e.name, st: st}, nil
}

// fileFacts is an fs.FileInfo holding only what a listing reads.
type fileFacts struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
}

func (f *fileFacts) Name() string       { return f.name }
func (f *fileFacts) Size() int64        { return f.size }
func (f *fileFacts) Mode() fs.FileMode  { return f.mode }
func (f *fileFacts) ModTime() time.Time { return f.mtime }
func (f *fileFacts) IsDir() bool        { return f.mode.IsDir() }
func (f *fileFacts) Sys() any           { return nil }

// statInfo is an fs.FileInfo over a Stat_t.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}

// walkRoot is WalkDir inside r: the start (rel, which may be reached
// through a link that stays inside the root) is opened through the root,
// everything under it by descriptor (walkTree).
func walkRoot(r *os.Root, root, rel, only string, fn fs.WalkDirFunc) error {
	abs := filepath.Join(root, rel)
	dir, err := r.Open(rel)
	if err != nil {
		return fn(abs, nil, mapErr("walk", abs, err))
	}
	defer dir.Close()
	info, err := dir.Stat()
	if err != nil {
		return fn(abs, nil, mapErr("walk", abs, err))
	}
	err = fn(abs, fs.FileInfoToDirEntry(info), nil)
	if err == nil && info.IsDir() {
		// listed through a descriptor of its own: a folder opened through
		// an os.Root lstats every name it lists (os.File.ReadDir does, so
		// its entries need no path), 100k lstats for a knowledge folder of
		// 100k entries that the walk never needs
		top := dir
		if fd, err := OpenDirAt(int(dir.Fd()), "."); err == nil {
			top = os.NewFile(uintptr(fd), abs)
			defer top.Close()
		}
		err = walkTree(top, abs, fn, only, only != "" && LeafCounting(int(top.Fd())))
	}
	if err == filepath.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

// OpenDirAt opens the folder name relative to the folder open as dirfd
// (unix.AT_FDCWD: name is a path) to list and descend from, never through
// a link in its last component: the one way a walk below a root, or the
// watcher's, goes down a level.
func OpenDirAt(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
}

// IsLeaf reports whether the folder open as fd has no subfolders: its link
// count is 2 (its name and its own "."), which proves it only where
// LeafCounting holds.
func IsLeaf(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Nlink == 2
}

// visitNamed reports the file only in the leaf folder open as fd, if it
// was there (has, with its stat st), as walkTree would have found it by
// listing.
func visitNamed(fd int, abs, only string, has bool, st *unix.Stat_t, fn fs.WalkDirFunc) error {
	if !has {
		return nil
	}
	// the facts a listing reads, not the whole stat (144 bytes a file)
	info := &fileFacts{name: only, size: st.Size, mode: (&statInfo{st: *st}).Mode(), mtime: time.Unix(st.Mtim.Unix())}
	err := fn(joinName(abs, only), &fdEntry{dirfd: fd, name: only, typ: info.mode.Type(), info: info}, nil)
	if err == filepath.SkipDir {
		return nil
	}
	return err
}

// quietLeaf reports whether de, a folder a walk reports, has no
// subfolders (leaves: the file system's link counts tell) and has had no
// name added, removed or renamed in it since since: its ctime, which
// every such change moves and no tool sets back, is older.
func quietLeaf(de fs.DirEntry, since time.Time, leaves bool) bool {
	if !leaves || since.IsZero() {
		return false
	}
	info, err := de.Info()
	if err != nil {
		return false
	}
	st, ok := info.Sys().(*unix.Stat_t)
	return ok && st.Nlink == 2 && time.Unix(st.Ctim.Unix()).Before(since)
}

// leafCountingAt is LeafCounting for the folder at p.
func leafCountingAt(p string) bool {
	fd, err := OpenDirAt(unix.AT_FDCWD, p)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return LeafCounting(fd)
}
