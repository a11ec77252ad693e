package intentions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/memory"
)

// Add stores a new intention under a fresh id pi-YYYYMMDD-NNN; ids are never reused, archived
// ones included.
func (pm Book) Add(ctx context.Context, in Input) (*Intention, error) {
	what, err := memory.CheckDescription(in.What)
	if err != nil {
		return nil, fmt.Errorf("%w (the intention's `what`)", err)
	}
	due := strings.TrimSpace(in.Due)
	if due != "" {
		if _, err := time.Parse(dates.Layout, due); err != nil {
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

	unlock, err := pm.s.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	now := pm.s.Now()
	day := now.Format(dates.CompactLayout)
	var b strings.Builder
	if due != "" {
		b.WriteString("- due: " + due + "\n")
	}
	if cue != "" {
		b.WriteString("- cue: " + cue + "\n")
	}
	b.WriteString("- priority: " + pr + "\n")
	b.WriteString("- created: " + now.Format(dates.Layout) + "\n")
	if source != "" {
		b.WriteString("- source: " + source + "\n")
	}
	// Another process may take the same number between our listing and our
	// create: the create refuses an existing file, and we take the next one.
	for next := pm.s.NextDailyNumber(intentionIDRe, day, pm.dir, filepath.Join(pm.dir, "archived")); next < 1000000; next++ {
		id := fmt.Sprintf("pi-%s-%03d", day, next)
		if pm.s.FS().Exists(filepath.Join(pm.dir, "archived", id)) {
			continue
		}
		path := filepath.Join(pm.dir, id, "INTENT.md")
		e := pm.s.NewEntry(memory.Draft{Kind: memory.KindIntention, Path: path, Name: id, Description: what,
			Type: "intention", Score: memory.BirthIntention, Body: b.String()})
		err := pm.s.Save(e)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("intentions: add %s: %w", id, err)
		}
		return intentionFromEntry(e), nil
	}
	return nil, fmt.Errorf("intentions: add: no free id for %s", day)
}
