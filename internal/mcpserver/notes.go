package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/identity"
	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/sessionlog"
	"github.com/somni-dev/somni/internal/textcut"
	"github.com/somni-dev/somni/internal/toolspec"
)

// Note bounds. A note is one session-log message, and capture cuts messages
// at sessionlog.MessageMaxChars; remember refuses a longer note instead, so
// nothing the caller meant to keep is silently dropped.
const (
	MaxNoteChars = sessionlog.MessageMaxChars
	maxTagsChars = 200
	// maxClientChars bounds the client name in the log's chat id and speaker label.
	maxClientChars = 64
)

// notes writes remember's notes into one session log per client, through
// the sidecar's session.append and session.close: the same capture (and
// redaction) as DSH's conversations. The log
// stays open while notes keep coming and is closed noteIdle after the last
// one, at dream_now and at exit: only a closed log is pending for a dream.
type notes struct {
	call caller
	idle time.Duration
	log  *slog.Logger

	mu    sync.Mutex
	open  map[string]*time.Timer // session id → its idle close
	count map[string]int         // notes in the open log
}

// caller runs one method of the sidecar's table (Server.call).
type caller func(ctx context.Context, method string, params, out any) error

func newNotes(call caller, idle time.Duration, log *slog.Logger) *notes {
	return &notes{call: call, idle: idle, log: log, open: map[string]*time.Timer{}, count: map[string]int{}}
}

// noteMessage is session.append's params for one note.
type noteMessage struct {
	SessionID string `json:"sessionId"`
	Role      string `json:"role"`
	Text      string `json:"text"`
	UserID    string `json:"userId"`
	ChatType  string `json:"chatType"`
	Speaker   string `json:"speaker"`
}

// sessionFor is the chat id of a client's note log: "mcp-<client>", so a
// person reading session-log/ sees where the notes came from.
func sessionFor(client string) string {
	name := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, textcut.Clip(client, maxClientChars, ""))
	if name = strings.Trim(name, "-"); name == "" {
		name = "client"
	}
	return "mcp-" + name
}

// add appends one note to the client's log and (re)arms its idle close.
func (n *notes) add(client, text string) error {
	sid := sessionFor(client)
	speaker := textcut.Clip(textcut.OneLine(client), maxClientChars, "")
	if speaker == "" {
		speaker = "mcp client"
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	msg := noteMessage{SessionID: sid, Role: "user", Text: text, UserID: identity.DefaultUserID, ChatType: "mcp", Speaker: speaker}
	if err := n.call(context.Background(), "session.append", msg, nil); err != nil {
		return fmt.Errorf("remember: %w", err)
	}
	n.count[sid]++
	if t := n.open[sid]; t != nil {
		t.Reset(n.idle)
	} else {
		n.open[sid] = time.AfterFunc(n.idle, func() { n.close(sid) })
	}
	return nil
}

// waiting is how many notes sit in the client's still-open log.
func (n *notes) waiting(client string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.count[sessionFor(client)]
}

// close finalises a client's note log (status: pending).
func (n *notes) close(sid string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if t := n.open[sid]; t != nil {
		t.Stop()
	}
	delete(n.open, sid)
	delete(n.count, sid)
	if err := n.call(context.Background(), "session.close", map[string]string{"sessionId": sid}, nil); err != nil {
		n.log.Warn("closing a note log", "session", sid, "err", err)
	}
}

func (n *notes) closeClient(client string) { n.close(sessionFor(client)) }

func (n *notes) closeAll() {
	n.mu.Lock()
	ids := make([]string, 0, len(n.open))
	for sid := range n.open {
		ids = append(ids, sid)
	}
	n.mu.Unlock()
	for _, sid := range ids {
		n.close(sid)
	}
}

type rememberArgs struct {
	Text string `json:"text" desc:"the note, in a sentence or a few; no secrets"`
	Tags string `json:"tags" desc:"comma list of topic words" default:""`
}

func (s *Server) remember(_ context.Context, env clientEnv, a rememberArgs) (string, error) {
	text := strings.TrimSpace(a.Text)
	if n := utf8.RuneCountInString(text); n > MaxNoteChars {
		return "", &toolspec.ArgError{Arg: "text", Msg: fmt.Sprintf(
			"is %d characters; a note holds at most %d: keep the essentials, or split it into several notes", n, MaxNoteChars)}
	}
	tags := strings.Join(splitTags(a.Tags), ", ")
	if utf8.RuneCountInString(tags) > maxTagsChars {
		return "", &toolspec.ArgError{Arg: "tags", Msg: fmt.Sprintf("are longer than %d characters", maxTagsChars)}
	}
	// The dreamer reads this as a message from the client; the prefix says
	// it is a note meant to be kept, not chat.
	body := "Remember: " + text
	if tags != "" {
		body += "\nTags: " + tags
	}
	if err := s.notes.add(env.client, body); err != nil {
		return "", err
	}
	_, redacted := redact.TextCount(body)
	msg := "Kept. The next dream files it into long-term memory; recall finds it after that (dream_status shows what is pending)."
	if redacted > 0 {
		msg += fmt.Sprintf(" %d secret(s) in it were replaced by placeholders before it was written.", redacted)
	}
	return msg, nil
}

func splitTags(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '，' || r == '\n' }) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}
