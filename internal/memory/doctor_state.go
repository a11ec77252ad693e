package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/safefs"
)

// The files that are not memories but decide whether memory works: the
// usage journal (recall reinforcement) and the two lock files (every write,
// every dream). Audit sees only *.md files and links out, so a FIFO or a
// folder planted under one of these names would pass doctor while writes
// fail or hits are lost; these checks name them.

// checkLocks reports a lock file in the memory root that is not a regular
// file: opening it to lock fails, so every write (or every dream) fails
// until it is gone.
func checkLocks(fsys *safefs.FS, memoryDir string) []Finding {
	var out []Finding
	for _, l := range []struct{ name, lock, blocks string }{
		{writeLockName, "write lock", "every write to memory"},
		{dreamLockName, "dream lock", "every dream"},
	} {
		p := filepath.Join(memoryDir, l.name)
		fi, err := fsys.Lstat(p)
		if err != nil || fi.Mode().IsRegular() {
			continue
		}
		out = append(out, Finding{Path: p, Kind: "lock", Reason: fmt.Sprintf(
			"%s where the %s file belongs: %s fails until it is gone; move it away or remove it (somni makes a new empty file)",
			safefs.Kind(fi.Mode()), l.lock, l.blocks)})
	}
	return out
}

// check reports the journal files recall hits are lost in: a journal or
// claim no fold can read (the next dream quarantines it), a full journal,
// and each quarantined file.
func (u UsageJournal) check() []Finding {
	s := u.s
	var out []Finding
	journal := filepath.Join(s.dirs.memory, usageJournal)
	for _, p := range []string{journal, filepath.Join(s.dirs.memory, usageFolding)} {
		if t := u.trouble(p); t != "" {
			out = append(out, Finding{Path: p, Kind: "usage-journal", Reason: t +
				": recall hits are not counted; the next dream moves it aside to " + usageQuarantine + "<time> and starts a new journal"})
		}
	}
	if fi, err := s.fs.Lstat(journal); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxUsageJournalBytes && u.trouble(journal) == "" {
		out = append(out, Finding{Path: journal, Kind: "usage-journal", Reason: fmt.Sprintf(
			"full (%d bytes): recall hits are dropped until the next dream folds it", fi.Size())})
	}
	for _, p := range u.quarantined() {
		what := u.trouble(p)
		if what == "" {
			what = "unreadable when it was folded"
		}
		out = append(out, Finding{Path: p, Kind: "usage-journal", Reason: "quarantined: a usage journal no dream could read (" + what +
			"), moved aside; its recall hits were not counted. Look at it, then delete it"})
	}
	return out
}

// quarantined lists the journals folds moved aside, oldest first.
func (u UsageJournal) quarantined() []string {
	s := u.s
	des, err := s.fs.ReadDir(s.dirs.memory)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range des {
		if strings.HasPrefix(d.Name(), usageQuarantine) {
			out = append(out, filepath.Join(s.dirs.memory, d.Name()))
		}
	}
	return out
}

// Summary is doctor's line on the journal: hits pending, hits claimed by a
// fold (one running, or killed: the next dream folds them first), and
// journals quarantined.
func (u UsageJournal) Summary() string {
	s := u.s
	var parts []string
	for _, f := range []struct{ name, state string }{
		{usageJournal, "pending (the next dream folds them)"},
		{usageFolding, "claimed by a fold (running, or killed: the next dream folds them first)"},
	} {
		p := filepath.Join(s.dirs.memory, f.name)
		if t := u.trouble(p); t != "" {
			parts = append(parts, s.Rel(p)+" unreadable")
			continue
		}
		data, err := s.fs.ReadFile(p, usageReadBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			parts = append(parts, s.Rel(p)+" unreadable")
			continue
		}
		parts = append(parts, fmt.Sprintf("%d recall hits %s", bytes.Count(data, []byte("\n")), f.state))
	}
	if q := len(u.quarantined()); q > 0 {
		parts = append(parts, fmt.Sprintf("%d quarantined", q))
	}
	if len(parts) == 0 {
		return "usage journal: empty"
	}
	return "usage journal: " + strings.Join(parts, ", ")
}
