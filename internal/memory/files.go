package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/safefs"
)

// Size bounds on what the store reads into memory. A file past its bound is
// skipped with a warning (a Problem doctor lists), never read whole, never
// rewritten and never sent to a model.
const (
	// MaxEntryBytes bounds an entry, profile, intention or dream log file. The
	// largest the dreamer writes is a 64 KiB body plus its header; hand-written
	// notes an order of magnitude above that still fit.
	MaxEntryBytes = 1 << 20
	// MaxLogBytes bounds a session log: capture rotates at 24 KiB, so only a
	// file made by hand or by another tool comes near it.
	MaxLogBytes = 8 << 20
	// staleTempAge is when a temp file of an atomic write counts as a killed
	// write's leftover rather than another process's write in progress.
	staleTempAge = time.Hour
)

// Every read, write, rename and listing of the store goes through s.fs
// (package safefs): links never lead out of the memory and skill roots and
// writes never go through one.

// WriteNew creates path with data atomically; fs.ErrExist if it is there.
func (s *Store) WriteNew(path string, data []byte) error {
	if _, err := s.fs.Create(path, s.redactBeforeWrite(path, data)); err != nil {
		return fmt.Errorf("memory: create %s: %w", path, err)
	}
	return nil
}

// ReplaceLocked writes data over path only if it still holds the version read, and
// returns the version written (its bytes differ from data when redactBeforeWrite changed them).
// Caller holds the write lock (Lock): the identity files are written through it.
func (s *Store) ReplaceLocked(path string, data []byte, prev safefs.Version) (safefs.Version, error) {
	ver, err := s.fs.Replace(path, s.redactBeforeWrite(path, data), prev)
	if err != nil {
		return safefs.Version{}, fmt.Errorf("memory: write %s: %w", path, err)
	}
	return ver, nil
}

// ReplaceText writes raw over the store file at path, a hand edit: under the
// write lock check sees the bytes on disk (its error stops the write), and the
// write is the compare-and-swap on those bytes, redacted like every write.
func (ed Editor) ReplaceText(ctx context.Context, path string, raw []byte, check func(current []byte) error) (safefs.Version, error) {
	s := ed.s
	unlock, err := s.lock(ctx)
	if err != nil {
		return safefs.Version{}, err
	}
	defer unlock()
	if _, _, _, ok := s.dirs.classify(path); !ok {
		return safefs.Version{}, fmt.Errorf("memory: write %s: %w", path, errOutside(path))
	}
	cur, ver, err := s.fs.ReadVersion(path, MaxEntryBytes)
	if err != nil {
		return safefs.Version{}, fmt.Errorf("memory: write %s: %w", s.Rel(path), err)
	}
	if err := check(cur); err != nil {
		return safefs.Version{}, err
	}
	return s.ReplaceLocked(path, raw, ver)
}

// redactBeforeWrite is the last step before bytes reach disk: secrets are
// redacted here, for every writer, by frontmatter.Redact — a header's comment
// lines and values with their keys in view, the body as text — and a file
// without secrets is written as it came, byte for byte.
//
// Session logs are the exception: every block and header value in them was
// redacted when it was captured (capture is the only writer of their
// content), and rescanning a whole log at every rotation would cost capture
// a tenth of its speed.
func (s *Store) redactBeforeWrite(path string, data []byte) []byte {
	if kind, _, _, ok := s.dirs.classify(path); ok && kind == KindSessionLog {
		return data
	}
	out, redacted := frontmatter.Redact(path, data)
	if redacted {
		s.log.Warn("memory: redacted a secret before writing", "file", s.Rel(path))
	}
	return out
}

// MoveToFreeName renames src (a file or a folder) to destParent/<base><ext>,
// or <base>-2<ext>, -3 … when taken (by us or another process: the rename
// itself refuses a taken name), and returns where it went. Archiving never
// overwrites or deletes an earlier archived copy.
func (s *Store) MoveToFreeName(src, destParent, base, ext string) (string, error) {
	if err := s.fs.MkdirAll(destParent); err != nil {
		return "", fmt.Errorf("memory: create dir %s: %w", destParent, err)
	}
	for i := 1; i < 10000; i++ {
		name := base + ext
		if i > 1 {
			name = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		dest := filepath.Join(destParent, name)
		err := s.fs.Rename(src, dest)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("memory: move %s to %s: %w", src, dest, err)
		}
		return dest, nil
	}
	return "", fmt.Errorf("memory: no free archive name for %s in %s", base, destParent)
}

// Rel names path relative to the data directory (else the memory or skill
// root) for what people and models read: no home directory in hints or logs.
func (s *Store) Rel(path string) string {
	for _, root := range []string{s.dirs.data, s.dirs.memory, s.dirs.skills} {
		if root != "" && CheckWithin(root, path) == nil {
			r, _ := filepath.Rel(root, path)
			return filepath.ToSlash(r)
		}
	}
	return path
}

// CleanTemps removes the temp files killed writes left in the store (older
// than an hour, so another process's write in progress is never touched).
func (s *Store) CleanTemps() int {
	n, _ := s.SweepTemps(time.Time{})
	return n
}

// SweepTemps is CleanTemps after a sweep that began at last (zero: none
// known): a folder without subfolders whose names have not changed since
// an hour before last holds no temp file that sweep did not see, and is
// not listed. ok is false when a root could not be walked whole: the
// next sweep must not count on this one.
func (s *Store) SweepTemps(last time.Time) (n int, ok bool) {
	var since time.Time
	if !last.IsZero() {
		// a minute of slack for clocks and coarse timestamps
		since = last.Add(-staleTempAge - time.Minute)
	}
	ok = true
	for _, root := range []string{s.dirs.memory, s.dirs.skills} {
		m, err := s.fs.RemoveStaleTempsSince(root, staleTempAge, since)
		if err != nil {
			s.log.Warn("memory: cleaning temp files", "dir", root, "err", err)
			ok = false
		}
		n += m
	}
	if n > 0 {
		s.log.Info("memory: removed temp files of interrupted writes", "count", n)
	}
	return n, ok
}

// NextDailyNumber is one past the highest number the names in dirs carry for
// day, 1 when there are none; re's first group is the day and its second the
// number. Callers pass the archive folder too, so a number is never given
// twice, and still create the name exclusively: another process may take it
// between the listing and the create.
func (s *Store) NextDailyNumber(re *regexp.Regexp, day string, dirs ...string) int {
	next := 1
	for _, d := range dirs {
		names, _ := s.fs.ReadDirNames(d) // no stat per entry: asked at every session-log rotation
		for _, name := range names {
			if m := re.FindStringSubmatch(name); m != nil && m[1] == day {
				if n, err := strconv.Atoi(m[2]); err == nil && n >= next {
					next = n + 1
				}
			}
		}
	}
	return next
}
