package intentions

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/memory"
)

// Complete archives an open intention as completed.
func (pm Book) Complete(ctx context.Context, id string) (*Intention, error) {
	return pm.closeReport(ctx, id, ClosedCompleted)
}

// Cancel archives an open intention as cancelled.
func (pm Book) Cancel(ctx context.Context, id string) (*Intention, error) {
	return pm.closeReport(ctx, id, ClosedCancelled)
}

// CancelFile cancels the open intention whose INTENT.md is at path, a
// person's forget in the Memory tab: the close is noted in the file and its
// folder moved to intentions/archived/. check, when given, sees the file's
// bytes under the write lock and again at each try of the note's
// compare-and-swap; its error stops the cancel. It returns the archived folder.
func (pm Book) CancelFile(ctx context.Context, path string, check func(current []byte) error) (string, error) {
	// Locked before the first read: a version compared with bytes read
	// unlocked can be stale by the time of the move.
	unlock, err := pm.s.Lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	e, err := pm.s.Load(path)
	if err != nil {
		return "", err
	}
	if e.Archived || e.Kind != memory.KindIntention {
		return "", invalid("%s is not an open intention", pm.s.Rel(e.Path))
	}
	if check != nil {
		if err := check(e.Raw()); err != nil {
			return "", err
		}
	}
	return pm.archiveLocked(e, ClosedCancelled, check)
}

func (pm Book) closeReport(ctx context.Context, id string, reason string) (*Intention, error) {
	id = strings.TrimSpace(id)
	if !ValidID(id) {
		return nil, invalid("intention id %q must look like pi-YYYYMMDD-NNN", id)
	}
	unlock, err := pm.s.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	e, err := pm.s.Load(filepath.Join(pm.dir, id, "INTENT.md"))
	if err != nil {
		return nil, fmt.Errorf("intentions: %s: %w", id, err)
	}
	if _, err := pm.archiveLocked(e, reason, nil); err != nil {
		return nil, err
	}
	return intentionFromEntry(e), nil
}

// archiveLocked notes the close reason in the body, then moves the directory to
// intentions/archived/<id>. check, when given, compares a caller's version with the
// bytes the note is written over, again at each try of the compare-and-swap, so a
// hand edit landing after the caller's compare is not archived unseen.
func (pm Book) archiveLocked(e *memory.Entry, reason string, check func(current []byte) error) (string, error) {
	dir := filepath.Dir(e.Path)
	if filepath.Base(e.Path) != "INTENT.md" || filepath.Dir(dir) != pm.dir {
		return "", invalid("%s is not an intention file (intentions/<id>/INTENT.md)", pm.s.Rel(e.Path))
	}
	err := pm.s.RewriteLocked(e, func(e *memory.Entry) error {
		if check != nil {
			if err := check(e.Raw()); err != nil {
				return err
			}
		}
		body := e.Body
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		e.Body = body + "- closed: " + pm.s.Now().Format(dates.Layout) + " (" + reason + ")\n"
		return nil
	})
	if err != nil {
		return "", err
	}
	dest, err := pm.s.MoveToFreeName(dir, filepath.Join(pm.dir, "archived"), filepath.Base(dir), "")
	if err != nil {
		return "", err
	}
	e.Path = filepath.Join(dest, "INTENT.md")
	e.Archived = true
	return dest, nil
}

// ExpireIdle archives (auto_expired) intentions idle for more than 30 days as of now; returns their ids.
func (pm Book) ExpireIdle(ctx context.Context, now time.Time) ([]string, error) {
	unlock, err := pm.s.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return pm.expireIdleLocked(ctx, now)
}

func (pm Book) expireIdleLocked(ctx context.Context, now time.Time) ([]string, error) {
	entries, _, err := pm.s.List(ctx, memory.KindIntention)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		days, ok := idleDays(e, now)
		if !ok || days <= memory.IntentionIdleDays || e.Pinned() {
			continue
		}
		if _, err := pm.archiveLocked(e, ClosedAutoExpired, nil); err != nil {
			return ids, err
		}
		ids = append(ids, e.Name)
	}
	return ids, nil
}

// idleDays is how many whole days separate the later of last_used/created
// (in the header, or the body's `- created:`) from now.
func idleDays(e *memory.Entry, now time.Time) (int, bool) {
	last, seen := int32(0), false
	for _, v := range []string{e.Meta.Value(memory.KeyLastUsed), e.Meta.Value(memory.KeyCreated), e.BodyField("created")} {
		if d, ok := dayNumber(v); ok && (!seen || d > last) {
			last, seen = d, true
		}
	}
	if !seen {
		return 0, false
	}
	return int(dates.DayNumber(now) - last), true
}

// dayNumber reads the YYYY-MM-DD that v starts with as days since 1970-01-01.
func dayNumber(v string) (int32, bool) {
	v = strings.TrimSpace(v)
	if len(v) < len(dates.Layout) {
		return 0, false
	}
	t, err := time.Parse(dates.Layout, v[:len(dates.Layout)])
	if err != nil {
		return 0, false
	}
	return dates.DayNumber(t), true
}
