package sidecar

import (
	"context"

	"github.com/somni-dev/somni/internal/memory"
)

// Finding is one thing `somni-sidecar doctor` reports: the data directory's
// findings come from memory, which knows the file format, and install adds
// its own (kind "install") to the same list.
type Finding = memory.Finding

// Doctor checks a data directory without changing it (see memory.Store.Doctor:
// unparsable files with line, names used twice, `related:` links to nothing,
// dates that do not parse). Findings are sorted by path.
func Doctor(ctx context.Context, st *memory.Store) ([]Finding, error) {
	return st.Doctor(ctx)
}
