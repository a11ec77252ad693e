package gitsync

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxPushAttempts bounds a round's push: a push the remote rejects because
// another machine pushed first is fetched, merged and pushed again, up to
// this many times in all, with a short random pause so two machines in a
// tie do not retry in step.
const maxPushAttempts = 5

// Round runs one sync round on a data dir set up with Init: it records this
// machine's changes (secrets held back), fetches the remote, merges it entry
// by entry and pushes the result, retrying a push another machine beat.
// The report says what it did; err is one sentence with what to do. A
// round that held a file back returns a nil error and a report that is not
// InStep.
func Round(ctx context.Context, dataDir string, opts ...Option) (Report, error) {
	s, err := openSynced(ctx, dataDir, opts)
	if err != nil {
		return Report{}, err
	}
	return s.round(ctx)
}

// Init puts a data dir under sync with remote (any git URL or path): a git
// repository in the data dir if there is none (branch main), the ignore and
// attribute files, this executable as the merge driver, origin set to
// remote, then a first round. An empty remote receives this machine's
// memory; one that holds memory already is merged with what is here (its
// history need not be related to this one's), nothing of either lost. The
// data dir is created when missing: a new machine joins with an empty one.
func Init(ctx context.Context, dataDir, remote string, opts ...Option) (Report, error) {
	remote = strings.TrimSpace(remote)
	if remote == "" {
		return Report{}, &Error{Kind: KindNotInitialised, Sentence: "give the remote to sync with: a git URL (git@host:you/memory.git, https://…) or a path to a repository"}
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return Report{}, fmt.Errorf("gitsync: create the data dir: %w", err)
	}
	s, err := open(dataDir, false, opts)
	if err != nil {
		return Report{}, err
	}
	if !isRepo(s.dir) {
		if _, err := s.git.run(ctx, "init", "-q"); err != nil {
			return Report{}, err
		}
		// git init's branch name is the user's init.defaultBranch; sync's is main.
		if _, err := s.git.run(ctx, "symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
			return Report{}, err
		}
	}
	if err := s.setRemote(ctx, remote); err != nil {
		return Report{}, err
	}
	// Before the first round: a remote that cannot be reached now is
	// retried by the next `sync` (or the sidecar) without another init.
	if err := writeAtomic(filepath.Join(s.dir, ".git", initMarker), []byte(remote+"\n")); err != nil {
		return Report{}, fmt.Errorf("gitsync: mark the data dir as synced: %w", err)
	}
	rep, err := s.round(ctx)
	rep.Joined = remote
	return rep, err
}

// setRemote points origin at remote, adding it or changing its URL.
func (s *session) setRemote(ctx context.Context, remote string) error {
	c, err := s.git.runCode(ctx, "remote", "get-url", remoteName)
	if err != nil {
		return err
	}
	switch have := strings.TrimSpace(string(c.stdout)); {
	case c.code != 0:
		_, err = s.git.run(ctx, "remote", "add", remoteName, remote)
	case have != remote:
		s.log.Info("gitsync: origin changes", "from", shownRemote(have), "to", shownRemote(remote))
		_, err = s.git.run(ctx, "remote", "set-url", remoteName, remote)
	}
	s.git.remote = shownRemote(remote)
	return err
}

// round is one round under this data dir's sync lock; it records how it
// ended in the state file Status reads.
func (s *session) round(ctx context.Context) (rep Report, err error) {
	rep.Remote = s.git.remote
	release, err := s.syncLock(ctx)
	if err != nil {
		return rep, err
	}
	defer release()
	defer func() { s.saveState(rep, err) }()
	// Work tree first, under the store's lock: finish what a killed round
	// left, then record what changed here since the last round.
	err = s.withStoreLock(ctx, func() error {
		if _, err := s.git.clearStaleLocks(ctx, s.log); err != nil {
			return err
		}
		if _, err := s.git.resumeMerge(ctx, s.log); err != nil {
			return err
		}
		if err := s.setup(ctx); err != nil {
			return err
		}
		return s.recordInto(ctx, &rep, "changes on this machine")
	})
	if err != nil {
		return rep, err
	}
	for attempt := 1; ; attempt++ {
		rep.Attempts = attempt
		if err := s.fetch(ctx); err != nil {
			return rep, err
		}
		if err := s.mergeInto(ctx, &rep); err != nil {
			return rep, err
		}
		pushed, err := s.push(ctx, &rep)
		if err == nil {
			rep.Pushed = pushed
			break
		}
		if KindOf(err) != KindRejected || attempt >= maxPushAttempts {
			if KindOf(err) == KindRejected {
				err = &Error{Kind: KindRejected, Err: err, Sentence: fmt.Sprintf(
					"%s rejected the push %d times (other machines kept pushing, or the branch %s is protected): run sync again in a minute; if it keeps failing, check the remote's branch protection",
					rep.Remote, attempt, branch)}
			}
			return rep, err
		}
		s.log.Info("gitsync: the remote moved while we merged; fetching and merging again", "attempt", attempt)
		if err := pause(ctx, attempt); err != nil {
			return rep, err
		}
	}
	rep.InStep, err = s.inStep(ctx, &rep)
	return rep, err
}

