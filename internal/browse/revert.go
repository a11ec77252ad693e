package browse

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/somni-dev/somni/internal/dreamlog"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
)

// What undoing one change came to (Undone.Outcome).
const (
	// UndoReverted: the entry is as it was before the dream (a created one archived, so nothing is lost).
	UndoReverted = "reverted"
	// UndoEdited: the entry changed since the dream (a person, a sync, a later dream) and was kept as it is.
	UndoEdited = "edited"
	// UndoGone: the entry is no longer where the dream left it (already undone, forgotten or moved): nothing to do.
	UndoGone = "gone"
	// UndoRefused: the store refused the undo (Why says why); nothing changed.
	UndoRefused = "refused"
)

// Undone is what undoing one of a dream's changes did (memory.revertDream).
type Undone struct {
	Path    string `json:"path"`          // the entry the dream changed, as its record names it
	Op      string `json:"op"`            // what the dream did: created, updated, archived
	Outcome string `json:"outcome"`       // UndoReverted, UndoEdited, UndoGone, UndoRefused
	Now     string `json:"now,omitempty"` // where the entry is after the undo (archived to, restored to, kept at)
	Why     string `json:"why,omitempty"`
	// ChangedAt and ChangedBy say, for an entry kept, when it last changed
	// (its file's time) and which later dream changed it, when one did.
	ChangedAt string `json:"changedAt,omitempty"`
	ChangedBy string `json:"changedBy,omitempty"`
}

// RevertDream answers memory.revertDream: the changes the dream id made
// (its run record's Changes), all of them or those of paths, undone newest
// first, each a compare-and-swap against the bytes the dream left: an entry
// created is archived (Restore brings it back), an entry updated gets its
// text from before the dream, an entry archived is restored. An entry
// changed since the dream is never overwritten: its Undone says so.
func (b *Browser) RevertDream(ctx context.Context, id string, paths []string) ([]Undone, error) {
	d := dreamlog.New(b.store)
	run, err := d.Run(id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, invalid("no dream %q", id)
	}
	if err != nil {
		return nil, err
	}
	if len(run.Changes) == 0 && len(run.Created)+len(run.Updated)+len(run.Archived) > 0 {
		return nil, invalid("dream %s was recorded before dreams could be undone: undo its changes by hand", id)
	}
	if len(paths) > dreamlog.MaxRunPaths {
		return nil, invalid("%d paths, over the %d a dream records", len(paths), dreamlog.MaxRunPaths)
	}
	for _, p := range paths {
		if !slices.ContainsFunc(run.Changes, func(c dreamlog.Change) bool { return c.Path == p }) {
			return nil, invalid("dream %s did not change %q", id, p)
		}
	}
	out := []Undone{}
	for i := len(run.Changes) - 1; i >= 0; i-- {
		c := run.Changes[i]
		if len(paths) > 0 && !slices.Contains(paths, c.Path) {
			continue
		}
		u := b.undo(ctx, c)
		if u.Outcome == UndoEdited {
			u.ChangedBy = laterDream(d, run.ID, c)
		}
		out = append(out, u)
	}
	return out, nil
}

// undo undoes one change.
func (b *Browser) undo(ctx context.Context, c dreamlog.Change) Undone {
	u := Undone{Path: c.Path, Op: c.Op}
	at := c.Path
	if c.Op == dreamlog.OpArchived {
		at = c.Archive
		if at == "" {
			return u.refused("where the dream archived it was not found: restore it from the archived entries")
		}
	}
	f, err := b.entryFile(at, c.Op == dreamlog.OpUpdated)
	if err != nil {
		return u.refused(err.Error())
	}
	if c.After == "" {
		u.Outcome = UndoGone // created and archived by the same dream
		return u
	}
	check := func(current []byte) error {
		if c.Op == dreamlog.OpUpdated && c.Kept && string(current) == c.Text {
			return errUndone
		}
		if dreamlog.Sum(current) != c.After {
			return &Conflict{Path: f.rel}
		}
		return nil
	}
	switch c.Op {
	case dreamlog.OpCreated:
		var dest string
		dest, err = b.ed.ArchiveEntry(ctx, f.abs, check)
		if err == nil {
			if info, serr := b.store.FS().Stat(dest); serr == nil && info.IsDir() {
				dest = filepath.Join(dest, filepath.Base(f.abs))
			}
			u.Now = b.store.Rel(dest)
		}
	case dreamlog.OpUpdated:
		if !c.Kept {
			return u.refused("its text from before the dream was past what a dream's record keeps: undo it by hand")
		}
		_, err = b.ed.ReplaceText(ctx, f.abs, []byte(c.Text), check)
		if errors.Is(err, safefs.ErrChanged) {
			err = &Conflict{Path: f.rel}
		}
		u.Now = f.rel
	case dreamlog.OpArchived:
		var dest string
		dest, err = b.ed.RestoreEntry(ctx, f.abs, check)
		u.Now = b.store.Rel(dest)
	default:
		return u.refused(fmt.Sprintf("unknown change %q", c.Op))
	}
	if _, ok := IsConflict(err); ok {
		u.Outcome, u.Now = UndoEdited, f.rel
		if info, serr := b.store.FS().Stat(f.abs); serr == nil {
			u.ChangedAt = info.ModTime().Format(time.RFC3339)
		}
		return u
	}
	switch {
	case errors.Is(err, errUndone):
		u.Outcome, u.Why = UndoGone, "it is already as it was before the dream"
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, memory.ErrNotFound):
		u.Outcome, u.Now = UndoGone, ""
	case err != nil:
		u.Now = ""
		return u.refused(err.Error())
	default:
		u.Outcome = UndoReverted
	}
	return u
}

// errUndone is an updated entry found as it was before the dream.
var errUndone = errors.New("already undone")

func (u Undone) refused(why string) Undone {
	u.Outcome, u.Why = UndoRefused, why
	return u
}

// laterDream names the newest dream after id that changed c's entry ("" when none did).
func laterDream(d *dreamlog.Diaries, id string, c dreamlog.Change) string {
	runs, err := d.Runs(MaxDreams)
	if err != nil {
		return ""
	}
	for _, r := range runs { // newest first
		if r.ID <= id {
			break
		}
		for _, rc := range r.Changes {
			if rc.Path == c.Path || c.Archive != "" && rc.Path == c.Archive {
				return r.ID
			}
		}
	}
	return ""
}
