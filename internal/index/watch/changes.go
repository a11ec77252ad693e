package watch

import (
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// MaxPending bounds the watcher's change set: past it (a git
// checkout, a bulk copy) one full scan is cheaper than path by path.
const MaxPending = 1024

// Changes collects what changed since the last sync: paths (a
// directory stands for its whole subtree) or "everything".
type Changes struct {
	mu    sync.Mutex
	full  bool
	paths map[string]bool // path → it is a directory: its subtree changed
	any   atomic.Bool     // lock-free check for the search path
	gen   atomic.Uint64   // counts Adds, full or not: whether anything changed since a moment
}

// Add records that p changed; dir means everything below p may have.
func (c *Changes) Add(p string, dir bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.any.Store(true)
	c.gen.Add(1)
	if c.full {
		return
	}
	if c.paths == nil {
		c.paths = map[string]bool{}
	}
	if _, ok := c.paths[p]; !ok && len(c.paths) >= MaxPending {
		c.full, c.paths = true, nil
		return
	}
	c.paths[p] = c.paths[p] || dir
}

// MarkFull records that only a full scan can tell what changed.
func (c *Changes) MarkFull() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.full, c.paths = true, nil
	c.any.Store(true)
}

// Take empties the set and returns what it held.
func (c *Changes) Take() (full bool, paths map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	full, paths = c.full, c.paths
	c.full, c.paths = false, nil
	c.any.Store(false)
	return full, paths
}

// Restore puts back what a failed sync took.
func (c *Changes) Restore(full bool, paths map[string]bool) {
	if full {
		c.MarkFull()
		return
	}
	for p, dir := range paths {
		c.Add(p, dir)
	}
}

// Gen is the number of changes recorded so far: two equal readings mean
// nothing changed between them, even while everything is marked.
func (c *Changes) Gen() uint64 { return c.gen.Load() }

// Pending reports whether anything changed since the last Take.
func (c *Changes) Pending() bool { return c.any.Load() }

// Has reports whether p is recorded (or everything is).
func (c *Changes) Has(p string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.paths[p]
	return ok || c.full
}

// UnderAny reports whether p lies below one of dirs.
func UnderAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if len(p) > len(d) && strings.HasPrefix(p, d) &&
			(p[len(d)] == filepath.Separator || strings.HasSuffix(d, string(filepath.Separator))) {
			return true
		}
	}
	return false
}
