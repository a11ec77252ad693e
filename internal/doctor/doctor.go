package doctor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// Finding is one thing `somni-sidecar doctor` reports.
type Finding struct {
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Kind   string `json:"kind"` // unparsable | refused | incomplete | duplicate-name | orphan-link | bad-date | profile-folder | lock | usage-journal | install | sync
	Reason string `json:"reason"`
}

func (f Finding) String() string {
	if f.Path == "" {
		return fmt.Sprintf("%s: %s", f.Kind, f.Reason)
	}
	loc := f.Path
	if strings.IndexFunc(loc, unicode.IsControl) >= 0 {
		loc = strconv.Quote(loc) // a folder named with a newline must not forge a report line
	}
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
	return fmt.Sprintf("%s: %s: %s", loc, f.Kind, f.Reason)
}

// Check checks the data directory of st without changing it: unparsable files
// (with line), names used by more than one entry, `related:` links to
// nothing, dates that do not parse, lock files that block writes and usage
// journals that lose recall hits (state.go). logs are the session logs to check
// (package sessionlog lists them). Findings are sorted by path.
func Check(ctx context.Context, st *memory.Store, logs []string) ([]Finding, error) {
	var out []Finding
	entries, problems, err := st.List(ctx, memory.KindKnowledge, memory.KindSkill, memory.KindEpisode, memory.KindIntention)
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	for _, p := range problems {
		kind := "unparsable"
		if p.Refused {
			kind = "refused"
		}
		out = append(out, Finding{Path: p.Path, Line: p.Line, Kind: kind, Reason: p.Reason})
	}
	refused, err := st.Audit(ctx)
	if err != nil {
		return nil, fmt.Errorf("doctor: %w", err)
	}
	// A lock or journal file planted as a link out is also refused by the
	// audit; these say what it breaks and how to clear it, so they win.
	out = append(out, checkLocks(st)...)
	out = append(out, checkUsageJournal(st)...)
	seen := map[string]bool{}
	for _, f := range out {
		seen[f.Path] = true
	}
	for _, p := range refused {
		if !seen[p.Path] {
			out = append(out, Finding{Path: p.Path, Kind: "refused", Reason: p.Reason})
		}
	}
	// Identity files and session logs are read on every prompt or dream.
	out = append(out, checkIdentity(st)...)
	out = append(out, checkUserFolders(st)...)
	for _, l := range logs {
		if f, ok := checkParses(st, l); !ok {
			out = append(out, f)
		}
	}
	out = append(out, checkEntries(entries)...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

// checkParses reports whether the file at p (if it exists) has readable
// front-matter; it reads through the store, so a link out is refused, not followed.
func checkParses(st *memory.Store, p string) (Finding, bool) {
	err := st.CheckFile(p)
	if err == nil {
		return Finding{}, true
	}
	f := Finding{Path: p, Kind: "unparsable", Reason: err.Error()}
	var pe *frontmatter.ParseError
	if errors.As(err, &pe) {
		f.Line, f.Reason = pe.Line, pe.Reason
	}
	return f, false
}
