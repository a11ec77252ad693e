package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/textseg"
)

// Session-log limits (compat).
const (
	// SessionLogMaxBytes rotates a log to a new file once it grows past 24 KiB.
	SessionLogMaxBytes = 24 << 10
	// MessageMaxChars caps one message; the rest is replaced by a truncation note.
	MessageMaxChars = 4000
	// ToolResultMaxChars caps a tool result summary, and a tool call's reason.
	ToolResultMaxChars = 300
	// LabelMaxChars caps the user id, chat type and speaker labels: short by nature,
	// so a runaway host cannot grow a log by megabytes per call through them.
	LabelMaxChars = 200
	// SessionIDMaxBytes bounds a host session id: it is written into every log header,
	// and hosts use UUID-sized ids.
	SessionIDMaxBytes = 256
)

// Log status values.
const (
	StatusPending   = "pending"
	StatusProcessed = "processed"
)

// logTimeLayout is the local ISO time (seconds, no zone) the compat writer uses.
const logTimeLayout = "2006-01-02T15:04:05"

var sessionLogNameRe = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})_(\d{3,})\.md$`)

// Capture writes live conversations to memory/session-log. It is safe for concurrent use; each session
// keeps its file open so an append is one write(2) — no data sits in user-space buffers, so a kill -9
// loses nothing that Append acknowledged.
type Capture struct {
	s        *Store
	mu       sync.Mutex
	sessions map[string]*sessionWriter
	// mine are the logs this process opened: once closed they are never
	// resumed (a close means the next message starts a new log, and a dream
	// may be archiving it), only logs of an earlier process are.
	mine map[string]bool
}

type sessionWriter struct {
	mu       sync.Mutex
	chatID   string
	userID   string
	chatType string
	path     string // current file ("" before the first write and after finalisation)
	f        *os.File
	size     int64
	count    int
	lastPath string // most recent file, returned by Close
	buf      []byte
	// closed is set by Close once the writer is finalised; an Append that finds it set starts a new
	// writer. The writer stays in the session map until then, so release (MarkLogProcessed) always
	// finds and waits for whoever holds a file.
	closed atomic.Bool
}

// Capture returns the store's session writer (one per store, so archiving a log can tell its writer).
func (s *Store) Capture() *Capture {
	s.capMu.Lock()
	defer s.capMu.Unlock()
	if s.capture == nil {
		s.capture = &Capture{s: s, sessions: map[string]*sessionWriter{}, mine: map[string]bool{}}
	}
	return s.capture
}

func (c *Capture) writer(sessionID, userID, chatType string) *sessionWriter {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.sessions[sessionID]
	if w == nil || w.closed.Load() {
		if strings.TrimSpace(userID) == "" {
			userID = DefaultUserID
		}
		w = &sessionWriter{chatID: sessionID, userID: userID, chatType: chatType}
		c.sessions[sessionID] = w
	}
	return w
}

// lockedWriter returns the session's open writer with its lock held, skipping one a concurrent Close
// has just finalised.
func (c *Capture) lockedWriter(sessionID, userID, chatType string) *sessionWriter {
	for {
		w := c.writer(sessionID, userID, chatType)
		w.mu.Lock()
		if !w.closed.Load() {
			return w
		}
		w.mu.Unlock()
	}
}

// checkSessionID refuses a missing session id or one no host would send.
func checkSessionID(id string) error {
	if strings.TrimSpace(id) == "" {
		return invalid("sessionId is required")
	}
	if len(id) > SessionIDMaxBytes {
		return invalid("sessionId is longer than %d bytes (%d)", SessionIDMaxBytes, len(id))
	}
	return nil
}

// label is a header or speaker label as written: redacted, one line, capped.
func label(s string) string { return oneLine(redactHead(s, LabelMaxChars), LabelMaxChars) }

// normalizeRole maps host role names onto the log's block tags.
func normalizeRole(role string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(role)) {
	case "user", "human":
		return "user", nil
	case "agent", "assistant", "ai":
		return "agent", nil
	}
	return "", invalid("role %q must be user or agent", role)
}

// Append records one message; blank text is skipped (written=false). speaker labels group-chat users.
func (c *Capture) Append(sessionID, role, text, userID, chatType, speaker string) (written bool, err error) {
	if err := checkSessionID(sessionID); err != nil {
		return false, err
	}
	tag, err := normalizeRole(role)
	if err != nil {
		return false, err
	}
	if strings.TrimSpace(text) == "" {
		return false, nil
	}
	if sp := cleanSpeaker(label(speaker)); sp != "" {
		tag += ":" + sp
	}
	w := c.lockedWriter(sessionID, userID, chatType)
	defer w.mu.Unlock()
	b := w.buf[:0]
	b = append(b, '[')
	b = append(b, tag...)
	b = append(b, "] "...)
	b = c.s.now().AppendFormat(b, logTimeLayout)
	b = append(b, '\n')
	b = appendMessage(b, capMessage(redactHead(text, MessageMaxChars), utf8.RuneCountInString(text)))
	b = append(b, "\n\n"...)
	w.buf = b
	if err := c.write(w, b); err != nil {
		return false, err
	}
	return true, nil
}

// Tool records a tool call summary: reason (omitted when empty), call, and a one-line result cut at 300 chars.
func (c *Capture) Tool(sessionID, call, result, reason string) error {
	if err := checkSessionID(sessionID); err != nil {
		return err
	}
	w := c.lockedWriter(sessionID, "", "")
	defer w.mu.Unlock()
	b := w.buf[:0]
	b = append(b, "[tool] "...)
	b = c.s.now().AppendFormat(b, logTimeLayout)
	b = append(b, '\n')
	if r := oneLine(redactHead(reason, ToolResultMaxChars), ToolResultMaxChars); r != "" {
		b = append(b, "reason: "...)
		b = append(b, r...)
		b = append(b, '\n')
	}
	b = append(b, "call: "...)
	b = append(b, oneLine(redactHead(call, MessageMaxChars), MessageMaxChars)...)
	b = append(b, "\nresult: "...)
	b = append(b, oneLine(redactHead(result, ToolResultMaxChars), ToolResultMaxChars)...)
	b = append(b, "\n\n"...)
	w.buf = b
	return c.write(w, b)
}

// write appends one block, opening or rotating the file first. Caller holds w.mu.
func (c *Capture) write(w *sessionWriter, block []byte) error {
	if w.f != nil {
		// The dreamer (or a person) may have moved the file away: never recreate a headerless log.
		// A stat by name of the file we hold open reads nothing through any
		// link, and a per-append Root resolution would cost a third of capture.
		if _, err := os.Lstat(w.path); err != nil {
			_ = w.f.Close()
			w.f, w.path = nil, ""
		} else if w.size > SessionLogMaxBytes {
			if _, err := c.finalize(w); err != nil {
				return err
			}
		}
	}
	if w.f == nil {
		if err := c.open(w); err != nil {
			return err
		}
	}
	n, err := w.f.Write(block)
	w.size += int64(n)
	if err != nil {
		return fmt.Errorf("memory: append to %s: %w", w.path, err)
	}
	w.count++
	return nil
}

// open creates the next free YYYY-MM-DD_NNN.md (pending and archived numbers both count) with its header.
func (c *Capture) open(w *sessionWriter) error {
	dir := c.s.sessionLogDir()
	if err := c.s.fs.MkdirAll(dir); err != nil {
		return fmt.Errorf("memory: create %s: %w", dir, err)
	}
	now := c.s.now()
	day := now.Format(dateLayout)
	if c.resume(w, day) {
		return nil
	}
	next := 1
	for _, d := range []string{dir, filepath.Join(dir, "archived")} {
		des, _ := c.s.fs.ReadDir(d)
		for _, de := range des {
			if m := sessionLogNameRe.FindStringSubmatch(de.Name()); m != nil && m[1] == day {
				if n, _ := strconv.Atoi(m[2]); n >= next {
					next = n + 1
				}
			}
		}
	}
	for ; ; next++ {
		id := fmt.Sprintf("%s_%03d", day, next)
		path := filepath.Join(dir, id+".md")
		if c.s.fs.Exists(filepath.Join(dir, "archived", id+".md")) {
			continue
		}
		m := NewFrontMatter()
		m.Set("session_id", id)
		m.Set("user", label(w.userID))
		m.Set("chat_id", oneLine(w.chatID, 0))
		if w.chatType != "" {
			m.Set("chat_type", label(w.chatType))
		}
		m.SetPlain("start_time", now.Format(logTimeLayout))
		header := RenderDocument(m, "")
		// The header is created whole or not at all (a full disk must not
		// leave an empty log behind), and locked before its name appears:
		// another process never sees this live log unlocked, so never takes
		// it for a pending one or a crash leftover.
		f, err := c.s.fs.CreateLocked(path, header, lockWriter)
		if errors.Is(err, fs.ErrExist) {
			continue // another session or process took it
		}
		if err != nil {
			return fmt.Errorf("memory: create session log %s: %w", path, err)
		}
		c.claim(path)
		w.f, w.path, w.size, w.count, w.lastPath = f, path, int64(len(header)), 0, path
		return nil
	}
}

// finalize closes the current file and records end_time, message_count and status: pending. Caller holds w.mu.
func (c *Capture) finalize(w *sessionWriter) (string, error) {
	if w.f == nil {
		return "", nil
	}
	path, count := w.path, w.count
	err := w.f.Close()
	w.f, w.path, w.size, w.count = nil, "", 0, 0
	if err != nil {
		return path, fmt.Errorf("memory: close session log %s: %w", path, err)
	}
	data, ver, err := c.s.fs.ReadVersion(path, MaxLogBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil // archived under us: nothing to finalise
		}
		return path, fmt.Errorf("memory: finalise %s: %w", path, err)
	}
	doc, err := ParseDocument(path, data)
	if err != nil {
		c.s.log.Warn("memory: session log header unreadable, left as is", "file", path, "err", err)
		return path, nil
	}
	doc.Meta.SetPlain("end_time", c.s.now().Format(logTimeLayout))
	doc.Meta.Set("message_count", strconv.Itoa(count))
	doc.Meta.Set("status", StatusPending)
	if _, err := c.s.replace(path, doc.Render(), ver); err != nil {
		return path, err
	}
	return path, nil
}

// Close finalises a session's log and forgets the session; it returns the last log path, "" when unknown.
func (c *Capture) Close(sessionID string) (string, error) {
	c.mu.Lock()
	w := c.sessions[sessionID]
	c.mu.Unlock()
	if w == nil {
		return "", nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed.Load() {
		return "", nil // a concurrent Close finalised it
	}
	// Finalise while still in the map: a MarkLogProcessed that snapshots the writers now waits for this
	// instead of archiving the file under us (the finalise would then recreate it as a pending log).
	_, err := c.finalize(w)
	w.closed.Store(true)
	c.mu.Lock()
	if c.sessions[sessionID] == w {
		delete(c.sessions, sessionID)
	}
	c.mu.Unlock()
	if err != nil {
		return "", err
	}
	if w.lastPath != "" {
		if !c.s.fs.Exists(w.lastPath) {
			// Already archived by a dream: report where it went.
			arch := filepath.Join(c.s.sessionLogDir(), "archived", filepath.Base(w.lastPath))
			if c.s.fs.Exists(arch) {
				return arch, nil
			}
		}
	}
	return w.lastPath, nil
}

// CloseAll finalises every open session and returns how many had a log.
func (c *Capture) CloseAll() int {
	c.mu.Lock()
	ids := make([]string, 0, len(c.sessions))
	for id := range c.sessions {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	n := 0
	for _, id := range ids {
		p, err := c.Close(id)
		if err != nil {
			c.s.log.Error("memory: close session log", "session", id, "err", err)
		}
		if p != "" {
			n++
		}
	}
	return n
}

// PendingLogs lists session logs waiting for a dream, excluding files still being written.
func (c *Capture) PendingLogs() ([]string, error) { return c.s.PendingLogs() }

// openPaths returns the files currently held open by live sessions.
func (c *Capture) openPaths() map[string]bool {
	c.mu.Lock()
	ws := make([]*sessionWriter, 0, len(c.sessions))
	for _, w := range c.sessions {
		ws = append(ws, w)
	}
	c.mu.Unlock()
	out := map[string]bool{}
	for _, w := range ws {
		w.mu.Lock()
		if w.path != "" {
			out[w.path] = true
		}
		w.mu.Unlock()
	}
	return out
}

// release finalises the writer holding path (if any) so the file can be archived; the session continues
// in a fresh file on its next message.
func (c *Capture) release(path string) error {
	c.mu.Lock()
	ws := make([]*sessionWriter, 0, len(c.sessions))
	for _, w := range c.sessions {
		ws = append(ws, w)
	}
	c.mu.Unlock()
	for _, w := range ws {
		w.mu.Lock()
		var err error
		if w.path == path {
			_, err = c.finalize(w)
		}
		w.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) liveCapture() *Capture {
	s.capMu.Lock()
	defer s.capMu.Unlock()
	return s.capture
}

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
	buf, err := s.fs.ReadHead(path, logHeadBytes)
	if err != nil {
		return ""
	}
	head := string(buf)
	if !strings.HasPrefix(head, "---") {
		return ""
	}
	for _, line := range strings.Split(head, "\n")[1:] {
		if strings.TrimSpace(line) == "---" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "status" {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
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

// LogBlock is one block of a session log.
type LogBlock struct {
	Role    string // user | agent | tool
	Speaker string // group-chat speaker from [user:<speaker>]
	Time    string // local ISO time from the header line
	Text    string // message text (user/agent); for tool blocks the raw block text
	Reason  string // tool blocks only
	Call    string
	Result  string
	Line    int // 1-based line of the header in the file
}

// SessionLog is a parsed session-log file.
type SessionLog struct {
	Path     string
	Meta     *FrontMatter
	Blocks   []LogBlock
	Archived bool
	// Raw is the file's bytes as read (at most MaxLogBytes).
	Raw []byte
}

// ChatID returns the host session id the log belongs to.
func (l *SessionLog) ChatID() string { return l.Meta.Value("chat_id") }

// Status returns the log status ("" for logs still open or written by old versions).
func (l *SessionLog) Status() string { return l.Meta.Value("status") }

// blockHeaderRe matches only real block headers: a known role, optional speaker, and an ISO time.
var blockHeaderRe = regexp.MustCompile(`^\[(user|agent|tool)(?::([^\]\n]*))?\] (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)\s*$`)

// ParseSessionLog parses a log leniently: a broken header leaves Meta empty and the whole text as body.
// Only a known header at the start of a block starts a new block, so a message beginning with
// `[x] y` stays inside its block.
func ParseSessionLog(path string, data []byte) *SessionLog {
	l := &SessionLog{Path: path, Meta: NewFrontMatter(), Raw: data}
	body := string(data)
	lineOffset := 0
	if doc, err := ParseDocument(path, data); err == nil {
		l.Meta = doc.Meta
		lineOffset = strings.Count(body[:len(body)-len(doc.Body)], "\n")
		body = doc.Body
	}
	lines := strings.Split(body, "\n")
	var cur *LogBlock
	var text []string
	flush := func() {
		if cur == nil {
			return
		}
		for len(text) > 0 && strings.TrimSpace(text[len(text)-1]) == "" {
			text = text[:len(text)-1]
		}
		cur.Text = strings.Join(text, "\n")
		if cur.Role == "tool" {
			for _, t := range text {
				switch {
				case strings.HasPrefix(t, "reason: "):
					cur.Reason = t[len("reason: "):]
				case strings.HasPrefix(t, "call: "):
					cur.Call = t[len("call: "):]
				case strings.HasPrefix(t, "result: "):
					cur.Result = t[len("result: "):]
				}
			}
		}
		l.Blocks = append(l.Blocks, *cur)
		cur, text = nil, nil
	}
	prevBlank := true
	for i, line := range lines {
		if prevBlank {
			if m := blockHeaderRe.FindStringSubmatch(strings.TrimRight(line, "\r")); m != nil {
				flush()
				cur = &LogBlock{Role: m[1], Speaker: m[2], Time: m[3], Line: lineOffset + i + 1}
				prevBlank = false
				continue
			}
		}
		if cur != nil {
			text = append(text, strings.TrimRight(line, "\r"))
		}
		prevBlank = strings.TrimSpace(line) == ""
	}
	flush()
	return l
}

// ReadSessionLog reads and parses a log inside session-log/ (pending or archived).
func (s *Store) ReadSessionLog(path string) (*SessionLog, error) {
	p, err := s.resolveLogPath(path)
	if err != nil {
		return nil, err
	}
	data, err := s.fs.ReadFile(p, MaxLogBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// The dreamer may name a log that has just been archived.
			alt := filepath.Join(s.sessionLogDir(), "archived", filepath.Base(p))
			if data2, err2 := s.fs.ReadFile(alt, MaxLogBytes); err2 == nil {
				l := ParseSessionLog(alt, data2)
				l.Archived = true
				return l, nil
			}
			return nil, fmt.Errorf("memory: read session log %s: %w", path, ErrNotFound)
		}
		return nil, fmt.Errorf("memory: read session log %s: %w", path, err)
	}
	l := ParseSessionLog(p, data)
	l.Archived = filepath.Dir(p) != s.sessionLogDir()
	return l, nil
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

func cleanSpeaker(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == ']' || r == '[' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// redactMargin is how far past a field's cut redaction still looks, so a
// secret that straddles the cut is seen whole (the longest formats in the
// secret corpus are private key blocks of ~3 KB).
const redactMargin = 4096

// redactHead redacts the part of text a field keeps (limit runes) and a
// margin past it: a 10 MB paste costs a scan of a few KiB, not of 10 MB.
func redactHead(text string, limit int) string {
	head, _ := textseg.Prefix(text, limit+redactMargin)
	return Redact(head)
}

// capMessage keeps the first 4000 characters and notes how long the original (n characters) was.
func capMessage(text string, n int) string {
	head, cut := textseg.Prefix(text, MessageMaxChars)
	if !cut && n <= MessageMaxChars {
		return text
	}
	return head + "\n...(truncated, original " + strconv.Itoa(n) + " chars)"
}

// appendMessage writes text, indenting any line that would read as a block header by one space.
func appendMessage(b []byte, text string) []byte {
	text = strings.TrimRight(text, "\n")
	if !strings.Contains(text, "\n[") && !strings.HasPrefix(text, "[") {
		return append(b, text...)
	}
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b = append(b, '\n')
		}
		if blockHeaderRe.MatchString(line) {
			b = append(b, ' ')
		}
		b = append(b, line...)
	}
	return b
}

// oneLine trims, turns newlines into ` ⏎ ` and cuts at limit characters (0 = no limit).
func oneLine(s string, limit int) string {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "\r\n") {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", " ⏎ ")
	}
	if limit > 0 && utf8.RuneCountInString(s) > limit {
		r := []rune(s)
		s = string(r[:limit]) + "...(truncated)"
	}
	return s
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

// resume continues a session in the log it was writing before this process
// started (a restarted sidecar, the host reconnecting): today's newest log of
// the same chat and user that is not processed, not held by a live writer and
// has room. One conversation stays one log instead of being split at every
// restart. Caller holds w.mu.
func (c *Capture) resume(w *sessionWriter, day string) bool {
	if w.lastPath != "" {
		return false // this session already wrote (and closed) one here: rotation, not a restart
	}
	logs, err := c.s.logFilesIn(c.s.sessionLogDir())
	if err != nil {
		return false
	}
	for i := len(logs) - 1; i >= 0; i-- {
		p := logs[i]
		m := sessionLogNameRe.FindStringSubmatch(filepath.Base(p))
		if m == nil || m[1] != day || c.isMine(p) {
			continue
		}
		head, err := c.s.fs.ReadHead(p, logHeadBytes)
		if err != nil {
			continue
		}
		doc, err := ParseDocument(p, head[:max(0, headerEnd(head))])
		if err != nil || !doc.HasFrontMatter || doc.Meta.Value("chat_id") != oneLine(w.chatID, 0) ||
			doc.Meta.Value("user") != label(w.userID) || doc.Meta.Value("status") == StatusProcessed {
			continue
		}
		f, err := c.s.fs.OpenAppend(p, false)
		if err != nil {
			continue
		}
		info, err := f.Stat()
		if err != nil || info.Size() > SessionLogMaxBytes || !tryLock(f) {
			_ = f.Close()
			continue
		}
		if !c.claim(p) {
			_ = f.Close()
			continue
		}
		count, _ := strconv.Atoi(doc.Meta.Value("message_count"))
		w.f, w.path, w.size, w.count, w.lastPath = f, p, info.Size(), count, p
		c.s.log.Info("memory: session continues in its log", "session", w.chatID, "file", c.s.Rel(p))
		return true
	}
	return false
}

// claim records p as opened by this process; false if it already was.
func (c *Capture) claim(p string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mine[p] {
		return false
	}
	c.mine[p] = true
	return true
}

func (c *Capture) isMine(p string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mine[p]
}
