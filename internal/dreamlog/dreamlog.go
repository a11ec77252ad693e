// Package dreamlog owns memory/dream-log: the diary each dream writes as
// YYYY-MM-DD_dream_NNN.md (front-matter first, never overwritten), listed
// newest first for the next dream and for dream_status. It works over the
// memory store's boundary, lock and atomic redacted create (Store). Beside
// the diaries, the dreamer keeps a machine record of each run: what it
// created, updated and archived, with a unified diff, and what undoing
// each change needs (package browse undoes them).
//
// Files, by job:
//
//	dreamlog.go  the diaries: Write, List, Read
//	runs.go      the run records in dream-log/.runs/: WriteRun, Runs, Run; each change's Sum and before text, for an undo
//	diff.go      Unified: the bounded unified diff a run record carries
package dreamlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
)

// Store is what the diaries need of the memory store: its boundary and
// memory root, clock and write lock, the day's next free number and its
// atomic, redacted create. *memory.Store is one.
type Store interface {
	FS() *safefs.FS
	MemoryDir() string
	Now() time.Time
	Lock(ctx context.Context) (unlock func(), err error)
	NextDailyNumber(re *regexp.Regexp, day string, dirs ...string) int
	WriteNew(path string, data []byte) error
}

// Diaries is memory/dream-log: one diary per dream, never overwritten.
type Diaries struct {
	st  Store
	fs  *safefs.FS
	dir string
}

// New returns the dream diaries of st.
func New(st Store) *Diaries {
	return &Diaries{st: st, fs: st.FS(), dir: filepath.Join(st.MemoryDir(), "dream-log")}
}

// invalid is a refusal of bad input, wrapping memory.ErrInvalid as the store's refusals do.
func invalid(format string, args ...any) error {
	return fmt.Errorf("dreamlog: %w: %s", memory.ErrInvalid, fmt.Sprintf(format, args...))
}

var dreamLogRe = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})_dream_(\d{3,})\.md$`)

// Write stores a dream diary as dream-log/YYYY-MM-DD_dream_NNN.md and returns its path.
// content must start with front-matter; an existing diary is never overwritten.
func (d *Diaries) Write(content string) (string, error) {
	if !strings.HasPrefix(content, frontmatter.Delim+"\n") && !strings.HasPrefix(content, frontmatter.Delim+"\r\n") {
		return "", invalid("dream log must start with front-matter (a first line `---`)")
	}
	if _, err := frontmatter.Parse("dream log", []byte(content)); err != nil {
		return "", fmt.Errorf("dreamlog: %w: dream log front-matter: %v", memory.ErrInvalid, err)
	}
	unlock, err := d.st.Lock(context.Background())
	if err != nil {
		return "", err
	}
	defer unlock()
	day := d.st.Now().Format(dates.Layout)
	dir := d.dir
	for next := d.st.NextDailyNumber(dreamLogRe, day, dir); next < 100000; next++ {
		path := filepath.Join(dir, fmt.Sprintf("%s_dream_%03d.md", day, next))
		err := d.st.WriteNew(path, []byte(ensureTrailingNewline(content)))
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("dreamlog: no free dream log number for %s", day)
}

// List lists dream diaries, newest first.
func (d *Diaries) List() ([]string, error) {
	des, err := d.fs.ReadDir(d.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("dreamlog: list dream logs: %w", err)
	}
	var out []string
	for _, de := range des {
		if !de.IsDir() && dreamLogRe.MatchString(de.Name()) {
			out = append(out, filepath.Join(d.dir, de.Name()))
		}
	}
	sort.Slice(out, func(i, j int) bool { return dreamLogLess(out[j], out[i]) })
	return out, nil
}

// dreamLogLess orders by date then numerically by NNN (so _dream_1000 follows _dream_999).
func dreamLogLess(a, b string) bool {
	ma, mb := dreamLogRe.FindStringSubmatch(filepath.Base(a)), dreamLogRe.FindStringSubmatch(filepath.Base(b))
	if ma[1] != mb[1] {
		return ma[1] < mb[1]
	}
	na, _ := strconv.Atoi(ma[2])
	nb, _ := strconv.Atoi(mb[2])
	return na < nb
}

// Read returns a dream diary's text; path may be a bare file name or a path inside dream-log/.
func (d *Diaries) Read(path string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", invalid("path is required")
	}
	if !filepath.IsAbs(p) {
		if !strings.ContainsAny(p, `/\`) {
			p = filepath.Join(d.dir, p)
		} else {
			p = filepath.Join(d.st.MemoryDir(), p)
		}
	}
	if err := memory.CheckWithin(d.dir, p); err != nil {
		return "", fmt.Errorf("dreamlog: read dream log: %w", err)
	}
	data, err := d.fs.ReadFile(p, memory.MaxEntryBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("dreamlog: read dream log %s: %w", path, memory.ErrNotFound)
		}
		return "", fmt.Errorf("dreamlog: read dream log %s: %w", path, err)
	}
	return string(data), nil
}

func ensureTrailingNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
