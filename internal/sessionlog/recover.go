package sessionlog

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/somni-dev/somni/internal/filelock"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// RecoverCrashed finalises the session logs a killed process left open: a
// log with a header but no status, that no live writer holds. Its torn tail
// is cut back to the last complete block, then it gets end_time (its last
// write), message_count and status: pending, so the dreamer reads it like
// any closed log; one left without a block is removed. An append is one write(2), but the kernel may stop a
// write at a page boundary when SIGKILL arrives, so a log can end inside a
// block — even inside a UTF-8 character — that was never acknowledged.
// It returns the paths it finalised or removed; files it cannot parse are left alone.
func (c *Capture) RecoverCrashed() ([]string, error) {
	logs, err := c.l.logFilesIn(c.l.dir)
	if err != nil {
		return nil, err
	}
	open := c.openPaths()
	var done []string
	var errs []error
	for _, p := range logs {
		if open[p] || c.l.logStatus(p) != "" {
			continue
		}
		ok, err := c.recoverLog(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			done = append(done, p)
		}
	}
	c.clearStaleMarks(open)
	return done, errors.Join(errs...)
}

// clearStaleMarks removes the live marks a dead process left on logs it
// had closed to bound descriptors. The logs recovered above lost theirs
// already; these are on logs with a status (a resumed log is finalised
// from an earlier run) that recovery leaves alone. A stale mark misleads
// no one — it reads as stale — this only keeps the folder clean.
func (c *Capture) clearStaleMarks(open map[string]bool) {
	names, err := c.l.fs.ReadDirNames(filepath.Join(c.l.dir, liveDirName))
	if err != nil {
		return
	}
	for _, n := range names {
		p := filepath.Join(c.l.dir, n)
		if strings.HasPrefix(n, ownerPrefix) || !isLogName(n) || open[p] {
			continue
		}
		if release, held := c.l.holdLog(p); !held {
			release()
		}
	}
}

// recoverLog finalises one crashed log unless another process still writes
// it (it holds the log's lock) or its header cannot be read.
func (c *Capture) recoverLog(path string) (bool, error) {
	f, err := c.l.fs.OpenRead(path)
	if err != nil {
		return false, fmt.Errorf("sessionlog: recover %s: %w", path, err)
	}
	defer f.Close()
	if !filelock.TryLock(f) || c.l.liveMark(path) {
		return false, nil // a live writer in another process
	}
	info, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("sessionlog: recover %s: %w", path, err)
	}
	data, ver, err := c.l.fs.ReadVersion(path, memory.MaxLogBytes)
	if err != nil {
		return false, fmt.Errorf("sessionlog: recover %s: %w", path, err)
	}
	whole := cutTornTail(data)
	if isTornHeader(whole) {
		// Killed while writing the header: no message was ever written (the
		// header precedes them), so the log is rebuilt around what survived.
		whole = rebuildHeader(path, whole)
	}
	doc, err := frontmatter.Parse(path, whole)
	if err != nil || doc.Meta.Value("session_id") == "" {
		c.l.log.Warn("memory: crashed session log unreadable, left as is", "file", path, "err", err)
		return false, nil
	}
	blocks := Parse(path, whole).Blocks
	count := len(blocks)
	if count == 0 {
		// Nothing was said in it (a log made ahead for a rotation, or killed
		// before its first block): a dream has nothing to read there.
		if err := c.l.fs.Remove(path); err != nil {
			return false, fmt.Errorf("sessionlog: remove empty crashed log %s: %w", path, err)
		}
		c.l.log.Info("memory: removed an empty session log left open by a crash", "file", path)
		return true, nil
	}
	if first := blocks[0].Time; first > doc.Meta.Value("start_time") {
		doc.Meta.SetPlain("start_time", first) // made ahead of its first block
	}
	doc.Meta.SetPlain("end_time", info.ModTime().In(c.l.st.Now().Location()).Format(logTimeLayout))
	doc.Meta.Set("message_count", strconv.Itoa(count))
	doc.Meta.Set("status", StatusPending)
	if _, err := c.l.replace(path, doc.Render(), ver); err != nil {
		return false, err
	}
	c.l.log.Info("memory: finalised a session log left open by a crash", "file", path, "messages", count)
	return true, nil
}

// cutTornTail drops a block a kill cut short. Only a file that does not end
// with a newline is provably torn (our blocks end with a blank line, and every
// writer ends a line before it stops on purpose); it is cut back to the last
// blank line after the header, which also removes a cut UTF-8 character. A
// file ending in a whole line is kept as is: a writer whose blocks end with a
// single newline (an older sidecar's log) must not lose its last message.
func cutTornTail(data []byte) []byte {
	if bytes.HasSuffix(data, []byte("\n")) {
		return data
	}
	head := headerEnd(data)
	if head < 0 {
		return data
	}
	if i := bytes.LastIndex(data[head:], []byte("\n\n")); i >= 0 {
		return data[:head+i+2]
	}
	return data[:head]
}

// isTornHeader reports whether data is the start of a front-matter header
// that was never closed: empty, or "---" and key lines without the closing
// "---". A headerless legacy log does not start with "---" and is not one.
func isTornHeader(data []byte) bool {
	open := []byte(headerOpen)
	if len(data) < len(open) {
		return bytes.HasPrefix(open, data)
	}
	return bytes.HasPrefix(data, open) && headerEnd(data) < 0
}

// rebuildHeader closes a torn header: the whole key lines that survived,
// and the session id taken from the file name when its line was lost.
func rebuildHeader(path string, data []byte) []byte {
	m := frontmatter.New()
	lines := strings.Split(strings.TrimPrefix(string(data), headerOpen), "\n")
	for _, line := range lines[:len(lines)-1] { // the last piece has no newline: torn
		if k, v, ok := strings.Cut(line, ": "); ok && k != "" && !strings.ContainsAny(k, " \t") {
			m.SetPlain(k, v)
		}
	}
	if m.Value("session_id") == "" {
		m.Set("session_id", strings.TrimSuffix(filepath.Base(path), ".md"))
	}
	return frontmatter.Render(m, "")
}

// headerEnd is the offset just after the closing "---\n" of the front-matter,
// or -1 when there is none. It measures bytes of a file a kill may have torn,
// exactly as capture writes them, to cut there; reading a header is
// splitFrontMatter's job.
func headerEnd(data []byte) int {
	if !bytes.HasPrefix(data, []byte(headerOpen)) {
		return -1
	}
	i := bytes.Index(data[len(headerOpen):], []byte(headerClose))
	if i < 0 {
		return -1
	}
	return len(headerOpen) + i + len(headerClose)
}

// The header's delimiter lines exactly as capture writes them.
const (
	headerOpen  = frontmatter.Delim + "\n"
	headerClose = "\n" + frontmatter.Delim + "\n"
)
