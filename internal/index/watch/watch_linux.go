//go:build linux

package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/somni-dev/somni/internal/safefs"
)

// watchMask is every event that can change what a scan would report.
// IN_MODIFY is left out on purpose: a file is reloaded once its writer
// closes it (IN_CLOSE_WRITE) or renames it into place, not mid-write.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// Watcher records which paths under its roots changed, so the next
// search reloads only those (see the index's refresh). Hidden files and
// directories are not followed: atomic-write temporaries, editor swap
// files and VCS metadata are never memory entries.
type Watcher struct {
	f       *os.File
	fd      int // f's descriptor, for the watch calls
	log     *slog.Logger
	changes *Changes
	mu      sync.Mutex
	wds     map[int]string // watch descriptor → directory path
	done    chan struct{}
}

// Start watches roots recursively (missing roots are skipped). It
// fails when inotify is unavailable or the kernel's watch budget
// (fs.inotify.max_user_watches) is too small for the tree.
func Start(roots []string, log *slog.Logger, changes *Changes) (*Watcher, error) {
	return StartContext(context.Background(), roots, log, changes)
}

// StartContext is Start that gives up when ctx ends.
func StartContext(ctx context.Context, roots []string, log *slog.Logger, changes *Changes) (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify init: %w", err)
	}
	w := &Watcher{f: os.NewFile(uintptr(fd), "inotify"), fd: fd, log: log, changes: changes,
		wds: map[int]string{}, done: make(chan struct{})}
	for _, r := range roots {
		if err := w.addTree(ctx, filepath.Clean(r)); err != nil {
			w.f.Close()
			return nil, err
		}
	}
	go w.loop()
	return w, nil
}

// addTree adds a watch on dir and every non-hidden directory below it.
// Watching an already watched directory (one moved within the tree)
// returns its descriptor again, and the path recorded for it is updated.
// Folders are opened by descriptor below root, never through a link, and
// on a file system whose link counts prove a folder has no subfolders
// (safefs.LeafCounting) such a folder is watched without being opened:
// one fstatat and one watch for each of 50k entry folders. Descriptors
// stay raw (no os.File: its poller registration and finaliser cost as
// much as the walk's own calls).
func (w *Watcher) addTree(ctx context.Context, root string) error {
	fd, err := safefs.OpenDirAt(unix.AT_FDCWD, root)
	if err != nil {
		if gone(err) {
			return nil
		}
		return fmt.Errorf("watch %s: %w", root, err)
	}
	defer unix.Close(fd)
	return w.addDir(ctx, fd, root, safefs.LeafCounting(fd))
}

// gone reports an error of a folder removed or replaced by a link while
// the tree was walked: there is nothing to watch.
func gone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)
}

// watchOne adds the watch on the folder at path.
func (w *Watcher) watchOne(path string) error {
	wd, err := unix.InotifyAddWatch(w.fd, path, watchMask|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
	if err != nil {
		if errors.Is(err, unix.ENOSPC) {
			return fmt.Errorf("inotify watch budget exhausted at %s (raise fs.inotify.max_user_watches): %w", path, err)
		}
		if gone(err) {
			return nil // removed while we walked
		}
		return fmt.Errorf("watch %s: %w", path, err)
	}
	w.mu.Lock()
	w.wds[wd] = path
	w.mu.Unlock()
	return nil
}

// addDir watches the folder open as fd at path, then its non-hidden
// subfolders; a subfolder the link counts prove a leaf (when leaves says
// they tell) is watched without opening it.
func (w *Watcher) addDir(ctx context.Context, fd int, path string, leaves bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := w.watchOne(path); err != nil {
		return err
	}
	names, err := safefs.ReadDirNamesFd(fd)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("watch %s: %w", path, err)
	}
	for _, e := range names {
		if !e.IsDir() || strings.HasPrefix(e.Name, ".") {
			continue
		}
		child := filepath.Join(path, e.Name)
		if leaves {
			var st unix.Stat_t
			if err := unix.Fstatat(fd, e.Name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue // gone meanwhile
			}
			if st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Nlink == 2 {
				if err := w.watchOne(child); err != nil {
					return err
				}
				continue
			}
		}
		cfd, err := safefs.OpenDirAt(fd, e.Name)
		if err != nil {
			if gone(err) {
				continue
			}
			return fmt.Errorf("watch %s: %w", child, err)
		}
		err = w.addDir(ctx, cfd, child, leaves)
		unix.Close(cfd)
		if err != nil {
			return err
		}
	}
	return nil
}

// forget removes the watches on dir and below (a directory moved away:
// its watches would keep reporting events under the old path).
func (w *Watcher) forget(dir string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for wd, p := range w.wds {
		if p == dir || UnderAny(p, []string{dir}) {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.wds, wd)
		}
	}
}

func (w *Watcher) loop() {
	defer close(w.done)
	buf := make([]byte, 64*1024)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return // closed
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := ""
			if ev.Len > 0 {
				raw := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				for i, c := range raw {
					if c == 0 {
						raw = raw[:i]
						break
					}
				}
				name = string(raw)
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			w.handle(int(ev.Wd), ev.Mask, name)
		}
	}
}

// handle turns one inotify event into a change-set entry.
func (w *Watcher) handle(wd int, mask uint32, name string) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.log.Warn("index watcher queue overflowed; next search rescans everything")
		w.changes.MarkFull()
		return
	}
	w.mu.Lock()
	dir := w.wds[wd]
	if mask&unix.IN_IGNORED != 0 {
		delete(w.wds, wd)
	}
	w.mu.Unlock()
	if dir == "" || mask&unix.IN_IGNORED != 0 {
		return
	}
	if mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
		// the parent's event covers a subdirectory; this matters for a root
		if mask&unix.IN_MOVE_SELF != 0 {
			w.forget(dir)
		}
		w.changes.Add(dir, true)
		return
	}
	if name == "" || strings.HasPrefix(name, ".") {
		return
	}
	p := filepath.Join(dir, name)
	if mask&unix.IN_ISDIR == 0 {
		w.changes.Add(p, false)
		return
	}
	switch {
	case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		// watch first, then record: the sync that scans this subtree runs
		// after the watch exists, so a file landing in it is either seen
		// by that scan or reported by the new watch
		if err := w.addTree(context.Background(), p); err != nil {
			w.log.Warn("index watcher cannot follow new directory; next search rescans everything", "path", p, "err", err)
			w.changes.MarkFull()
			return
		}
	case mask&unix.IN_MOVED_FROM != 0:
		w.forget(p)
	}
	w.changes.Add(p, true)
}

// Close stops watching and waits for the event loop to end.
func (w *Watcher) Close() error {
	err := w.f.Close()
	<-w.done
	return err
}
