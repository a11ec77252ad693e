package sessionlog

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/somni-dev/somni/internal/filelock"
)

// liveDirName is the folder, in session-log, of the marks of live logs
// closed to bound descriptors. Hidden, so no listing takes it for a log.
const liveDirName = ".live"

// ownerPrefix names the locked files marks link to, one per capture.
const ownerPrefix = "owner-"

// liveMarks keeps the promise a live log's lock makes once the log is
// closed to bound descriptors (maxOpenLogs): that no other process (nor
// another store in this one) takes it for a pending log or a crash
// leftover. Closing the file drops its lock, so before closing it
// session-log/.live/<log name> is made a hard link to this capture's owner
// file, which stays open and locked: a reader that finds the link locked
// knows the log live. A link costs no descriptor, and a crash drops the
// owner's lock, so every mark of a dead process reads as stale at once,
// as its logs' locks would.
type liveMarks struct {
	once  sync.Once
	dir   string   // session-log/.live
	owner *os.File // locked for the capture's life
	name  string   // the owner file's name in dir
	err   error    // why marks cannot be made
}

// marks returns the capture's marks, made on first use; an error means
// logs closed to bound descriptors go unmarked.
func (c *Capture) marks() (*liveMarks, error) {
	m := &c.live
	m.once.Do(func() {
		m.err = m.open(c.l)
		if m.err != nil {
			c.l.log.Warn("memory: live session logs closed to save descriptors cannot be marked; "+
				"another process on this data dir may take one for a pending log", "err", m.err)
		}
	})
	return m, m.err
}

// open makes session-log/.live and a locked owner file in it, and removes
// the owner files of captures that are gone.
func (m *liveMarks) open(l *Logs) error {
	dir := filepath.Join(l.dir, liveDirName)
	if err := l.fs.MkdirAll(dir); err != nil {
		return err
	}
	if info, err := l.fs.Lstat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("sessionlog: %s is not a folder", dir)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	name := ownerPrefix + hex.EncodeToString(rnd[:]) + ".lock"
	// Locked before its name appears, as a log is: no one removes it as stale.
	owner, err := l.fs.CreateLocked(filepath.Join(dir, name), nil, logWriterLock)
	if err != nil {
		return err
	}
	m.dir, m.owner, m.name = dir, owner, name
	removeStaleOwners(l, dir, name)
	return nil
}

// removeStaleOwners removes the owner files no capture holds. Their marks
// stay (a link keeps the file), stale, until the log's next holder clears
// them.
func removeStaleOwners(l *Logs, dir, mine string) {
	names, err := l.fs.ReadDirNames(dir)
	if err != nil {
		return
	}
	for _, n := range names {
		if n == mine || !strings.HasPrefix(n, ownerPrefix) {
			continue
		}
		p := filepath.Join(dir, n)
		f, err := l.fs.OpenRead(p)
		if err != nil {
			continue
		}
		if filelock.TryLock(f) {
			_ = l.fs.Remove(p)
		}
		_ = f.Close()
	}
}

// mark marks log (by path) live. Caller holds the log's lock: no other
// writer holds the log, so a mark already there is stale.
func (c *Capture) mark(path string) error {
	m, err := c.marks()
	if err != nil {
		return err
	}
	owner, mark := filepath.Join(m.dir, m.name), filepath.Join(m.dir, filepath.Base(path))
	err = c.l.fs.Link(owner, mark)
	if errors.Is(err, fs.ErrExist) {
		_ = c.l.fs.Remove(mark)
		err = c.l.fs.Link(owner, mark)
	}
	return err
}

// unmark removes log's mark, if it has one.
func (c *Capture) unmark(path string) {
	m, err := c.marks()
	if err != nil {
		return
	}
	if err := c.l.fs.Remove(filepath.Join(m.dir, filepath.Base(path))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.l.log.Warn("memory: live mark of a session log left behind", "file", c.l.st.Rel(path), "err", err)
	}
}

// liveMark reports whether another capture marked the log live. Caller
// holds the log's lock, so no writer can be marking it anew: a mark whose
// capture is gone is removed.
func (l *Logs) liveMark(path string) bool {
	p := filepath.Join(l.dir, liveDirName, filepath.Base(path))
	f, err := l.fs.OpenRead(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if !filelock.TryLock(f) {
		return true
	}
	_ = l.fs.Remove(p)
	return false
}
