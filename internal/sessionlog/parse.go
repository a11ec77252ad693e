package sessionlog

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// Block is one block of a session log.
type Block struct {
	Role    string // user | agent | tool
	Speaker string // group-chat speaker from [user:<speaker>]
	Time    string // local ISO time from the header line
	Text    string // message text (user/agent); for tool blocks the raw block text
	Reason  string // tool blocks only
	Call    string
	Result  string
	Line    int // 1-based line of the header in the file
}

// When is the block's header time in local time, the zero time when the
// header's time is not one the writer writes.
func (b Block) When() time.Time {
	t, err := time.ParseInLocation(logTimeLayout, b.Time, time.Local)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Log is a parsed session-log file.
type Log struct {
	Path     string
	Meta     *frontmatter.Meta
	Blocks   []Block
	Archived bool
	// Raw is the file's bytes as read (at most memory.MaxLogBytes).
	Raw []byte
}

// ChatID returns the host session id the log belongs to.
func (l *Log) ChatID() string { return l.Meta.Value("chat_id") }

// Status returns the log status ("" for logs still open or written by old versions).
func (l *Log) Status() string { return l.Meta.Value("status") }

// blockHeaderRe matches only real block headers: a known role, optional speaker, and an ISO time.
var blockHeaderRe = regexp.MustCompile(`^\[(user|agent|tool)(?::([^\]\n]*))?\] (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)\s*$`)

// Parse parses a log leniently: a broken header leaves Meta empty and the whole text as body.
// Only a known header at the start of a block starts a new block, so a message beginning with
// `[x] y` stays inside its block.
func Parse(path string, data []byte) *Log {
	l := &Log{Path: path, Meta: frontmatter.New(), Raw: data}
	body := string(data)
	lineOffset := 0
	if doc, err := frontmatter.Parse(path, data); err == nil {
		l.Meta = doc.Meta
		lineOffset = strings.Count(body[:len(body)-len(doc.Body)], "\n")
		body = doc.Body
	}
	lines := strings.Split(body, "\n")
	var cur *Block
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
				cur = &Block{Role: m[1], Speaker: m[2], Time: m[3], Line: lineOffset + i + 1}
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

// Read reads and parses a log inside session-log/ (pending or archived).
func (l *Logs) Read(path string) (*Log, error) {
	p, err := l.resolveLogPath(path)
	if err != nil {
		return nil, err
	}
	data, err := l.fs.ReadFile(p, memory.MaxLogBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// The dreamer may name a log that has just been archived.
			alt := filepath.Join(l.dir, "archived", filepath.Base(p))
			if data2, err2 := l.fs.ReadFile(alt, memory.MaxLogBytes); err2 == nil {
				log := Parse(alt, data2)
				log.Archived = true
				return log, nil
			}
			return nil, fmt.Errorf("sessionlog: read session log %s: %w", path, memory.ErrNotFound)
		}
		return nil, fmt.Errorf("sessionlog: read session log %s: %w", path, err)
	}
	log := Parse(p, data)
	log.Archived = filepath.Dir(p) != l.dir
	return log, nil
}
