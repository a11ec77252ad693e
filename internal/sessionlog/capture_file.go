package sessionlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/filelock"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// write appends one block, opening or rotating the file first. Caller holds w.mu.
func (c *Capture) write(w *sessionWriter, block []byte) error {
	if w.f != nil {
		// The dreamer (or a person) may have moved the file away: never recreate a headerless log.
		// A stat by name of the file we hold open reads nothing through any
		// link, and a per-append Root resolution would cost a third of capture.
		if _, err := os.Lstat(w.path); err != nil {
			_ = w.f.Close()
			w.f, w.path = nil, ""
		} else if w.size > SessionLogMaxBytes {
			if _, err := c.finalize(w); err != nil {
				return err
			}
		}
	}
	if w.f == nil {
		if err := c.open(w); err != nil {
			return err
		}
	}
	n, err := w.f.Write(block)
	w.size += int64(n)
	if err != nil {
		return fmt.Errorf("sessionlog: append to %s: %w", w.path, err)
	}
	w.count++
	return nil
}

// open creates the next free YYYY-MM-DD_NNN.md (pending and archived numbers both count) with its header.
func (c *Capture) open(w *sessionWriter) error {
	dir := c.l.dir
	if err := c.l.fs.MkdirAll(dir); err != nil {
		return fmt.Errorf("sessionlog: create %s: %w", dir, err)
	}
	now := c.l.st.Now()
	day := now.Format(dates.Layout)
	if c.resume(w, day) {
		return nil
	}
	for next := c.l.st.NextDailyNumber(sessionLogNameRe, day, dir, filepath.Join(dir, "archived")); ; next++ {
		id := fmt.Sprintf("%s_%03d", day, next)
		path := filepath.Join(dir, id+".md")
		if c.l.fs.Exists(filepath.Join(dir, "archived", id+".md")) {
			continue
		}
		m := frontmatter.New()
		m.Set("session_id", id)
		m.Set("user", label(w.userID))
		m.Set("chat_id", markedLine(w.chatID, 0))
		if w.chatType != "" {
			m.Set("chat_type", label(w.chatType))
		}
		m.SetPlain("start_time", now.Format(logTimeLayout))
		header := frontmatter.Render(m, "")
		// The header is created whole or not at all (a full disk must not
		// leave an empty log behind), and locked before its name appears:
		// another process never sees this live log unlocked, so never takes
		// it for a pending one or a crash leftover.
		f, err := c.l.fs.CreateLocked(path, header, logWriterLock)
		if errors.Is(err, fs.ErrExist) {
			continue // another session or process took it
		}
		if err != nil {
			return fmt.Errorf("sessionlog: create session log %s: %w", path, err)
		}
		c.claim(path)
		w.f, w.path, w.size, w.count, w.lastPath = f, path, int64(len(header)), 0, path
		return nil
	}
}

// finalize closes the current file and records end_time, message_count and status: pending. Caller holds w.mu.
func (c *Capture) finalize(w *sessionWriter) (string, error) {
	if w.f == nil {
		return "", nil
	}
	path, count := w.path, w.count
	err := w.f.Close()
	w.f, w.path, w.size, w.count = nil, "", 0, 0
	if err != nil {
		return path, fmt.Errorf("sessionlog: close session log %s: %w", path, err)
	}
	data, ver, err := c.l.fs.ReadVersion(path, memory.MaxLogBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil // archived under us: nothing to finalise
		}
		return path, fmt.Errorf("sessionlog: finalise %s: %w", path, err)
	}
	doc, err := frontmatter.Parse(path, data)
	if err != nil {
		c.l.log.Warn("memory: session log header unreadable, left as is", "file", path, "err", err)
		return path, nil
	}
	doc.Meta.SetPlain("end_time", c.l.st.Now().Format(logTimeLayout))
	doc.Meta.Set("message_count", strconv.Itoa(count))
	doc.Meta.Set("status", StatusPending)
	if _, err := c.l.replace(path, doc.Render(), ver); err != nil {
		return path, err
	}
	return path, nil
}

// resume continues a session in the log it was writing before this process
// started (a restarted sidecar, the host reconnecting): today's newest log of
// the same chat and user that is not processed, not held by a live writer and
// has room. One conversation stays one log instead of being split at every
// restart. Caller holds w.mu.
func (c *Capture) resume(w *sessionWriter, day string) bool {
	if w.lastPath != "" {
		return false // this session already wrote (and closed) one here: rotation, not a restart
	}
	logs, err := c.l.logFilesIn(c.l.dir)
	if err != nil {
		return false
	}
	for i := len(logs) - 1; i >= 0; i-- {
		p := logs[i]
		m := sessionLogNameRe.FindStringSubmatch(filepath.Base(p))
		if m == nil || m[1] != day || c.isMine(p) {
			continue
		}
		head, err := c.l.fs.ReadHead(p, logHeadBytes)
		if err != nil {
			continue
		}
		meta, ok := frontmatter.ParseHead(p, head)
		if !ok || meta.Value("chat_id") != markedLine(w.chatID, 0) ||
			meta.Value("user") != label(w.userID) || meta.Value("status") == StatusProcessed {
			continue
		}
		f, err := c.l.fs.OpenAppend(p, false)
		if err != nil {
			continue
		}
		info, err := f.Stat()
		if err != nil || info.Size() > SessionLogMaxBytes || !filelock.TryLock(f) {
			_ = f.Close()
			continue
		}
		if !c.claim(p) {
			_ = f.Close()
			continue
		}
		count, _ := strconv.Atoi(meta.Value("message_count"))
		w.f, w.path, w.size, w.count, w.lastPath = f, p, info.Size(), count, p
		c.l.log.Info("memory: session continues in its log", "session", w.chatID, "file", c.l.st.Rel(p))
		return true
	}
	return false
}

// claim records p as opened by this process; false if it already was.
func (c *Capture) claim(p string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mine[p] {
		return false
	}
	c.mine[p] = true
	return true
}

func (c *Capture) isMine(p string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mine[p]
}

// logWriterLock marks f as held by a live session writer. The lock dies with
// the process, so a log still locked is not a crash leftover.
func logWriterLock(f *os.File) error { return filelock.Lock(f, false) }
