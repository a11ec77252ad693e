package sidecar

import (
	"context"
	"fmt"
	"time"

	"github.com/somni-dev/somni/internal/gitsync"

	"github.com/somni-dev/somni/internal/doctor"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/sessionlog"
)

// Finding is one thing `somni-sidecar doctor` reports: the data directory's
// findings come from package doctor, which reads the store as every reader
// does, and install adds its own (kind "install") to the same list.
type Finding = doctor.Finding

// Doctor checks a data directory without changing it (see doctor.Check:
// unparsable files with line, names used twice, `related:` links to nothing,
// dates that do not parse). Findings are sorted by path.
func Doctor(ctx context.Context, st *memory.Store) ([]Finding, error) {
	logs, err := sessionlog.New(st).Files(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	return doctor.Check(ctx, st, logs)
}

// SyncCheck is what doctor says of git sync on dataDir: a line for the
// report ("" when sync is not set up), and a finding when the last round
// did not leave this machine in step. It runs no git: doctor answers
// offline, and `somni-sidecar sync status` is the one that asks the remote.
func SyncCheck(dataDir string) (string, []Finding) {
	if !gitsync.Configured(dataDir) {
		return "", nil
	}
	last, ok := gitsync.LastRound(dataDir)
	if !ok {
		return "sync: set up, no round has run yet", nil
	}
	when := last.At.Local().Format(time.DateTime)
	if last.InStep {
		return "sync: in step after the last round, " + when + " (somni-sidecar sync status asks the remote)", nil
	}
	return "sync: not in step after the last round, " + when, []Finding{{Kind: "sync",
		Reason: last.Said + " (somni-sidecar sync runs a round, sync status says what waits)"}}
}
