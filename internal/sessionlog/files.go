package sessionlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/somni-dev/somni/internal/filelock"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// Pending lists session-log/*.md not marked processed (headerless legacy logs included), oldest
// first, skipping files a live session is still writing.
func (l *Logs) Pending() ([]string, error) {
	c := l.liveCapture()
	if c != nil {
		c.settle() // logs rotated just before are listed, finalised
	}
	logs, err := l.logFilesIn(l.dir)
	if err != nil {
		return nil, err
	}
	var open map[string]bool
	if c != nil {
		open = c.openPaths()
	}
	var out []string
	for _, p := range logs {
		if !open[p] && l.logStatus(p) != StatusProcessed && !l.heldElsewhere(p) {
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
func (l *Logs) logFilesIn(dir string) ([]string, error) {
	des, err := l.fs.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("sessionlog: list session logs: %w", err)
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
func (l *Logs) logStatus(path string) string {
	head, err := l.fs.ReadHead(path, logHeadBytes)
	if err != nil {
		return ""
	}
	meta, ok := frontmatter.ParseHead(path, head)
	if !ok {
		return ""
	}
	return meta.Value("status")
}

// resolveLogPath accepts a bare file name, a path relative to the memory dir, or an absolute path, and
// refuses anything outside session-log/.
func (l *Logs) resolveLogPath(path string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", invalid("path is required")
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("sessionlog: %w: path contains NUL", memory.ErrUnsafeName)
	}
	if !filepath.IsAbs(p) {
		switch {
		case !strings.ContainsAny(p, `/\`):
			p = filepath.Join(l.dir, p)
		case strings.HasPrefix(filepath.ToSlash(p), "session-log/"):
			p = filepath.Join(l.st.MemoryDir(), p)
		case strings.HasPrefix(filepath.ToSlash(p), "memory/session-log/") && l.st.DataDir() != "":
			p = filepath.Join(l.st.DataDir(), p)
		default:
			p = filepath.Join(l.dir, p)
		}
	}
	p = filepath.Clean(p)
	if err := memory.CheckWithin(l.dir, p); err != nil || p == l.dir {
		return "", fmt.Errorf("sessionlog: %w: %s is not a session log", memory.ErrUnsafeName, path)
	}
	return p, nil
}

// MarkProcessed sets status: processed and moves the log to session-log/archived/, returning the new path.
// A log still held by a live session is finalised first; that session continues in a new file.
// Unparsable logs are moved without being rewritten.
func (l *Logs) MarkProcessed(path string) (string, error) {
	p, err := l.resolveLogPath(path)
	if err != nil {
		return "", err
	}
	if filepath.Dir(p) != l.dir {
		return "", invalid("%s is not a pending log (already archived?)", path)
	}
	if !isLogName(filepath.Base(p)) {
		// The same rule as Pending: temp files of atomic writes and non-logs are not the dreamer's.
		return "", invalid("%s is not a session log (logs are the .md files Pending lists)", path)
	}
	if c := l.liveCapture(); c != nil {
		if err := c.release(p); err != nil {
			return "", err
		}
	}
	unlock, err := l.st.Lock(context.Background())
	if err != nil {
		return "", err
	}
	defer unlock()
	hold, held := l.holdLog(p)
	if held {
		return "", invalid("%s is still being written by a live session in another process; it is archived once that session closes", l.st.Rel(p))
	}
	defer hold()
	data, ver, err := l.fs.ReadVersion(p, memory.MaxLogBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("sessionlog: mark processed %s: %w", path, memory.ErrNotFound)
		}
		return "", fmt.Errorf("sessionlog: mark processed %s: %w", path, err)
	}
	if doc, perr := frontmatter.Parse(p, data); perr == nil {
		if !doc.HasFrontMatter {
			doc.Meta.Set("session_id", strings.TrimSuffix(filepath.Base(p), ".md"))
		}
		doc.Meta.Set("status", StatusProcessed)
		out := doc.Render()
		if !doc.HasFrontMatter {
			out = frontmatter.Render(doc.Meta, doc.Body)
		}
		if _, err := l.replace(p, out, ver); err != nil {
			return "", err
		}
	} else {
		l.log.Warn("memory: session log unparsable, archived without rewriting", "file", p, "err", perr)
	}
	return l.st.MoveToFreeName(p, filepath.Join(l.dir, "archived"), strings.TrimSuffix(filepath.Base(p), ".md"), ".md")
}

// Files lists session logs (pending first-level, then archived when asked), sorted by name.
func (l *Logs) Files(ctx context.Context, includeArchived bool) ([]string, error) {
	dirs := []string{l.dir}
	if includeArchived {
		dirs = append(dirs, filepath.Join(l.dir, "archived"))
	}
	var out []string
	for _, d := range dirs {
		logs, err := l.logFilesIn(d)
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

// holdLog takes the log's writer lock until release runs, or reports the
// log held by another process's live session: by its lock, or by its live
// mark when that session closed it to bound descriptors. Archiving holds it
// while it rewrites and moves the log: the session reopens its log by name,
// and must not reopen the file being replaced, whose appends would land in
// a file no name reaches. A log that cannot be opened is not held (reading
// it reports why).
func (l *Logs) holdLog(path string) (release func(), held bool) {
	f, err := l.fs.OpenRead(path)
	if err != nil {
		return func() {}, false
	}
	if !filelock.TryLock(f) || l.liveMark(path) {
		_ = f.Close()
		return nil, true
	}
	return func() { _ = f.Close() }, false
}

// heldElsewhere reports whether another process's live session writer holds
// the log: such a log is neither pending nor archivable. Callers skip the
// logs this process's own writers hold before asking.
func (l *Logs) heldElsewhere(path string) bool {
	release, held := l.holdLog(path)
	if !held {
		release()
	}
	return held
}
