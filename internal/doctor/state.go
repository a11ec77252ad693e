package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
	"github.com/somni-dev/somni/internal/usage"
)

// The files that are not memories but decide whether memory works: the
// usage journal (recall reinforcement) and the two lock files (every write,
// every dream). Audit sees only *.md files and links out, so a FIFO or a
// folder planted under one of these names would pass doctor while writes
// fail or hits are lost; these checks name them.

// checkLocks reports a lock file in the memory root that is not a regular
// file: opening it to lock fails, so every write (or every dream) fails
// until it is gone.
func checkLocks(st *memory.Store) []Finding {
	var out []Finding
	write, dream := st.LockFiles()
	for _, l := range []struct{ path, lock, blocks string }{
		{write, "write lock", "every write to memory"},
		{dream, "dream lock", "every dream"},
	} {
		fi, err := st.FS().Lstat(l.path)
		if err != nil || fi.Mode().IsRegular() {
			continue
		}
		out = append(out, Finding{Path: l.path, Kind: "lock", Reason: fmt.Sprintf(
			"%s where the %s file belongs: %s fails until it is gone; move it away or remove it (somni makes a new empty file)",
			safefs.Kind(fi.Mode()), l.lock, l.blocks)})
	}
	return out
}

// checkUsageJournal reports the journal files recall hits are lost in: a
// journal or claim no fold can read (the next dream quarantines it), a full
// journal, and each quarantined file.
func checkUsageJournal(st *memory.Store) []Finding {
	u := usage.Of(st)
	var out []Finding
	journal, folding := u.Files()
	for _, p := range []string{journal, folding} {
		if t := u.Trouble(p); t != "" {
			out = append(out, Finding{Path: p, Kind: "usage-journal", Reason: t +
				": recall hits are not counted; the next dream moves it aside to " + usage.Quarantine + "<time> and starts a new journal"})
		}
	}
	if fi, err := st.FS().Lstat(journal); err == nil && fi.Mode().IsRegular() && fi.Size() > usage.MaxJournalBytes && u.Trouble(journal) == "" {
		out = append(out, Finding{Path: journal, Kind: "usage-journal", Reason: fmt.Sprintf(
			"full (%d bytes): recall hits are dropped until the next dream folds it", fi.Size())})
	}
	for _, p := range u.Quarantined() {
		what := u.Trouble(p)
		if what == "" {
			what = "unreadable when it was folded"
		}
		out = append(out, Finding{Path: p, Kind: "usage-journal", Reason: "quarantined: a usage journal no dream could read (" + what +
			"), moved aside; its recall hits were not counted. Look at it, then delete it"})
	}
	return out
}

// UsageSummary is doctor's line on the usage journal of st: hits pending,
// hits claimed by a fold (one running, or killed: the next dream folds them
// first), and journals quarantined.
func UsageSummary(st *memory.Store) string {
	u := usage.Of(st)
	journal, folding := u.Files()
	var parts []string
	for _, f := range []struct{ path, state string }{
		{journal, "pending (the next dream folds them)"},
		{folding, "claimed by a fold (running, or killed: the next dream folds them first)"},
	} {
		if t := u.Trouble(f.path); t != "" {
			parts = append(parts, st.Rel(f.path)+" unreadable")
			continue
		}
		n, err := u.Hits(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			parts = append(parts, st.Rel(f.path)+" unreadable")
			continue
		}
		parts = append(parts, fmt.Sprintf("%d recall hits %s", n, f.state))
	}
	if q := len(u.Quarantined()); q > 0 {
		parts = append(parts, fmt.Sprintf("%d quarantined", q))
	}
	if len(parts) == 0 {
		return "usage journal: empty"
	}
	return "usage journal: " + strings.Join(parts, ", ")
}
