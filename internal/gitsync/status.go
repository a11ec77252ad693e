package gitsync

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/filelock"
)

// lastRound is the state file: how the last round on this machine ended.
type lastRound struct {
	At      time.Time `json:"at"`
	InStep  bool      `json:"in_step"`
	Summary string    `json:"summary"` // the round's report, or its error sentence
}

// Last is how the last round on a machine ended, as the round recorded it.
type Last struct {
	At     time.Time
	InStep bool
	Said   string // the round's report, or its failure's sentence
}

// LastRound reads how the last round on dataDir ended without running git
// (doctor, which must answer when the network does not); ok is false when
// sync is not set up there or no round has run.
func LastRound(dataDir string) (last Last, ok bool) {
	if !Configured(dataDir) {
		return Last{}, false
	}
	data, err := os.ReadFile(filepath.Join(dataDir, ".git", stateFile))
	var st lastRound
	if err != nil || json.Unmarshal(data, &st) != nil {
		return Last{}, false
	}
	return Last{At: st.At, InStep: st.InStep, Said: st.Summary}, true
}

// saveState records how a round ended; a failure to record it is logged,
// never the round's failure.
func (s *session) saveState(rep Report, err error) {
	st := lastRound{At: time.Now().UTC(), InStep: err == nil && rep.InStep}
	if err != nil {
		st.Summary = err.Error()
	} else {
		st.Summary = rep.String()
	}
	data, jerr := json.MarshalIndent(st, "", "  ")
	if jerr == nil {
		jerr = writeAtomic(s.statePath(), append(data, '\n'))
	}
	if jerr != nil {
		s.log.Warn("gitsync: cannot record the round's outcome", "file", s.statePath(), "err", jerr)
	}
}

func (s *session) loadState() (lastRound, bool) {
	var st lastRound
	data, err := os.ReadFile(s.statePath())
	if err != nil || json.Unmarshal(data, &st) != nil {
		return lastRound{}, false
	}
	return st, true
}

// State is where a data dir under sync stands.
type State struct {
	Remote    string
	InStep    bool
	Local     int    // changed files here not yet recorded (held-back ones included)
	Ahead     int    // commits here the remote lacks
	Behind    int    // commits on the remote not merged here, as of the fetch
	Unfetched string // why the remote could not be asked ("" when it was)
	Busy      bool   // a round was running: the remote was not asked
	LastAt    time.Time
	LastOK    bool
	LastSaid  string
}

// Status fetches the remote (without touching the work tree) and says
// whether this machine is in step, what waits on each side and how the
// last round went. A remote that cannot be reached is said in Unfetched,
// not returned as an error: the rest of the state is still worth showing.
func Status(ctx context.Context, dataDir string, opts ...Option) (State, error) {
	s, err := openSynced(ctx, dataDir, opts)
	if err != nil {
		return State{}, err
	}
	st := State{Remote: s.git.remote}
	if last, ok := s.loadState(); ok {
		st.LastAt, st.LastOK, st.LastSaid = last.At, last.InStep, last.Summary
	}
	if err := s.fetchUnlessBusy(ctx, &st); err != nil {
		return st, err
	}
	out, err := s.git.run(ctx, "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return st, err
	}
	st.Local = len(splitZ(out))
	head, err := s.git.revParse(ctx, "HEAD")
	if err != nil {
		return st, err
	}
	theirs, err := s.git.revParse(ctx, tracking)
	if err != nil {
		return st, err
	}
	if st.Ahead, err = s.git.count(ctx, theirs, head); err != nil {
		return st, err
	}
	if st.Behind, err = s.git.count(ctx, head, theirs); err != nil {
		return st, err
	}
	st.InStep = st.Unfetched == "" && !st.Busy && st.Local == 0 && st.Ahead == 0 && st.Behind == 0 && head != "" && theirs != ""
	return st, nil
}

// fetchUnlessBusy fetches unless a round holds the sync lock (it fetches
// itself, and two fetches would contend for the same refs).
func (s *session) fetchUnlessBusy(ctx context.Context, st *State) error {
	f, err := os.OpenFile(filepath.Join(s.dir, ".git", syncLockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("gitsync: sync lock: %w", err)
	}
	defer f.Close()
	if !filelock.TryLock(f) {
		st.Busy = true
		return nil
	}
	if err := s.fetch(ctx); err != nil {
		if k := KindOf(err); k == KindOther || k == KindGitMissing {
			return err
		}
		st.Unfetched = err.Error()
	}
	return nil
}

// Lines says the state: in step or not with what waits, then the last round.
func (st State) Lines() []string {
	var lines []string
	if st.InStep {
		lines = append(lines, fmt.Sprintf("in step with %s (%s)", remoteName, st.Remote))
	} else {
		var waits []string
		if st.Local > 0 {
			waits = append(waits, fmt.Sprintf("%d local %s not sent", st.Local, plural(st.Local, "change", "changes")))
		}
		if st.Ahead > 0 {
			waits = append(waits, fmt.Sprintf("%d %s to push", st.Ahead, plural(st.Ahead, "commit", "commits")))
		}
		if st.Behind > 0 {
			waits = append(waits, fmt.Sprintf("%d %s to pull", st.Behind, plural(st.Behind, "commit", "commits")))
		}
		if st.Busy {
			waits = append(waits, "a sync round is running now")
		}
		if len(waits) == 0 && st.Unfetched == "" {
			waits = append(waits, "nothing sent yet")
		}
		line := fmt.Sprintf("not in step with %s (%s)", remoteName, st.Remote)
		if len(waits) > 0 {
			line += ": " + strings.Join(waits, ", ")
		}
		lines = append(lines, line)
		if st.Unfetched != "" {
			lines = append(lines, "remote not asked: "+st.Unfetched)
		}
	}
	if st.LastAt.IsZero() {
		lines = append(lines, "last round: none yet (run `somni-sidecar sync`)")
	} else {
		said := strings.ReplaceAll(st.LastSaid, "\n", "; ")
		lines = append(lines, fmt.Sprintf("last round: %s (%s ago): %s", st.LastAt.Local().Format(dates.MinuteLayout),
			time.Since(st.LastAt).Round(time.Second), said))
	}
	return lines
}
