package sessionlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/somni-dev/somni/internal/filelock"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/safefs"
)

// reopenTries bounds how often reopen starts over when the log's name came
// to hold another file between its open and its lock (another process
// finalising it as a crash leftover writes it anew under the same name).
const reopenTries = 3

// How long reopen waits for the lock of a log it marked live. Another
// process holds it only to read the mark (and lets go on finding it live),
// for microseconds, or a moment more on a loaded machine; a process that
// keeps it does not read marks (an older sidecar resuming the log), and the
// session goes on in a new log rather than wait for that one to close.
const (
	reopenLockTries = 100
	reopenLockPause = time.Millisecond
)

// reopen continues w in its log, closed to bound descriptors and marked
// live meanwhile. It goes on only if the log is still w's: the file at its
// name (not moved or deleted by hand), lockable and not processed (a
// process that does not read marks may have archived it). Otherwise w
// leaves it, unmarked, as it is, and false is returned: the session goes on
// in a new log, as after a dream archived its log. An error is a failure to
// try (descriptors, permissions): the append fails rather than split the
// log. Caller holds w.mu, a slot and a turn at file work.
func (c *Capture) reopen(w *sessionWriter) (bool, error) {
	for range reopenTries {
		f, err := c.l.fs.OpenAppend(w.path, false)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, safefs.ErrChanged) ||
				errors.Is(err, safefs.ErrSymlink) || errors.Is(err, safefs.ErrNotRegular) {
				break
			}
			return false, fmt.Errorf("sessionlog: reopen %s: %w", w.path, err)
		}
		if !lockSoon(f) {
			_ = f.Close()
			break
		}
		info, err := f.Stat()
		now, lerr := c.l.fs.Lstat(w.path)
		if err != nil || lerr != nil || !os.SameFile(info, now) {
			_ = f.Close()
			continue
		}
		if c.l.logStatus(w.path) == StatusProcessed {
			_ = f.Close()
			break
		}
		c.unmark(w.path) // locked again: the lock speaks for it
		w.f, w.size, w.checkedAt, w.reopened = f, info.Size(), time.Now(), true
		return true, nil
	}
	c.l.log.Info("memory: session log taken while closed; the session goes on in a new log", "session", w.chatID, "file", c.l.st.Rel(w.path))
	c.unmark(w.path)
	w.path, w.size, w.count, w.firstAt, w.fresh, w.reopened = "", 0, 0, "", false, false
	return false, nil
}

// lockSoon takes f's lock, waiting out a reader of its live mark.
func lockSoon(f *os.File) bool {
	for try := 0; ; try++ {
		if filelock.TryLock(f) {
			return true
		}
		if try == reopenLockTries {
			return false
		}
		time.Sleep(reopenLockPause)
	}
}

// resume continues a session in the log it was writing before this process
// started (a restarted sidecar, the host reconnecting): today's newest log of
// the same chat and user that is not processed, not held by a live writer and
// has room. One conversation stays one log instead of being split at every
// restart. Caller holds w.mu, a slot and a turn at file work.
func (c *Capture) resume(w *sessionWriter, day string) bool {
	if w.lastPath != "" {
		return false // this session already wrote (and closed) one here: rotation, not a restart
	}
	chatID, user := chatLabel(w.chatID), label(w.userID)
	logs := c.resumable(day, resumeKey{chatID, user})
	for i := len(logs) - 1; i >= 0; i-- {
		p := logs[i]
		if c.isMine(p) {
			continue
		}
		// Read again: the index is as of this morning.
		head, err := c.l.fs.ReadHead(p, logHeadBytes)
		if err != nil {
			continue
		}
		meta, ok := frontmatter.ParseHead(p, head)
		if !ok || meta.Value("chat_id") != chatID || meta.Value("user") != user || meta.Value("status") == StatusProcessed {
			continue
		}
		f, err := c.l.fs.OpenAppend(p, false)
		if err != nil {
			continue
		}
		info, err := f.Stat()
		if err != nil || info.Size() > SessionLogMaxBytes || !filelock.TryLock(f) || c.l.liveMark(p) {
			_ = f.Close()
			continue
		}
		if !c.claim(p) {
			_ = f.Close()
			continue
		}
		count, _ := strconv.Atoi(meta.Value("message_count"))
		w.take(f, p, info.Size(), count, false)
		c.l.log.Info("memory: session continues in its log", "session", w.chatID, "file", c.l.st.Rel(p))
		return true
	}
	return false
}

// resumeIndex is, for one day, the logs of that day an earlier process left
// in session-log, by the chat and user their header names. Opening a session
// used to list the folder and read the header of every log of the day not
// this process's own; this process's own were skipped by name, but listed
// all the same, so each open grew with the number of live sessions
// (measured in docs/ARCHITECTURE.md, Measurements). The folder is now read once a day. A log another process makes later is not resumed:
// that process's sessions are its own, and it resumes them itself.
type resumeIndex struct {
	mu   sync.Mutex
	day  string
	logs map[resumeKey][]string // oldest first
}

type resumeKey struct{ chatID, user string }

// resumable returns the logs of day, oldest first, an earlier process
// wrote for key: candidates, each to be checked again before use.
func (c *Capture) resumable(day string, key resumeKey) []string {
	ix := &c.resumes
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.day != day {
		logs, err := c.indexResumable(day)
		if err != nil {
			c.l.log.Warn("memory: session logs not listed; sessions start new logs", "err", err)
			return nil // listed again at the next open
		}
		ix.day, ix.logs = day, logs
	}
	return slices.Clone(ix.logs[key])
}

// indexResumable reads the header of every log of day not this process's
// own and not processed.
func (c *Capture) indexResumable(day string) (map[resumeKey][]string, error) {
	logs, err := c.l.logFilesIn(c.l.dir)
	if err != nil {
		return nil, err
	}
	out := map[resumeKey][]string{}
	for _, p := range logs {
		m := sessionLogNameRe.FindStringSubmatch(filepath.Base(p))
		if m == nil || m[1] != day || c.isMine(p) {
			continue
		}
		head, err := c.l.fs.ReadHead(p, logHeadBytes)
		if err != nil {
			continue
		}
		meta, ok := frontmatter.ParseHead(p, head)
		if !ok || meta.Value("status") == StatusProcessed {
			continue
		}
		k := resumeKey{meta.Value("chat_id"), meta.Value("user")}
		out[k] = append(out[k], p)
	}
	return out, nil
}
