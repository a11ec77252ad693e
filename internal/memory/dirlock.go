package memory

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/somni-dev/somni/internal/filelock"
)

// Two processes (the DSH sidecar and an MCP server, or two sidecars) may
// share one data directory. Every store mutation that reads the directory to
// decide what to write — picking a free id or name, checking for a
// duplicate, closing an intention, folding the usage journal, decaying,
// archiving a log — runs under the data directory's write lock, an OS file
// lock on memory/.somni.lock, as well as the store's own mutex: the two
// processes then take turns exactly as two goroutines of one do. The kernel
// drops the lock when its holder dies (kill -9 included), so a crash never
// leaves the directory locked. Session capture does not take it: each log
// is its writer's alone (created locked, see package sessionlog).
const (
	writeLockName = ".somni.lock"
	dreamLockName = ".dream.lock"

	// maxLockWait bounds a wait for the other process's write lock. Holders
	// keep it for one store operation (an add_intention: two fsyncs) or for
	// a dream's decay or usage fold, one rewrite per entry (how long each
	// holds it: docs/ARCHITECTURE.md, Measurements). Thirty seconds (the original host's tools.call
	// timeout) is only reached when the holder is stopped or hung, and then
	// the call fails instead of hanging.
	maxLockWait = 30 * time.Second
	// lockPollMax is the longest pause between two tries: waiting by polling
	// (not a blocking flock) is what lets a context end the wait.
	lockPollMax = 10 * time.Millisecond
)

// lock takes the store's mutex and the data directory's write lock, waiting
// at most until ctx ends or maxLockWait; the returned func releases both.
func (s *Store) lock(ctx context.Context) (func(), error) {
	s.mu.Lock()
	if err := s.lockShared(ctx); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	return func() {
		if err := filelock.Unlock(s.xf); err != nil {
			// Closing drops it for sure; the next lock reopens the file.
			s.log.Warn("memory: releasing the write lock", "err", err)
			_ = s.xf.Close()
			s.xf = nil
		}
		s.mu.Unlock()
	}, nil
}

// lockShared takes the cross-process write lock on s.xf. Caller holds s.mu.
func (s *Store) lockShared(ctx context.Context) error {
	if s.xf == nil {
		f, err := s.fs.OpenLock(filepath.Join(s.dirs.memory, writeLockName))
		if err != nil {
			return fmt.Errorf("memory: write lock: %w", err)
		}
		s.xf = f
	}
	ctx, cancel := context.WithTimeout(ctx, maxLockWait)
	defer cancel()
	pause := 100 * time.Microsecond
	for {
		err := filelock.Lock(s.xf, false)
		if err == nil {
			return nil
		}
		if !errors.Is(err, filelock.ErrLocked) {
			return fmt.Errorf("memory: write lock: %w", err)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("memory: waiting for another process's write lock on %s: %w", s.Rel(s.dirs.memory), ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, lockPollMax)
	}
}

// mustLock is lock for the mutations that take no context.
func (s *Store) mustLock() (func(), error) { return s.lock(context.Background()) }

// Lock is lock for the session logs, whose archiving takes its turn with
// the store's mutations.
func (s *Store) Lock(ctx context.Context) (func(), error) { return s.lock(ctx) }

// TryDreamLock takes the data directory's dream lock (memory/.dream.lock)
// if no one holds it: one dream at a time across every process on the data
// dir (and across stores in one process). ok false means another holds it.
// release frees it; so does the holder's death.
func (s *Store) TryDreamLock() (release func(), ok bool, err error) {
	f, err := s.fs.OpenLock(filepath.Join(s.dirs.memory, dreamLockName))
	if err != nil {
		return nil, false, fmt.Errorf("memory: dream lock: %w", err)
	}
	if err := filelock.Lock(f, false); err != nil {
		f.Close()
		if errors.Is(err, filelock.ErrLocked) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("memory: dream lock: %w", err)
	}
	return func() { _ = f.Close() }, true, nil
}

// IsLockFile reports whether a file name in the memory root is one of the
// lock files (empty; they hold locks, not memories).
func IsLockFile(name string) bool { return name == writeLockName || name == dreamLockName }

// LockFiles returns the paths of the write lock and the dream lock files, so
// doctor can name what sits where a lock belongs.
func (s *Store) LockFiles() (write, dream string) {
	return filepath.Join(s.dirs.memory, writeLockName), filepath.Join(s.dirs.memory, dreamLockName)
}
