package dreamlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A diary is what the model chose to say; a run record is what the dreamer
// itself saw change, one JSON file per dream in dream-log/.runs/, written
// once through the store's atomic, redacted create, so it survives restarts.
const (
	runsDir = ".runs"
	// MaxRunDiffBytes bounds one dream's diff: a dream writes a few dozen
	// entries of a few KiB; past the bound the diff says it was cut.
	MaxRunDiffBytes = 64 << 10
	// MaxRunPaths bounds each of a record's path lists (a decay may touch
	// every entry; the tab shows the first ones and the count).
	MaxRunPaths = 500
	// maxRunFileBytes bounds reading one record back: its diff, its path
	// lists and their JSON escaping.
	maxRunFileBytes = 4 * MaxRunDiffBytes
)

// Run is the machine record of one dream.
type Run struct {
	ID         string    `json:"id"`
	Path       string    `json:"path"` // the diary this dream wrote, relative to the data directory ("" when none)
	Trigger    string    `json:"trigger"`
	Started    time.Time `json:"started"`
	DurationMs int64     `json:"durationMs"`
	Tokens     int       `json:"tokens"`
	Status     string    `json:"status"`
	Created    []string  `json:"created"`
	Updated    []string  `json:"updated"`
	Archived   []string  `json:"archived"`
	Diff       string    `json:"diff"`
	// More counts paths left out of the lists past MaxRunPaths.
	More int `json:"more,omitempty"`
}

// RunID is the id of a run started at t: its time to the second, so ids sort as runs started.
func RunID(t time.Time) string { return t.Format("2006-01-02_150405") }

// WriteRun stores r as dream-log/.runs/<id>.json (the id made unique with
// -2, -3 … if taken) and returns the id used.
func (d *Diaries) WriteRun(r Run) (string, error) {
	base := r.ID
	for i := 1; i < 1000; i++ {
		if i > 1 {
			r.ID = fmt.Sprintf("%s-%d", base, i)
		}
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return "", fmt.Errorf("dreamlog: encode run %s: %w", r.ID, err)
		}
		err = d.st.WriteNew(filepath.Join(d.dir, runsDir, r.ID+".json"), append(data, '\n'))
		if err == nil {
			return r.ID, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("dreamlog: write run %s: %w", r.ID, err)
		}
	}
	return "", fmt.Errorf("dreamlog: no free run id for %s", base)
}

// Runs returns the newest limit run records, newest first; a record that
// cannot be read is skipped.
func (d *Diaries) Runs(limit int) ([]Run, error) {
	dir := filepath.Join(d.dir, runsDir)
	des, err := d.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Run{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dreamlog: list runs: %w", err)
	}
	var names []string
	for _, de := range des {
		if !de.IsDir() && strings.HasSuffix(de.Name(), ".json") {
			names = append(names, de.Name())
		}
	}
	// Ids start with the start time (RunID), so the newest sort last by name:
	// only the records asked for are read.
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	out := []Run{}
	for _, n := range names {
		if len(out) >= limit {
			break
		}
		data, err := d.fs.ReadFile(filepath.Join(dir, n), maxRunFileBytes)
		var r Run
		if err != nil || json.Unmarshal(data, &r) != nil {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}
