package sessionlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/filelock"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// write appends one block, opening or rotating the file first; stamp is
// the block's time as written in its header line. Caller holds w.mu.
func (c *Capture) write(w *sessionWriter, block, stamp []byte) error {
	if w.f != nil {
		if c.movedAway(w) {
			_ = w.f.Close()
			w.f, w.path = nil, ""
		} else if w.size > SessionLogMaxBytes {
			c.handOff(w)
		}
	}
	if w.f == nil {
		if err := c.open(w); err != nil {
			return err
		}
	}
	if w.count == 0 && w.firstAt == "" && w.fresh {
		w.firstAt = string(stamp)
	}
	n, err := w.f.Write(block)
	w.size += int64(n)
	if err != nil {
		return fmt.Errorf("sessionlog: append to %s: %w", w.path, err)
	}
	w.count++
	if w.size > spareAt && w.spare == nil {
		c.prepareSpare(w)
	}
	return nil
}

// movedAway reports whether the live log's name no longer holds it: the
// dreamer (or a person) may have moved the file away, and a headerless log
// must never be recreated. A stat by name of the file we hold open reads
// nothing through any link; it runs at most every pathCheckEvery, as one per
// append cost a fifth of capture. Caller holds w.mu.
func (c *Capture) movedAway(w *sessionWriter) bool {
	now := time.Now()
	if now.Sub(w.checkedAt) < pathCheckEvery {
		return false
	}
	w.checkedAt = now
	_, err := os.Lstat(w.path)
	return err != nil
}

// open continues in the spare made for this session, resumes an earlier
// process's log, or creates the next log. Caller holds w.mu.
func (c *Capture) open(w *sessionWriter) error {
	now := c.l.st.Now()
	day := now.Format(dates.Layout)
	if c.useSpare(w, day) {
		return nil
	}
	if err := c.l.fs.MkdirAll(c.l.dir); err != nil {
		return fmt.Errorf("sessionlog: create %s: %w", c.l.dir, err)
	}
	if c.resume(w, day) {
		return nil
	}
	f, path, size, err := c.create(w.header(), now)
	if err != nil {
		return err
	}
	w.take(f, path, size, 0, true)
	return nil
}

// take makes f (at path, size bytes, count blocks) w's current log; fresh:
// w made it, so finalising records its first block's time as start_time.
// Caller holds w.mu.
func (w *sessionWriter) take(f *os.File, path string, size int64, count int, fresh bool) {
	w.f, w.path, w.size, w.count, w.lastPath = f, path, size, count, path
	w.fresh, w.firstAt, w.checkedAt = fresh, "", time.Now()
}

// logHeader is what a new log's header says of its session.
type logHeader struct{ userID, chatID, chatType string }

func (w *sessionWriter) header() logHeader {
	return logHeader{userID: w.userID, chatID: w.chatID, chatType: w.chatType}
}

// create makes the next free YYYY-MM-DD_NNN.md of now's day (pending and
// archived numbers both count) with its header, locked, and claims it.
func (c *Capture) create(h logHeader, now time.Time) (*os.File, string, int64, error) {
	dir := c.l.dir
	day := now.Format(dates.Layout)
	for next := c.firstFreeNumber(day); ; next++ {
		id := fmt.Sprintf("%s_%03d", day, next)
		path := filepath.Join(dir, id+".md")
		if c.l.fs.Exists(filepath.Join(dir, "archived", id+".md")) {
			continue
		}
		m := frontmatter.New()
		m.Set("session_id", id)
		m.Set("user", label(h.userID))
		m.Set("chat_id", chatLabel(h.chatID))
		if h.chatType != "" {
			m.Set("chat_type", label(h.chatType))
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
			return nil, "", 0, fmt.Errorf("sessionlog: create session log %s: %w", path, err)
		}
		c.claim(path)
		c.mu.Lock()
		c.nextNumber = dayNumber{day, max(c.nextNumber.n, next+1)}
		c.mu.Unlock()
		return f, path, int64(len(header)), nil
	}
}

// dayNumber is the number after the last log this process created on day.
type dayNumber struct {
	day string
	n   int
}

// firstFreeNumber is where the search for day's next log number starts:
// after the last one this process created, or after the highest a listing
// of session-log and its archive finds. A listing per rotation read every
// log's name (hundreds, in a long burst); a number another process took
// meanwhile is passed by create's exclusive link.
func (c *Capture) firstFreeNumber(day string) int {
	c.mu.Lock()
	known := c.nextNumber
	c.mu.Unlock()
	if known.day == day {
		return known.n
	}
	return c.l.st.NextDailyNumber(sessionLogNameRe, day, c.l.dir, filepath.Join(c.l.dir, "archived"))
}

// finalize closes the current file and records end_time, message_count and status: pending. Caller holds w.mu.
func (c *Capture) finalize(w *sessionWriter) (string, error) {
	if w.f == nil {
		return "", nil
	}
	return c.finish(c.detach(w))
}

// finalJob is a log taken from its writer, to be finalised.
type finalJob struct {
	f       *os.File
	path    string
	count   int
	end     time.Time
	firstAt string // start_time to record, "" to keep the header's
}

// detach takes the current file from w. Caller holds w.mu.
func (c *Capture) detach(w *sessionWriter) finalJob {
	j := finalJob{f: w.f, path: w.path, count: w.count, end: c.l.st.Now(), firstAt: w.firstAt}
	w.f, w.path, w.size, w.count, w.firstAt, w.fresh = nil, "", 0, 0, "", false
	return j
}

// finish closes a detached log and rewrites its header final.
func (c *Capture) finish(j finalJob) (string, error) {
	if err := j.f.Close(); err != nil {
		return j.path, fmt.Errorf("sessionlog: close session log %s: %w", j.path, err)
	}
	data, ver, err := c.l.fs.ReadVersion(j.path, memory.MaxLogBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil // archived under us: nothing to finalise
		}
		return j.path, fmt.Errorf("sessionlog: finalise %s: %w", j.path, err)
	}
	doc, err := frontmatter.Parse(j.path, data)
	if err != nil {
		c.l.log.Warn("memory: session log header unreadable, left as is", "file", j.path, "err", err)
		return j.path, nil
	}
	if j.firstAt != "" {
		doc.Meta.SetPlain("start_time", j.firstAt)
	}
	doc.Meta.SetPlain("end_time", j.end.Format(logTimeLayout))
	doc.Meta.Set("message_count", strconv.Itoa(j.count))
	doc.Meta.Set("status", StatusPending)
	if _, err := c.l.replace(j.path, doc.Render(), ver); err != nil {
		return j.path, err
	}
	return j.path, nil
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
		if !ok || meta.Value("chat_id") != chatLabel(w.chatID) ||
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
		w.take(f, p, info.Size(), count, false)
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
