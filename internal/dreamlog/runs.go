package dreamlog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
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
	// lists, the undo texts and their JSON escaping.
	maxRunFileBytes = 4*MaxRunDiffBytes + 2*MaxRunUndoBytes
	// MaxRunUndoBytes bounds the texts a record keeps of the entries a dream
	// updated, as they were before it (Change.Text), so the dream can be
	// undone: past the bound an update is recorded without its text and
	// cannot be undone from the tab.
	MaxRunUndoBytes = 256 << 10
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
	// Changes is what undoing the dream needs of each entry it changed (the
	// first MaxRunPaths), one per entry however often the dream touched it.
	Changes []Change `json:"changes,omitempty"`
}

// What a dream did to one entry (Change.Op).
const (
	OpCreated  = "created"
	OpUpdated  = "updated"
	OpArchived = "archived"
)

// Change is one entry a dream changed, as its undo needs it: where the
// dream left it and the Sum of the bytes it left there, so an undo is a
// compare-and-swap (an entry edited since is never overwritten).
type Change struct {
	Op   string `json:"op"`   // OpCreated, OpUpdated, OpArchived
	Path string `json:"path"` // the entry, relative to the data directory (archived: where it was)
	// After is the Sum of the bytes the dream left at Path (created,
	// updated), or of the archived file at Archive (archived).
	After string `json:"after,omitempty"`
	// Text is an updated entry's text before the dream ("" when past MaxRunUndoBytes: Kept false).
	Text string `json:"text,omitempty"`
	Kept bool   `json:"kept,omitempty"` // Text holds the before text
	// Archive is where an archived entry went, relative to the data directory ("" when not found).
	Archive string `json:"archive,omitempty"`
}

// Sum names a file's bytes in a Change: a compare-and-swap compares it with the Sum of the bytes on disk now.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}

// Run returns the run record named id (as Runs lists it); a missing one wraps fs.ErrNotExist.
func (d *Diaries) Run(id string) (Run, error) {
	if !runIDRe.MatchString(id) {
		return Run{}, invalid("bad dream id %q", id)
	}
	data, err := d.fs.ReadFile(filepath.Join(d.dir, runsDir, id+".json"), maxRunFileBytes)
	if err != nil {
		return Run{}, fmt.Errorf("dreamlog: read run %s: %w", id, err)
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return Run{}, fmt.Errorf("dreamlog: run %s does not parse: %w", id, err)
	}
	return r, nil
}

// runIDRe is what RunID writes, with WriteRun's -2, -3 …
var runIDRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}_\d{6}(-\d{1,3})?$`)

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
