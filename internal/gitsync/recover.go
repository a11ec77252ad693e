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
)

const (
	// staleLockAge is how old a git lock file must be before it counts as
	// left by a killed git where no one can tell whether a process holds it:
	// past the longest call sync makes (netTimeout), no git of ours is alive.
	staleLockAge = netTimeout + time.Minute
	// freshLockAge spares a lock created a moment ago even when no process
	// seems to hold it: git may be between creating it and our look.
	freshLockAge = 2 * time.Second
	// heldLockWait is how long a round waits for a lock another git holds
	// before it says so and stops.
	heldLockWait = 10 * time.Second
)

// gitLockFiles are the lock files git leaves when it dies holding them, as
// paths inside .git; refs/ is searched too (refs/heads/main.lock …).
var gitLockFiles = []string{"index.lock", "HEAD.lock", "ORIG_HEAD.lock", "config.lock", "packed-refs.lock",
	"shallow.lock", "MERGE_HEAD.lock", "FETCH_HEAD.lock"}

// clearStaleLocks removes the lock files a killed git left behind (kill -9
// mid-sync): without it every later git call that writes fails with "Unable
// to create index.lock: File exists" until a person deletes it. A lock is
// only removed when no process holds it and it is not brand new, or, where
// that cannot be seen, when it is older than any call of ours could be.
func (r *repo) clearStaleLocks(ctx context.Context, log *slog.Logger) ([]string, error) {
	gitDir := filepath.Join(r.dir, ".git")
	var locks []string
	for _, n := range gitLockFiles {
		locks = append(locks, filepath.Join(gitDir, n))
	}
	err := filepath.WalkDir(filepath.Join(gitDir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			locks = append(locks, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gitsync: look for stale git locks: %w", err)
	}
	var removed []string
	for _, p := range locks {
		gone, err := r.settleLock(ctx, p, log)
		if err != nil {
			return removed, err
		}
		if gone {
			removed = append(removed, rel(r.dir, p))
		}
	}
	return removed, nil
}

// settleLock waits up to heldLockWait for a lock file some git holds (an
// editor's background `git status` takes index.lock for a moment) and
// removes it when stale; removed says it was ours to remove.
func (r *repo) settleLock(ctx context.Context, p string, log *slog.Logger) (removed bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, heldLockWait)
	defer cancel()
	for {
		fi, err := os.Lstat(p)
		if err != nil {
			return false, nil
		}
		age := time.Since(fi.ModTime())
		held, known := lockHolder(p, filepath.Join(r.dir, ".git"))
		if (known && !held && age >= freshLockAge) || (!known && age >= staleLockAge) {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return false, fmt.Errorf("gitsync: remove the stale git lock %s: %w", p, err)
			}
			log.Warn("gitsync: removed a git lock file left by a killed git", "file", rel(r.dir, p), "age", age.Round(time.Second))
			return true, nil
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			if held {
				return false, &Error{Kind: KindBlocked, Err: ctx.Err(), Sentence: fmt.Sprintf(
					"another git is working in %s (it holds %s): wait for it to finish, then run sync again", r.dir, rel(r.dir, p))}
			}
			return false, &Error{Kind: KindBlocked, Err: ctx.Err(), Sentence: fmt.Sprintf(
				"%s is locked by a git started %v ago: wait for it, or if no git is running delete that file, then run sync again",
				rel(r.dir, p), age.Round(time.Second))}
		case <-t.C:
		}
	}
}

// resumeMerge finishes or undoes a merge a killed round left open. Resolved
// (no unmerged path: killed after resolving, before committing), it is
// committed as the round would have; otherwise it is aborted and the round
// merges again from the start, with the driver.
func (r *repo) resumeMerge(ctx context.Context, log *slog.Logger) (resumed bool, err error) {
	if _, err := os.Stat(filepath.Join(r.dir, ".git", "MERGE_HEAD")); err != nil {
		return false, nil
	}
	unmerged, err := r.unmergedPaths(ctx)
	if err != nil {
		return false, err
	}
	if len(unmerged) == 0 {
		log.Warn("gitsync: committing a merge an interrupted sync had resolved")
		if _, err := r.run(ctx, "commit", "-q", "--no-verify", "--no-edit"); err != nil {
			return false, err
		}
		return true, nil
	}
	log.Warn("gitsync: aborting a merge an interrupted sync left open; merging again", "unmerged", len(unmerged))
	if _, err := r.run(ctx, "merge", "--abort"); err != nil {
		return false, err
	}
	return true, nil
}

// rel is p relative to the data dir, slash-separated, for messages.
func rel(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}
