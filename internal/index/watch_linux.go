//go:build linux

package index

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchMask is every event that can change what a scan would report.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ATTRIB

// watcher marks the index dirty when anything under its roots changes;
// the next Search then runs the (otherwise skipped) mtime scan.
type watcher struct {
	f       *os.File
	log     *slog.Logger
	onEvent func()
	mu      sync.Mutex
	wds     map[int]string
	done    chan struct{}
}

// startWatcher watches roots recursively (missing roots are skipped). It
// fails when inotify is unavailable or the kernel's watch budget
// (fs.inotify.max_user_watches) is too small for the tree.
func startWatcher(roots []string, log *slog.Logger, onEvent func()) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify init: %w", err)
	}
	w := &watcher{f: os.NewFile(uintptr(fd), "inotify"), log: log, onEvent: onEvent,
		wds: map[int]string{}, done: make(chan struct{})}
	for _, r := range roots {
		if err := w.addTree(r); err != nil {
			w.f.Close()
			return nil, err
		}
	}
	go w.loop()
	return w, nil
}

// addTree adds a watch on dir and every directory below it.
func (w *watcher) addTree(root string) error {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		wd, err := unix.InotifyAddWatch(int(w.f.Fd()), p, watchMask)
		if err != nil {
			if errors.Is(err, unix.ENOSPC) {
				return fmt.Errorf("inotify watch budget exhausted at %s (raise fs.inotify.max_user_watches): %w", p, err)
			}
			return fmt.Errorf("watch %s: %w", p, err)
		}
		w.mu.Lock()
		w.wds[wd] = p
		w.mu.Unlock()
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (w *watcher) loop() {
	defer close(w.done)
	buf := make([]byte, 64*1024)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return // closed
		}
		w.onEvent()
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
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				w.log.Warn("index watcher queue overflowed; next search rescans")
				continue
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				w.mu.Lock()
				delete(w.wds, int(ev.Wd))
				w.mu.Unlock()
				continue
			}
			if ev.Mask&unix.IN_ISDIR != 0 && ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
				w.mu.Lock()
				parent := w.wds[int(ev.Wd)]
				w.mu.Unlock()
				if parent != "" {
					// files may land in it before the watch exists; the
					// dirty flag is already set, so the scan still sees them
					if err := w.addTree(filepath.Join(parent, name)); err != nil {
						w.log.Warn("index watcher cannot follow new directory", "err", err)
					}
				}
			}
		}
	}
}

func (w *watcher) close() error {
	err := w.f.Close()
	<-w.done
	return err
}
