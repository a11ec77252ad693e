package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
)

// Intention is one open or closed prospective memory (a to-do the agent should bring up).
type Intention struct {
	ID       string
	What     string
	Due      string // YYYY-MM-DD or ""
	Cues     []string
	Priority string // high|mid|low
	Created  string
	Source   string
	Closed   string // "<date> (<reason>)" for archived ones
	Entry    *Entry
}

// IntentionInput is what add_intention receives.
type IntentionInput struct {
	What     string
	Due      string // YYYY-MM-DD, optional
	Cue      string // comma-separated cues, optional
	Priority string // high|mid|low, default mid
	Source   string
}

// Intentions is the store's prospective memory: the open intentions under
// memory/intentions/ and the closed ones under intentions/archived/. It reads and
// writes through the store's boundary, lock and clock.
type Intentions struct{ s *Store }

// Intentions returns the store's intentions.
func (s *Store) Intentions() Intentions { return Intentions{s: s} }

// Close reasons written to `- closed:`.
const (
	ClosedCompleted   = "completed"
	ClosedCancelled   = "cancelled"
	ClosedAutoExpired = "auto_expired"
)

// Prompt caps for intentions (compat).
const (
	IntentionCapDue      = 10
	IntentionCapUpcoming = 5
	IntentionCapUndated  = 5
	IntentionCapCued     = 3
	// IntentionCapLater bounds the one-line mention of intentions due after
	// the window: enough for the agent to know they exist, not a list.
	IntentionCapLater = 3
	// IntentionUpcomingDays is the monitoring window after today.
	IntentionUpcomingDays = 3
)

var intentionIDRe = regexp.MustCompile(`^pi-(\d{8})-(\d{3,})$`)

// ValidIntentionID reports whether id has the pi-YYYYMMDD-NNN shape (and so is safe as a directory name).
func ValidIntentionID(id string) bool { return intentionIDRe.MatchString(id) }

func intentionFromEntry(e *Entry) *Intention {
	var cues []string
	for _, c := range strings.Split(strings.ReplaceAll(e.BodyField("cue"), "，", ","), ",") {
		if c = strings.TrimSpace(c); c != "" {
			cues = append(cues, c)
		}
	}
	pr := strings.ToLower(e.BodyField("priority"))
	if pr != "high" && pr != "low" {
		pr = "mid"
	}
	created := e.BodyField("created")
	if created == "" {
		created = e.Meta.Value(KeyCreated)
	}
	return &Intention{ID: e.Name, What: e.Description(), Due: e.BodyField("due"), Cues: cues, Priority: pr,
		Created: created, Source: e.BodyField("source"), Closed: e.BodyField("closed"), Entry: e}
}

// Add stores a new intention under a fresh id pi-YYYYMMDD-NNN; ids are never reused, archived
// ones included.
func (pm Intentions) Add(ctx context.Context, in IntentionInput) (*Intention, error) {
	what, err := checkDescription(in.What)
	if err != nil {
		return nil, fmt.Errorf("%w (the intention's `what`)", err)
	}
	due := strings.TrimSpace(in.Due)
	if due != "" {
		if _, err := time.Parse(dateLayout, due); err != nil {
			return nil, invalid("due %q is not a date YYYY-MM-DD", in.Due)
		}
	}
	pr := strings.ToLower(strings.TrimSpace(in.Priority))
	switch pr {
	case "":
		pr = "mid"
	case "medium":
		pr = "mid"
	case "high", "mid", "low":
	default:
		return nil, invalid("priority %q must be high, mid or low", in.Priority)
	}
	var cues []string
	for _, c := range strings.Split(strings.ReplaceAll(in.Cue, "，", ","), ",") {
		if c = strings.Join(strings.Fields(c), " "); c != "" {
			cues = append(cues, c)
		}
	}
	cue := strings.Join(cues, ", ")
	source := strings.Join(strings.Fields(in.Source), " ")

	unlock, err := pm.s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	now := pm.s.now()
	day := now.Format(dates.CompactLayout)
	var b strings.Builder
	if due != "" {
		b.WriteString("- due: " + due + "\n")
	}
	if cue != "" {
		b.WriteString("- cue: " + cue + "\n")
	}
	b.WriteString("- priority: " + pr + "\n")
	b.WriteString("- created: " + now.Format(dateLayout) + "\n")
	if source != "" {
		b.WriteString("- source: " + source + "\n")
	}
	// Another process may take the same number between our listing and our
	// create: the create refuses an existing file, and we take the next one.
	for next := pm.s.NextDailyNumber(intentionIDRe, day, pm.s.dirs.intentions, filepath.Join(pm.s.dirs.intentions, "archived")); next < 1000000; next++ {
		id := fmt.Sprintf("pi-%s-%03d", day, next)
		if pm.s.fs.Exists(filepath.Join(pm.s.dirs.intentions, "archived", id)) {
			continue
		}
		path := filepath.Join(pm.s.dirs.intentions, id, "INTENT.md")
		e := pm.s.newEntry(KindIntention, path, id, what, "intention", BirthIntention, b.String())
		err := pm.s.Save(e)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("memory: add intention %s: %w", id, err)
		}
		return intentionFromEntry(e), nil
	}
	return nil, fmt.Errorf("memory: add intention: no free id for %s", day)
}

// Complete archives an open intention as completed.
func (pm Intentions) Complete(ctx context.Context, id string) (*Intention, error) {
	return pm.closeReport(ctx, id, ClosedCompleted)
}

