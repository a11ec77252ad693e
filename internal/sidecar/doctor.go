package sidecar

import (
	"context"
	"fmt"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/memory/doctor"
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
