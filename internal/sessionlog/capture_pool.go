package sessionlog

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// How many descriptors capture holds. A live log used to keep its file
// open for the session's life: a host with hundreds of live chats (a bot in
// many groups) ran the sidecar out of descriptors — under `ulimit -n 256`
// (macOS's default) the 243rd session's log could not be created, every new
// session's append failed from then on, and header-only logs were left
// behind. Under these bounds a thousand sessions appending at once stay
// well inside a 256-descriptor limit (TestManyLiveSessionsUnderLowFileLimit
// samples the count), and reopening a log closed by the bound (open, lock,
// two stats, a header read, a mark's link and unlink) costs far less than
// creating a log with its two fsyncs (BenchmarkSessionAppendEvicted; both
// measured in docs/ARCHITECTURE.md, Measurements). Only sessions past the bound speaking in turn pay
// a reopen; an idle one costs nothing.
const (
	// maxOpenLogs is how many live logs (and logs made ahead for a
	// rotation) stay open: half of a 256 limit, leaving the rest to the
	// store, the index, the watcher, a dream and maxFileOps.
	maxOpenLogs = 128
	// maxFileOps bounds the file work in flight (a log created, reopened,
	// finalised, removed): each holds up to five descriptors for a moment
	// (the root, the folder, a temp file, a file read back), and a thousand
	// sessions opening at once would otherwise hold thousands.
	maxFileOps = 8
)

// fdPool counts the descriptors the writers hold — a live log or a spare
// takes one slot — and knows which writers hold a log, least recently used
// last, to close one when the pool is full. A closed writer keeps its path
// and reopens its log in append mode on its next block.
type fdPool struct {
	mu   sync.Mutex
	wake sync.Cond // a slot was freed, or a writer was unlocked while someone waits
	max  int
	held int
	lru  list.List // *sessionWriter holding an open log, most recent first
	// waiting counts callers inside acquire: unlocking a writer wakes them
	// only then, so the append path pays one atomic load.
	waiting atomic.Int32
	// ops bounds file work in flight (maxFileOps).
	ops chan struct{}
}

func newFDPool() *fdPool {
	p := &fdPool{max: maxOpenLogs, ops: make(chan struct{}, maxFileOps)}
	p.wake.L = &p.mu
	return p
}

// op waits for a turn at file work; the caller runs done once finished. A
// turn is held only by work that never waits for another turn or a slot,
// so waiting for one cannot deadlock.
func (p *fdPool) op() (done func()) {
	p.ops <- struct{}{}
	return func() { <-p.ops }
}

// tryAcquire takes a slot if one is free, without closing anyone's log.
func (p *fdPool) tryAcquire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held >= p.max {
		return false
	}
	p.held++
	return true
}

// release frees n slots.
func (p *fdPool) release(n int) {
	p.mu.Lock()
	p.held -= n
	p.wake.Broadcast()
	p.mu.Unlock()
}

// hold enters w, which just took an open log, as most recently used.
// Caller holds w.mu.
func (p *fdPool) hold(w *sessionWriter) {
	p.mu.Lock()
	if w.elem == nil {
		w.elem = p.lru.PushFront(w)
	} else {
		p.lru.MoveToFront(w.elem)
	}
	p.mu.Unlock()
}

// forget removes w, whose log was just closed, and frees its slot. Caller
// holds w.mu.
func (p *fdPool) forget(w *sessionWriter) {
	p.mu.Lock()
	if w.elem != nil {
		p.lru.Remove(w.elem)
		w.elem = nil
	}
	p.held--
	p.wake.Broadcast()
	p.mu.Unlock()
}

// victim takes the least recently used writer nobody is using out of the
// list, locked; nil when every writer holding a log is busy. Caller holds
// p.mu. TryLock keeps the lock order (a writer's lock, then the pool's):
// the caller already holds its own writer's lock.
func (p *fdPool) victim() *sessionWriter {
	for e := p.lru.Back(); e != nil; e = e.Prev() {
		v := e.Value.(*sessionWriter)
		if v.mu.TryLock() {
			p.lru.Remove(e)
			v.elem = nil
			return v
		}
	}
	return nil
}

// acquire takes a slot for the caller's next log, closing the least
// recently used idle writer's log when the pool is full, or waiting for one
// to become idle. The caller holds its own writer's lock, and that writer
// holds no log, so it is never the one another caller waits for.
func (c *Capture) acquire() {
	p := c.pool
	p.mu.Lock()
	p.waiting.Add(1) // before looking: an unlock after a failed TryLock sees it
	for {
		if p.held < p.max {
			p.held++
			break
		}
		if v := p.victim(); v != nil {
			p.mu.Unlock()
			c.evict(v)
			c.unlock(v)
			p.mu.Lock()
			continue
		}
		p.wake.Wait()
	}
	p.waiting.Add(-1)
	p.mu.Unlock()
}

// evict closes v's log to free its slot, marked live first (its lock goes
// with the file); v keeps the path and reopens it on its next block. Its
// spare goes too: made ahead to keep a burst's rotation off the append
// path, it is worth less than a slot. Caller holds v.mu; v is already out
// of the list.
func (c *Capture) evict(v *sessionWriter) {
	if v.f == nil {
		return
	}
	done := c.pool.op()
	err := c.mark(v.path)
	done()
	if err != nil && c.live.err == nil {
		c.l.log.Warn("memory: session log closed unmarked; another process may take it for a pending log", "file", c.l.st.Rel(v.path), "err", err)
	}
	if err := c.closeFile(v); err != nil {
		c.l.log.Warn("memory: close an idle session log", "file", c.l.st.Rel(v.path), "err", err)
	}
	c.dropSpare(v)
}

// closeFile closes w's current log and frees its slot; w.path is kept.
// Caller holds w.mu.
func (c *Capture) closeFile(w *sessionWriter) error {
	err := w.f.Close()
	w.f = nil
	c.pool.forget(w)
	return err
}

// unlock releases a writer's lock, waking an acquire that found every
// writer busy.
func (c *Capture) unlock(w *sessionWriter) {
	w.mu.Unlock()
	if c.pool.waiting.Load() > 0 {
		c.pool.mu.Lock()
		c.pool.wake.Broadcast()
		c.pool.mu.Unlock()
	}
}
