package gitsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/filelock"
	"github.com/somni-dev/somni/internal/memory"
)

// initMarker is the file Init leaves in .git and nothing else does: a data
// dir a person keeps in git by hand, origin and all, is not synced by a
// round (the sidecar's or the CLI's) until `sync init` was run on it.
const initMarker = "somni-sync-init"

// Configured reports whether Init set dataDir up for sync, without running
// git (the sidecar asks at every start).
func Configured(dataDir string) bool {
	return isFile(filepath.Join(dataDir, ".git", initMarker))
}

// syncLockName is this machine's one-round-at-a-time lock, inside .git so
// it never travels: the CLI and the sidecar's own syncs take turns.
const syncLockName = "somni-sync.lock"

// syncLockWait bounds the wait for another round on this data dir.
const syncLockWait = netTimeout + callTimeout

// session is one command's view of a data dir under sync.
type session struct {
	dir  string // absolute data dir
	exe  string // the merge driver's executable
	git  *repo
	st   *memory.Store
	log  *slog.Logger
	host string
	// clean are blobs this session scanned and found free of secrets.
	clean map[string]bool
}

// Option changes how a command runs (tests, and the sidecar's own sync).
type Option func(*session)

// WithLogger sends what a command does to l (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *session) { s.log = l } }

// WithDriver names the executable git runs as the merge driver (default:
// this process's executable, os.Executable).
func WithDriver(exe string) Option { return func(s *session) { s.exe = exe } }

// open prepares a session on dataDir; with mustBeRepo a data dir that sync
// was never set up in is KindNotInitialised.
func open(dataDir string, mustBeRepo bool, opts []Option) (*session, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("gitsync: data dir %s: %w", dataDir, err)
	}
	s := &session{dir: abs, log: slog.Default(), clean: map[string]bool{}}
	for _, o := range opts {
		o(s)
	}
	if s.exe == "" {
		if s.exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("gitsync: find this executable for the merge driver: %w", err)
		}
	}
	// The name a commit is said to come from: which machine wrote what is
	// what a person reading the remote's log wants to know.
	s.host, _ = os.Hostname()
	if s.host == "" {
		s.host = "unknown host"
	}
	s.git = &repo{dir: abs, author: "somni on " + s.host, email: "somni@" + strings.ReplaceAll(s.host, " ", "-")}
	if mustBeRepo {
		if _, err := os.Stat(filepath.Join(abs, ".git")); err != nil {
			return nil, notInitialised(abs)
		}
	}
	if s.st, err = memory.Open(memory.Config{DataDir: abs, Logger: s.log}); err != nil {
		return nil, fmt.Errorf("gitsync: open the store: %w", err)
	}
	return s, nil
}

// openSynced is open for a data dir Init set up, with origin read.
func openSynced(ctx context.Context, dataDir string, opts []Option) (*session, error) {
	s, err := open(dataDir, true, opts)
	if err != nil {
		return nil, err
	}
	if !Configured(s.dir) {
		return nil, notInitialised(s.dir)
	}
	return s, s.readRemote(ctx)
}

// readRemote reads origin's URL into the runner (for messages); a repo
// without one is not set up for sync.
func (s *session) readRemote(ctx context.Context) error {
	c, err := s.git.runCode(ctx, "remote", "get-url", remoteName)
	if err != nil {
		return err
	}
	if c.code != 0 {
		return notInitialised(s.dir)
	}
	s.git.remote = shownRemote(strings.TrimSpace(string(c.stdout)))
	return nil
}

// syncLock takes this data dir's round lock, waiting for another round.
func (s *session) syncLock(ctx context.Context) (func(), error) {
	p := filepath.Join(s.dir, ".git", syncLockName)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("gitsync: sync lock: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, syncLockWait)
	defer cancel()
	for {
		err := filelock.Lock(f, false)
		if err == nil {
			return func() { _ = f.Close() }, nil
		}
		if !errors.Is(err, filelock.ErrLocked) {
			f.Close()
			return nil, fmt.Errorf("gitsync: sync lock: %w", err)
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, &Error{Kind: KindBlocked, Err: ctx.Err(),
				Sentence: "another sync of this data dir is still running: wait for it to finish, then run sync again"}
		case <-t.C:
		}
	}
}

// withStoreLock runs fn holding the store's write lock, so a merge that
// rewrites the work tree cannot interleave with the sidecar's
// compare-and-swap rewrites, a decay or an archive move.
func (s *session) withStoreLock(ctx context.Context, fn func() error) error {
	unlock, err := s.st.Lock(ctx)
	if err != nil {
		return fmt.Errorf("gitsync: %w", err)
	}
	defer unlock()
	return fn()
}

// isRepo reports whether dir holds a git repository of its own (not one of
// a folder above it: a data dir inside a dotfiles repo gets its own).
func isRepo(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return !errors.Is(err, fs.ErrNotExist)
}
