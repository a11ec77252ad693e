package sessionlog

import (
	"container/list"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/identity"
	"github.com/somni-dev/somni/internal/textcut"
)

// Capture writes live conversations to memory/session-log. It is safe for concurrent use; a session
// keeps its file open so an append is one write(2) — no data sits in user-space buffers, so a kill -9
// loses nothing that Append acknowledged. At most maxOpenLogs files stay open: the least recently used
// session's is closed and reopened in append mode on its next message.
type Capture struct {
	l        *Logs
	pool     *fdPool
	live     liveMarks
	resumes  resumeIndex
	mu       sync.Mutex
	sessions map[string]*sessionWriter
	// mine are the logs this process opened: once closed they are never
	// resumed (a close means the next message starts a new log, and a dream
	// may be archiving it), only logs of an earlier process are.
	mine map[string]bool
	// finalizing holds the logs a rotation handed to the background, each
	// with the channel closed once its header is final.
	finalizing map[string]chan struct{}
	nextNumber dayNumber // see firstFreeNumber
}

type sessionWriter struct {
	mu       sync.Mutex
	chatID   string
	userID   string
	chatType string
	path     string   // current file ("" before the first write and after finalisation)
	f        *os.File // nil while path is closed to bound descriptors (fdPool)
	elem     *list.Element
	// reopened is set while the current file is one reopened after it was
	// closed to bound descriptors: it makes no spare, which would cost a
	// create and a remove at every such close.
	reopened bool
	size     int64
	count    int
	lastPath string // most recent file, returned by Close
	buf      []byte
	// checkedAt is when path was last found by name (pathCheckEvery).
	checkedAt time.Time
	// spare is the successor made in the background once the log passed
	// spareAt; nil before that and once used or dropped.
	spare *spareLog
	// fresh is set while the current file is one this writer made (not
	// resumed): finalising records its first block's time (firstAt) as
	// start_time, which a spare's header, made ahead, does not know.
	fresh   bool
	firstAt string
	// closed is set by Close once the writer is finalised; an Append that finds it set starts a new
	// writer. The writer stays in the session map until then, so release (MarkProcessed) always
	// finds and waits for whoever holds a file.
	closed atomic.Bool
}

// Capture returns the logs' session writer (one per Logs, so archiving a log can tell its writer).
func (l *Logs) Capture() *Capture {
	l.capMu.Lock()
	defer l.capMu.Unlock()
	if l.capture == nil {
		l.capture = &Capture{l: l, pool: newFDPool(), sessions: map[string]*sessionWriter{}, mine: map[string]bool{}, finalizing: map[string]chan struct{}{}}
	}
	return l.capture
}

