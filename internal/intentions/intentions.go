package intentions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/somni-dev/somni/internal/memory"
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
	Entry    *memory.Entry
}

// Input is what add_intention receives.
type Input struct {
	What     string
	Due      string // YYYY-MM-DD, optional
	Cue      string // comma-separated cues, optional
	Priority string // high|mid|low, default mid
	Source   string
}

// Book is a store's prospective memory: the open intentions under
// memory/intentions/ and the closed ones under intentions/archived/. It reads and
// writes through the store's boundary, lock and clock.
type Book struct {
	s   *memory.Store
	dir string // memory/intentions
}

// Of returns the intentions of st.
func Of(st *memory.Store) Book { return Book{s: st, dir: filepath.Join(st.MemoryDir(), "intentions")} }

// invalid is a refusal of bad input, wrapping memory.ErrInvalid as the store's refusals do.
func invalid(format string, args ...any) error {
	return fmt.Errorf("intentions: %w: %s", memory.ErrInvalid, fmt.Sprintf(format, args...))
}

// Close reasons written to `- closed:`.
const (
	ClosedCompleted   = "completed"
	ClosedCancelled   = "cancelled"
	ClosedAutoExpired = "auto_expired"
)

var intentionIDRe = regexp.MustCompile(`^pi-(\d{8})-(\d{3,})$`)

// ValidID reports whether id has the pi-YYYYMMDD-NNN shape (and so is safe as a directory name).
func ValidID(id string) bool { return intentionIDRe.MatchString(id) }

func intentionFromEntry(e *memory.Entry) *Intention {
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
		created = e.Meta.Value(memory.KeyCreated)
	}
	return &Intention{ID: e.Name, What: e.Description(), Due: e.BodyField("due"), Cues: cues, Priority: pr,
		Created: created, Source: e.BodyField("source"), Closed: e.BodyField("closed"), Entry: e}
}

// List lists open intentions sorted by due date (undated last), then id.
func (pm Book) List(ctx context.Context) ([]*Intention, []memory.Problem, error) {
	entries, problems, err := pm.s.List(ctx, memory.KindIntention)
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
func (pm Book) Archived(ctx context.Context) ([]*Intention, error) {
	dir := filepath.Join(pm.dir, "archived")
	des, err := pm.s.FS().ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("intentions: list archived: %w", err)
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