// recordInto records local changes and adds them to the report.
func (s *session) recordInto(ctx context.Context, rep *Report, why string) error {
	_, held, more, err := s.record(ctx, why)
	if err != nil {
		return err
	}
	rep.addHeld(held)
	rep.Waiting = more
	return nil
}

// mergeInto merges the fetched branch under the store's lock when it holds
// anything new, recording first what was written here during the fetch and,
// after a true merge, the siblings a merge driver left in the work tree.
// Each record stats every file of the data dir (what that costs at 10k
// entries is in docs/ARCHITECTURE.md, Measurements), so a round with nothing to merge records once.
func (s *session) mergeInto(ctx context.Context, rep *Report) error {
	return s.withStoreLock(ctx, func() error {
		theirs, err := s.git.revParse(ctx, tracking)
		if err != nil || theirs == "" {
			return err
		}
		if head, err := s.git.revParse(ctx, "HEAD"); err != nil || head != "" && s.isAncestor(ctx, theirs, head) {
			return err
		}
		if err := s.recordInto(ctx, rep, "changes on this machine"); err != nil {
			return err
		}
		m, err := s.mergeRemote(ctx)
		if err != nil {
			return err
		}
		rep.Received += m.received
		rep.Merged += m.both
		rep.Conflicts = append(rep.Conflicts, m.conflicts...)
		rep.Restored = append(rep.Restored, m.restored...)
		if !m.merge && len(m.conflicts) == 0 {
			return nil // a fast-forward leaves nothing new to record
		}
		return s.recordInto(ctx, rep, "entries kept beside the ones they clashed with")
	})
}

// fetch brings the remote's branch into refs/remotes/origin/main. An empty
// remote fetches nothing, and that is no error: the round's push fills it.
func (s *session) fetch(ctx context.Context) error {
	args := []string{"fetch", "-q", "--no-tags", remoteName, "+refs/heads/" + branch + ":" + tracking}
	c, err := s.git.runCode(ctx, args...)
	switch {
	case err != nil:
		return err
	case c.code == 0:
		return nil
	case strings.Contains(c.stderr, "couldn't find remote ref"):
		return nil
	}
	return s.git.explain(c)
}

// push sends HEAD to the remote's main when the remote lacks any of it,
// after checking that nothing it sends holds a secret.
func (s *session) push(ctx context.Context, rep *Report) (bool, error) {
	head, err := s.git.revParse(ctx, "HEAD")
	if err != nil || head == "" {
		return false, err
	}
	theirs, err := s.git.revParse(ctx, tracking)
	if err != nil {
		return false, err
	}
	if theirs != "" && s.isAncestor(ctx, head, theirs) {
		return false, nil // the remote has all of it
	}
	if err := s.guardOutgoing(ctx); err != nil {
		return false, err
	}
	sent := 0
	if theirs == "" {
		sent, err = s.countFiles(ctx, head)
	} else {
		sent, err = s.changedFiles(ctx, theirs, head)
	}
	if err != nil {
		return false, err
	}
	if _, err := s.git.run(ctx, "push", "-q", "--no-verify", remoteName, head+":refs/heads/"+branch); err != nil {
		return false, err
	}
	// The remote now holds head: the tracking branch says so without a fetch.
	if _, err := s.git.run(ctx, "update-ref", tracking, head); err != nil {
		return false, err
	}
	rep.Sent += sent
	return true, nil
}

// inStep reports whether the remote holds exactly this machine's memory:
// HEAD is the remote's branch and nothing was held back or left waiting.
func (s *session) inStep(ctx context.Context, rep *Report) (bool, error) {
	if len(rep.HeldBack) > 0 || rep.Waiting > 0 {
		return false, nil
	}
	head, err := s.git.revParse(ctx, "HEAD")
	if err != nil {
		return false, err
	}
	theirs, err := s.git.revParse(ctx, tracking)
	return err == nil && head != "" && head == theirs, err
}

// pause waits a little before a retry, longer each time, with jitter.
func pause(ctx context.Context, attempt int) error {
	d := time.Duration(attempt)*200*time.Millisecond + rand.N(300*time.Millisecond)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// stateFile keeps how the last round went, inside .git: machine-local.
const stateFile = "somni-sync.json"

func (s *session) statePath() string { return filepath.Join(s.dir, ".git", stateFile) }
