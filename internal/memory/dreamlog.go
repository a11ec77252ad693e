package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/somni-dev/somni/internal/frontmatter"
)

var dreamLogRe = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})_dream_(\d{3,})\.md$`)

// WriteDreamLog stores a dream diary as dream-log/YYYY-MM-DD_dream_NNN.md and returns its path.
// content must start with front-matter; an existing diary is never overwritten.
func (s *Store) WriteDreamLog(content string) (string, error) {
	if !strings.HasPrefix(content, "---\n") && !strings.HasPrefix(content, "---\r\n") {
		return "", invalid("dream log must start with front-matter (a first line `---`)")
	}
	if _, err := frontmatter.Parse("dream log", []byte(content)); err != nil {
		return "", fmt.Errorf("memory: %w: dream log front-matter: %v", ErrInvalid, err)
	}
	unlock, err := s.mustLock()
	if err != nil {
		return "", err
	}
	defer unlock()
	day := s.today()
	dir := s.dreamLogDir()
	for next := s.NextDailyNumber(dreamLogRe, day, dir); next < 100000; next++ {
		path := filepath.Join(dir, fmt.Sprintf("%s_dream_%03d.md", day, next))
		err := s.writeNew(path, []byte(ensureTrailingNewline(content)))
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("memory: no free dream log number for %s", day)
}

// DreamLogs lists dream diaries, newest first.
func (s *Store) DreamLogs() ([]string, error) {
	des, err := s.fs.ReadDir(s.dreamLogDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("memory: list dream logs: %w", err)
	}
	var out []string
	for _, de := range des {
		if !de.IsDir() && dreamLogRe.MatchString(de.Name()) {
			out = append(out, filepath.Join(s.dreamLogDir(), de.Name()))
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

// ReadDreamLog returns a dream diary's text; path may be a bare file name or a path inside dream-log/.
func (s *Store) ReadDreamLog(path string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", invalid("path is required")
	}
	if !filepath.IsAbs(p) {
		if !strings.ContainsAny(p, `/\`) {
			p = filepath.Join(s.dreamLogDir(), p)
		} else {
			p = filepath.Join(s.memDir, p)
		}
	}
	if err := CheckWithin(s.dreamLogDir(), p); err != nil {
		return "", fmt.Errorf("memory: read dream log: %w", err)
	}
	data, err := s.fs.ReadFile(p, MaxEntryBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("memory: read dream log %s: %w", path, ErrNotFound)
		}
		return "", fmt.Errorf("memory: read dream log %s: %w", path, err)
	}
	return string(data), nil
}
