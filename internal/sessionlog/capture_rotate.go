package sessionlog

import (
	"os"

	"github.com/somni-dev/somni/internal/dates"
)

// spareLog is a session's next log, made in the background: ready is
// closed once f, path, day and size (or err) are set.
type spareLog struct {
	ready chan struct{}
	f     *os.File
	path  string
	day   string
	size  int64
	err   error
}

// name is the spare's path once made, "" before (or for no spare). Until
// its name appears the spare is nobody's to list; after, it is locked.
func (sp *spareLog) name() string {
	if sp == nil {
		return ""
	}
	select {
	case <-sp.ready:
		return sp.path
	default:
		return ""
	}
}

// prepareSpare starts making w's next log: created, header synced,
// locked and claimed before its name appears, as every log is. The caller
// took its slot, which the spare holds until used or dropped (or it fails).
// Caller holds w.mu.
func (c *Capture) prepareSpare(w *sessionWriter) {
	sp := &spareLog{ready: make(chan struct{})}
	w.spare = sp
	h, now := w.header(), c.l.st.Now()
	go func() {
		defer close(sp.ready)
		sp.day = now.Format(dates.Layout)
		done := c.pool.op()
		sp.f, sp.path, sp.size, sp.err = c.create(h, now)
		done()
		if sp.err != nil {
			c.pool.release(1)
		}
	}()
}

// useSpare switches w to its spare, if it has one of today that is still
// in place (waiting for it to be made). Caller holds w.mu.
func (c *Capture) useSpare(w *sessionWriter, day string) bool {
	sp := w.spare
	if sp == nil {
		return false
	}
	<-sp.ready
	if sp.err != nil {
		w.spare = nil
		c.l.log.Warn("memory: next session log not made ahead; making it now", "err", sp.err)
		return false
	}
	if sp.day != day {
		c.dropSpare(w) // made before midnight: a log is named for its first block's day
		return false
	}
	if !c.l.fs.Exists(sp.path) { // moved or removed by hand while it waited
		_ = sp.f.Close()
		c.pool.release(1)
		w.spare = nil
		return false
	}
	w.spare = nil
	w.take(sp.f, sp.path, sp.size, 0, true)
	return true
}

// dropSpare removes w's unused spare: it holds only a header. Caller holds w.mu.
func (c *Capture) dropSpare(w *sessionWriter) {
	sp := w.spare
	if sp == nil {
		return
	}
	w.spare = nil
	<-sp.ready
	if sp.err != nil {
		return
	}
	// Removed while still locked, so no other process takes it meanwhile
	// for a crash leftover.
	done := c.pool.op()
	if err := c.l.fs.Remove(sp.path); err != nil {
		c.l.log.Warn("memory: unused session log left behind", "file", c.l.st.Rel(sp.path), "err", err)
	}
	done()
	_ = sp.f.Close()
	c.pool.release(1)
}

// handOff takes w's full log from it (closed) and finalises it in the
// background, so the append that rotates does not wait for the header's
// rewrite and its fsyncs. The log stays among openPaths until final; settle
// waits for it. Caller holds w.mu.
func (c *Capture) handOff(w *sessionWriter) {
	done := make(chan struct{})
	c.mu.Lock()
	c.finalizing[w.path] = done
	c.mu.Unlock()
	j := c.detach(w)
	go func() {
		if _, err := c.finish(j); err != nil {
			// Left without status, it is finalised by the next start's recovery.
			c.l.log.Error("memory: finalise a rotated session log", "file", c.l.st.Rel(j.path), "err", err)
		}
		c.mu.Lock()
		delete(c.finalizing, j.path)
		c.mu.Unlock()
		close(done)
	}()
}

// settle waits until the logs handed off so far are final.
func (c *Capture) settle() {
	c.mu.Lock()
	waits := make([]chan struct{}, 0, len(c.finalizing))
	for _, d := range c.finalizing {
		waits = append(waits, d)
	}
	c.mu.Unlock()
	for _, d := range waits {
		<-d
	}
}
