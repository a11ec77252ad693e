package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// PendingLogs lists session-log/*.md not marked processed (headerless legacy logs included), oldest
// first, skipping files a live session is still writing.
func (s *Store) PendingLogs() ([]string, error) {
	logs, err := s.logFilesIn(s.sessionLogDir())
	if err != nil {
		return nil, err
	}
	var open map[string]bool
	if c := s.liveCapture(); c != nil {
		open = c.openPaths()
	}
	var out []string
	for _, p := range logs {
		if !open[p] && s.logStatus(p) != StatusProcessed && !s.heldElsewhere(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// isLogName reports whether a file name in session-log/ is a log: a visible
// .md file (temp files of atomic writes are hidden, notes are not .md).
func isLogName(n string) bool { return !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".md") }

// logFilesIn lists the log files directly in dir, sorted; a missing dir has none.
// Only regular files count: a link or a FIFO named *.md is doctor's to report.
func (s *Store) logFilesIn(dir string) ([]string, error) {
	des, err := s.fs.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("memory: list session logs: %w", err)
	}
	var out []string
	for _, de := range des {
		if de.Type().IsRegular() && isLogName(de.Name()) {
			out = append(out, filepath.Join(dir, de.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// logStatus reads just the header of a log for its status ("" when none or unreadable).
func (s *Store) logStatus(path string) string {
	head, err := s.fs.ReadHead(path, logHeadBytes)
	if err != nil {
		return ""
	}
	meta, ok := parseHead(path, head)
	if !ok {
		return ""
	}
	return meta.Value("status")
}

// resolveLogPath accepts a bare file name, a path relative to the memory dir, or an absolute path, and
// refuses anything outside session-log/.
func (s *Store) resolveLogPath(path string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", invalid("path is required")
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("memory: %w: path contains NUL", ErrUnsafeName)
	}
	if !filepath.IsAbs(p) {
		switch {
		case !strings.ContainsAny(p, `/\`):
			p = filepath.Join(s.sessionLogDir(), p)
		case strings.HasPrefix(filepath.ToSlash(p), "session-log/"):
			p = filepath.Join(s.memDir, p)
		case strings.HasPrefix(filepath.ToSlash(p), "memory/session-log/") && s.dataDir != "":
			p = filepath.Join(s.dataDir, p)
		default:
			p = filepath.Join(s.sessionLogDir(), p)
		}
	}
	p = filepath.Clean(p)
	if err := checkWithin(s.sessionLogDir(), p); err != nil || p == s.sessionLogDir() {
		return "", fmt.Errorf("memory: %w: %s is not a session log", ErrUnsafeName, path)
	}
	return p, nil
}

// MarkLogProcessed sets status: processed and moves the log to session-log/archived/, returning the new path.
// A log still held by a live session is finalised first; that session continues in a new file.
// Unparsable logs are moved without being rewritten.
func (s *Store) MarkLogProcessed(path string) (string, error) {
	p, err := s.resolveLogPath(path)
	if err != nil {
		return "", err
	}
	if filepath.Dir(p) != s.sessionLogDir() {
		return "", invalid("%s is not a pending log (already archived?)", path)
	}
	if !isLogName(filepath.Base(p)) {
		// The same rule as PendingLogs: temp files of atomic writes and non-logs are not the dreamer's.
		return "", invalid("%s is not a session log (logs are the .md files PendingLogs lists)", path)
	}
	if c := s.liveCapture(); c != nil {
		if err := c.release(p); err != nil {
			return "", err
		}
	}
	unlock, err := s.mustLock()
	if err != nil {
		return "", err
	}
	defer unlock()
	if s.heldElsewhere(p) {
		return "", invalid("%s is still being written by a live session in another process; it is archived once that session closes", s.Rel(p))
	}
	data, ver, err := s.fs.ReadVersion(p, MaxLogBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("memory: mark processed %s: %w", path, ErrNotFound)
		}
		return "", fmt.Errorf("memory: mark processed %s: %w", path, err)
	}
	if doc, perr := ParseDocument(p, data); perr == nil {
		if !doc.HasFrontMatter {
			doc.Meta.Set("session_id", strings.TrimSuffix(filepath.Base(p), ".md"))
		}
		doc.Meta.Set("status", StatusProcessed)
		out := doc.Render()
		if !doc.HasFrontMatter {
			out = RenderDocument(doc.Meta, doc.Body)
		}
		if _, err := s.replace(p, out, ver); err != nil {
			return "", err
		}
	} else {
		s.log.Warn("memory: session log unparsable, archived without rewriting", "file", p, "err", perr)
	}
	return s.moveToFreeName(p, filepath.Join(s.sessionLogDir(), "archived"), strings.TrimSuffix(filepath.Base(p), ".md"), ".md")
}

// SessionLogFiles lists session logs (pending first-level, then archived when asked), sorted by name.
func (s *Store) SessionLogFiles(ctx context.Context, includeArchived bool) ([]string, error) {
	dirs := []string{s.sessionLogDir()}
	if includeArchived {
		dirs = append(dirs, filepath.Join(s.sessionLogDir(), "archived"))
	}
	var out []string
	for _, d := range dirs {
		logs, err := s.logFilesIn(d)
		if err != nil {
			return nil, err
		}
		out = append(out, logs...)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return filepath.Base(out[i]) < filepath.Base(out[j]) })
	return out, nil
}

// heldElsewhere reports whether another process's live session writer holds
// the log (its advisory lock): such a log is neither pending nor archivable.
// Callers skip the logs this process's own writers hold before asking.
func (s *Store) heldElsewhere(path string) bool {
	f, err := s.fs.OpenRead(path)
	if err != nil {
		return false
	}
	defer f.Close() // closing releases the probe's own lock
	return !tryLock(f)
}