func (c *Capture) writer(sessionID, userID, chatType string) *sessionWriter {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.sessions[sessionID]
	if w == nil || w.closed.Load() {
		if strings.TrimSpace(userID) == "" {
			userID = identity.DefaultUserID
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
		c.unlock(w)
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
	// What a terminal or the dreaming model would act on but a reader
	// cannot see never reaches the log (and cannot split a secret from the
	// redaction that follows).
	text = textcut.Visible(text)
	if strings.TrimSpace(text) == "" {
		return false, nil
	}
	if sp := cleanSpeaker(label(speaker)); sp != "" {
		tag += ":" + sp
	}
	w := c.lockedWriter(sessionID, userID, chatType)
	defer c.unlock(w)
	b := w.buf[:0]
	b = append(b, '[')
	b = append(b, tag...)
	b = append(b, "] "...)
	at := len(b)
	b = c.l.st.Now().AppendFormat(b, logTimeLayout)
	stamp := len(b)
	b = append(b, '\n')
	b = appendMessage(b, capMessage(redactHead(text, MessageMaxChars), utf8.RuneCountInString(text)))
	b = append(b, "\n\n"...)
	w.buf = b
	if err := c.write(w, b, b[at:stamp]); err != nil {
		return false, err
	}
	return true, nil
}

// Tool records a tool call summary: reason (omitted when empty), call, and a one-line result cut at 300 chars.
func (c *Capture) Tool(sessionID, call, result, reason string) error {
	if err := checkSessionID(sessionID); err != nil {
		return err
	}
	call, result, reason = textcut.Visible(call), textcut.Visible(result), textcut.Visible(reason)
	w := c.lockedWriter(sessionID, "", "")
	defer c.unlock(w)
	b := w.buf[:0]
	b = append(b, "[tool] "...)
	at := len(b)
	b = c.l.st.Now().AppendFormat(b, logTimeLayout)
	stamp := len(b)
	b = append(b, '\n')
	if r := markedLine(redactHead(reason, ToolResultMaxChars), ToolResultMaxChars); r != "" {
		b = append(b, "reason: "...)
		b = append(b, r...)
		b = append(b, '\n')
	}
	b = append(b, "call: "...)
	b = append(b, markedLine(redactHead(call, MessageMaxChars), MessageMaxChars)...)
	b = append(b, "\nresult: "...)
	b = append(b, markedLine(redactHead(result, ToolResultMaxChars), ToolResultMaxChars)...)
	b = append(b, "\n\n"...)
	w.buf = b
	return c.write(w, b, b[at:stamp])
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
	defer c.unlock(w)
	if w.closed.Load() {
		return "", nil // a concurrent Close finalised it
	}
	// Finalise while still in the map: a MarkProcessed that snapshots the writers now waits for this
	// instead of archiving the file under us (the finalise would then recreate it as a pending log).
	_, err := c.finalize(w)
	c.dropSpare(w)
	w.closed.Store(true)
	c.mu.Lock()
	if c.sessions[sessionID] == w {
		delete(c.sessions, sessionID)
	}
	c.mu.Unlock()
	c.settle() // the logs its rotations handed off are final too
	if err != nil {
		return "", err
	}
	if w.lastPath != "" {
		if !c.l.fs.Exists(w.lastPath) {
			// Already archived by a dream: report where it went.
			arch := filepath.Join(c.l.dir, "archived", filepath.Base(w.lastPath))
			if c.l.fs.Exists(arch) {
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
			c.l.log.Error("memory: close session log", "session", id, "err", err)
		}
		if p != "" {
			n++
		}
	}
	return n
}

// Pending lists session logs waiting for a dream, excluding files still being written.
func (c *Capture) Pending() ([]string, error) { return c.l.Pending() }

// writers returns a snapshot of the session writers, taken under c.mu and
// used without it (each writer is then locked on its own).
func (c *Capture) writers() []*sessionWriter {
	c.mu.Lock()
	ws := make([]*sessionWriter, 0, len(c.sessions))
	for _, w := range c.sessions {
		ws = append(ws, w)
	}
	c.mu.Unlock()
	return ws
}

// openPaths returns the files live sessions hold: the logs being
// written, their spares, and rotated logs still being finalised.
func (c *Capture) openPaths() map[string]bool {
	out := map[string]bool{}
	for _, w := range c.writers() {
		w.mu.Lock()
		if w.path != "" {
			out[w.path] = true
		}
		if p := w.spare.name(); p != "" {
			out[p] = true
		}
		c.unlock(w)
	}
	// After the writers: a rotation enters its log here before it leaves
	// the writer, so a log moving between the two is seen in one of them.
	c.mu.Lock()
	for p := range c.finalizing {
		out[p] = true
	}
	c.mu.Unlock()
	return out
}

// release finalises the writer holding path (if any) so the file can be archived; the session continues
// in a fresh file on its next message.
func (c *Capture) release(path string) error {
	c.settle()
	for _, w := range c.writers() {
		w.mu.Lock()
		var err error
		if w.path == path {
			_, err = c.finalize(w)
		}
		c.unlock(w)
		if err != nil {
			return err
		}
	}
	return nil
}

func (l *Logs) liveCapture() *Capture {
	l.capMu.Lock()
	defer l.capMu.Unlock()
	return l.capture
}