// Cancel archives an open intention as cancelled.
func (pm Intentions) Cancel(ctx context.Context, id string) (*Intention, error) {
	return pm.closeReport(ctx, id, ClosedCancelled)
}

func (pm Intentions) closeReport(ctx context.Context, id string, reason string) (*Intention, error) {
	id = strings.TrimSpace(id)
	if !ValidIntentionID(id) {
		return nil, invalid("intention id %q must look like pi-YYYYMMDD-NNN", id)
	}
	unlock, err := pm.s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	e, err := pm.s.Load(filepath.Join(pm.s.dirs.intentions, id, "INTENT.md"))
	if err != nil {
		return nil, fmt.Errorf("memory: intention %s: %w", id, err)
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
func (pm Intentions) archiveLocked(e *Entry, reason string, check func(current []byte) error) (string, error) {
	dir := filepath.Dir(e.Path)
	if filepath.Base(e.Path) != "INTENT.md" || filepath.Dir(dir) != pm.s.dirs.intentions {
		return "", invalid("%s is not an intention file (intentions/<id>/INTENT.md)", pm.s.Rel(e.Path))
	}
	err := pm.s.rewrite(e, func(e *Entry) error {
		if check != nil {
			if err := check(e.Raw()); err != nil {
				return err
			}
		}
		e.Body = ensureTrailingNewline(e.Body) + "- closed: " + pm.s.today() + " (" + reason + ")\n"
		return nil
	})
	if err != nil {
		return "", err
	}
	dest, err := pm.s.MoveToFreeName(dir, filepath.Join(pm.s.dirs.intentions, "archived"), filepath.Base(dir), "")
	if err != nil {
		return "", err
	}
	e.Path = filepath.Join(dest, "INTENT.md")
	e.Archived = true
	return dest, nil
}

// List lists open intentions sorted by due date (undated last), then id.
func (pm Intentions) List(ctx context.Context) ([]*Intention, []Problem, error) {
	entries, problems, err := pm.s.List(ctx, KindIntention)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*Intention, 0, len(entries))
	for _, e := range entries {
		out = append(out, intentionFromEntry(e))
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := out[i].Due, out[j].Due
		if di == "" {
			di = "9999-99-99"
		}
		if dj == "" {
			dj = "9999-99-99"
		}
		if di != dj {
			return di < dj
		}
		return out[i].ID < out[j].ID
	})
	return out, problems, nil
}

// Archived lists closed intentions (for history and doctor checks).
func (pm Intentions) Archived(ctx context.Context) ([]*Intention, error) {
	dir := filepath.Join(pm.s.dirs.intentions, "archived")
	des, err := pm.s.fs.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("memory: list archived intentions: %w", err)
	}
	var out []*Intention
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		e, err := pm.s.Load(filepath.Join(dir, de.Name(), "INTENT.md"))
		if err != nil {
			continue
		}
		out = append(out, intentionFromEntry(e))
	}
	return out, nil
}

// ExpireIdle archives (auto_expired) intentions idle for more than 30 days as of now; returns their ids.
func (pm Intentions) ExpireIdle(ctx context.Context, now time.Time) ([]string, error) {
	unlock, err := pm.s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return pm.expireIdleLocked(ctx, now)
}

func (pm Intentions) expireIdleLocked(ctx context.Context, now time.Time) ([]string, error) {
	entries, _, err := pm.s.List(ctx, KindIntention)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		days, ok := idleDays(e, now)
		if !ok || days <= IntentionIdleDays || e.Pinned() {
			continue
		}
		if _, err := pm.archiveLocked(e, ClosedAutoExpired, nil); err != nil {
			return ids, err
		}
		ids = append(ids, e.Name)
	}
	return ids, nil
}

// IntentionSelection is what the prompt shows: each group already capped and ordered.
type IntentionSelection struct {
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
func (sel IntentionSelection) Empty() bool {
	return len(sel.Due)+len(sel.Upcoming)+len(sel.Undated)+len(sel.Cued)+len(sel.Later) == 0
}

// Select picks the intentions to inject into the prompt for today and the current message.
func (pm Intentions) Select(ctx context.Context, today time.Time, message string) (IntentionSelection, error) {
	all, _, err := pm.List(ctx)
	if err != nil {
		return IntentionSelection{}, err
	}
	return selectIntentions(all, today, message), nil
}

func selectIntentions(all []*Intention, today time.Time, message string) IntentionSelection {
	sel := IntentionSelection{CuedIDs: map[string]bool{}}
	t0 := dayOf(today)
	listed := map[string]bool{}
	var later []*Intention
	for _, it := range all { // all is sorted by due date, then id
		d, ok := parseDate(it.Due)
		switch {
		case !ok:
			if len(sel.Undated) < IntentionCapUndated {
				sel.Undated = append(sel.Undated, it)
				listed[it.ID] = true
			}
		case !d.After(t0):
			if len(sel.Due) < IntentionCapDue {
				sel.Due = append(sel.Due, it)
				listed[it.ID] = true
			}
		case int(d.Sub(t0).Hours()/24) <= IntentionUpcomingDays:
			if len(sel.Upcoming) < IntentionCapUpcoming {
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
	if len(cued) > IntentionCapCued {
		cued = cued[:IntentionCapCued]
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
		case len(out) < IntentionCapLater:
			out = append(out, it)
		default:
			more++
		}
	}
	return out, more
}
