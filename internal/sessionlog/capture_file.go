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
			_ = c.closeFile(w)
			w.path = ""
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
	c.pool.hold(w)
	if w.size > spareAt && w.spare == nil && !w.reopened && c.pool.tryAcquire() {
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

// open continues in the spare made for this session (its slot already
// taken), reopens the log closed to bound descriptors, resumes an earlier
// process's log, or creates the next log. Caller holds w.mu.
func (c *Capture) open(w *sessionWriter) error {
	now := c.l.st.Now()
	day := now.Format(dates.Layout)
	if c.useSpare(w, day) {
		c.pool.hold(w)
		return nil
	}
	c.acquire() // before a turn at file work: acquiring may close another log, which is file work
	done := c.pool.op()
	err := c.openFile(w, now, day)
	done()
	if w.f == nil {
		c.pool.release(1)
		return err
	}
	c.pool.hold(w)
	return nil
}

// openFile is open's file work, with a slot and a turn held.
func (c *Capture) openFile(w *sessionWriter, now time.Time, day string) error {
	if w.path != "" {
		if ok, err := c.reopen(w); ok || err != nil {
			return err
		}
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
	w.fresh, w.firstAt, w.checkedAt, w.reopened = fresh, "", time.Now(), false
}

// logHeader is what a new log's header says of its session.
type logHeader struct{ userID, chatID, chatType string }

func (w *sessionWriter) header() logHeader {
	return logHeader{userID: w.userID, chatID: w.chatID, chatType: w.chatType}
}

// create makes the next free YYYY-MM-DD_NNN.md of now's day (pending and
// archived numbers both count) with its header, locked, and claims it. The
// caller holds a slot and a turn at file work.
func (c *Capture) create(h logHeader, now time.Time) (*os.File, string, int64, error) {
	dir := c.l.dir
	day := now.Format(dates.Layout)
	for {
		id := fmt.Sprintf("%s_%03d", day, c.takeNumber(day))
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
		return f, path, int64(len(header)), nil
	}
}

// dayNumber is the number after the last one this process handed out on day.
type dayNumber struct {
	day string
	n   int
}

// takeNumber hands out day's next log number to try: after the last one
// this process handed out, or, on a new day, after the highest a listing of
// session-log and its archive finds. A listing per rotation read every
// log's name (hundreds, in a long burst); a number another process took
// meanwhile is passed by create's exclusive link. Each caller gets its own
// number, so sessions opening at once do not all try the same one and
// walk past each other's.
func (c *Capture) takeNumber(day string) int {
	c.mu.Lock()
	known := c.nextNumber.day == day
	c.mu.Unlock()
	first := 0
	if !known {
		first = c.l.st.NextDailyNumber(sessionLogNameRe, day, c.l.dir, filepath.Join(c.l.dir, "archived"))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nextNumber.day != day {
		c.nextNumber = dayNumber{day, first}
	}
	n := c.nextNumber.n
	c.nextNumber.n++
	return n
}

// finalize closes the current file (open or closed to bound descriptors)
// and records end_time, message_count and status: pending. Caller holds w.mu.
func (c *Capture) finalize(w *sessionWriter) (string, error) {
	if w.path == "" {
		return "", nil
	}
	return c.finish(c.detach(w))
}

// finalJob is a log taken from its writer, to be finalised.
type finalJob struct {
	path     string
	closeErr error
	marked   bool // closed to bound descriptors: marked live until final
	count    int
	end      time.Time
	firstAt  string // start_time to record, "" to keep the header's
}

// detach takes the current file from w, closed: a log waiting for its
// header's rewrite holds no descriptor. Caller holds w.mu.
func (c *Capture) detach(w *sessionWriter) finalJob {
	j := finalJob{path: w.path, count: w.count, end: c.l.st.Now(), firstAt: w.firstAt, marked: w.f == nil}
	if w.f != nil {
		j.closeErr = c.closeFile(w)
	}
	w.path, w.size, w.count, w.firstAt, w.fresh, w.reopened = "", 0, 0, "", false, false
	return j
}

// finish rewrites a detached log's header final.
func (c *Capture) finish(j finalJob) (string, error) {
	if j.closeErr != nil {
		return j.path, fmt.Errorf("sessionlog: close session log %s: %w", j.path, j.closeErr)
	}
	defer c.pool.op()()
	if j.marked {
		// Final, or left without status for the next start's recovery: a
		// pending log either way, not a live one.
		defer c.unmark(j.path)
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
