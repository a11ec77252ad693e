package intentions

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
)

// Prompt caps for intentions (compat).
const (
	CapDue      = 10
	CapUpcoming = 5
	CapUndated  = 5
	CapCued     = 3
	// CapLater bounds the one-line mention of intentions due after
	// the window: enough for the agent to know they exist, not a list.
	CapLater = 3
	// UpcomingDays is the monitoring window after today.
	UpcomingDays = 3
)

// Selection is what the prompt shows: each group already capped and ordered.
type Selection struct {
	Due      []*Intention // overdue or due today (≤10), earliest first
	Upcoming []*Intention // due in the next 1–3 days (≤5)
	Undated  []*Intention // no due date (≤5)
	Cued     []*Intention // cue matched the current message and not listed above (≤3, high>mid>low)
	// Later are the next ones due after the window and in no group above
	// (≤3, earliest first); LaterMore counts the rest of them.
	Later     []*Intention
	LaterMore int
	// CuedIDs marks every intention whose cue matched, including ones listed in other groups.
	CuedIDs map[string]bool
}

// Empty reports whether nothing is selected.
func (sel Selection) Empty() bool {
	return len(sel.Due)+len(sel.Upcoming)+len(sel.Undated)+len(sel.Cued)+len(sel.Later) == 0
}

// Select picks the intentions to inject into the prompt for today and the current message.
func (pm Book) Select(ctx context.Context, today time.Time, message string) (Selection, error) {
	all, _, err := pm.List(ctx)
	if err != nil {
		return Selection{}, err
	}
	return selectIntentions(all, today, message), nil
}

func selectIntentions(all []*Intention, today time.Time, message string) Selection {
	sel := Selection{CuedIDs: map[string]bool{}}
	t0 := dates.DayNumber(today)
	listed := map[string]bool{}
	var later []*Intention
	for _, it := range all { // all is sorted by due date, then id
		d, ok := dayNumber(it.Due)
		switch {
		case !ok:
			if len(sel.Undated) < CapUndated {
				sel.Undated = append(sel.Undated, it)
				listed[it.ID] = true
			}
		case d <= t0:
			if len(sel.Due) < CapDue {
				sel.Due = append(sel.Due, it)
				listed[it.ID] = true
			}
		case d-t0 <= UpcomingDays:
			if len(sel.Upcoming) < CapUpcoming {
				sel.Upcoming = append(sel.Upcoming, it)
				listed[it.ID] = true
			}
		default:
			later = append(later, it)
		}
	}
	sel.Cued = cuedIntentions(all, strings.ToLower(message), listed, sel.CuedIDs)
	for _, it := range sel.Cued {
		listed[it.ID] = true
	}
	sel.Later, sel.LaterMore = pickLater(later, listed)
	return sel
}

// cuedIntentions are those whose cue occurs in msg (all marked in ids),
// the unlisted ones returned ranked high>mid>low and capped.
func cuedIntentions(all []*Intention, msg string, listed, ids map[string]bool) []*Intention {
	if strings.TrimSpace(msg) == "" {
		return nil
	}
	var cued []*Intention
	for _, it := range all {
		for _, c := range it.Cues {
			if c = strings.ToLower(c); c != "" && strings.Contains(msg, c) {
				ids[it.ID] = true
				if !listed[it.ID] {
					cued = append(cued, it)
				}
				break
			}
		}
	}
	rank := map[string]int{"high": 0, "mid": 1, "low": 2}
	sort.SliceStable(cued, func(i, j int) bool { return rank[cued[i].Priority] < rank[cued[j].Priority] })
	if len(cued) > CapCued {
		cued = cued[:CapCued]
	}
	return cued
}

// pickLater keeps the first few later intentions no group shows (later is
// in due order) and counts the others.
func pickLater(later []*Intention, listed map[string]bool) ([]*Intention, int) {
	var out []*Intention
	more := 0
	for _, it := range later {
		switch {
		case listed[it.ID]:
		case len(out) < CapLater:
			out = append(out, it)
		default:
			more++
		}
	}
	return out, more
}
