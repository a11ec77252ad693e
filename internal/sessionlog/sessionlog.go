package sessionlog

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
)

// Store is what the session logs need of the memory store: its boundary,
// roots, clock and logger, its write lock, and its two naming rules (the
// day's next free number, the archive move). *memory.Store is one.
type Store interface {
	FS() *safefs.FS
	DataDir() string
	MemoryDir() string
	Now() time.Time
	Logger() *slog.Logger
	Rel(path string) string
	Lock(ctx context.Context) (unlock func(), err error)
	NextDailyNumber(re *regexp.Regexp, day string, dirs ...string) int
	MoveToFreeName(src, destParent, base, ext string) (string, error)
}

// Logs is memory/session-log: the live capture writing it, and listing,
// reading, archiving and recovering its files. Make one per store and share
// it: archiving a log must reach the capture that holds it.
type Logs struct {
	st  Store
	fs  *safefs.FS
	dir string
	log *slog.Logger

	capMu   sync.Mutex
	capture *Capture // the live session writer, told when a log it holds is archived
}

// New returns the session logs of st.
func New(st Store) *Logs {
	return &Logs{st: st, fs: st.FS(), dir: filepath.Join(st.MemoryDir(), "session-log"), log: st.Logger()}
}

// Dir returns the absolute session-log folder.
func (l *Logs) Dir() string { return l.dir }

// logHeadBytes is how much of a log is read to learn its status.
const logHeadBytes = 4096

// invalid is a refusal of bad input, wrapping memory.ErrInvalid as the store's refusals do.
func invalid(format string, args ...any) error {
	return fmt.Errorf("sessionlog: %w: %s", memory.ErrInvalid, fmt.Sprintf(format, args...))
}

// replace writes data over path only if it still holds the version read.
// Session logs skip the store's redaction: capture redacted every block and
// header value as it wrote them.
func (l *Logs) replace(path string, data []byte, prev safefs.Version) (safefs.Version, error) {
	ver, err := l.fs.Replace(path, data, prev)
	if err != nil {
		return safefs.Version{}, fmt.Errorf("sessionlog: write %s: %w", path, err)
	}
	return ver, nil
}

// Session-log limits (compat).
const (
	// SessionLogMaxBytes rotates a log to a new file once it grows past 24 KiB.
	SessionLogMaxBytes = 24 << 10
	// MessageMaxChars caps one message, in characters (runes); the rest is
	// replaced by "\n...(truncated, original N chars)" (capMessage). It is
	// the only copy of the cap: the MCP server's note bound reads it, and the
	// plugin cuts only at its transport bound or a capture.maxMessageChars
	// the user set.
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

// How a log rotation is kept off the append path. Rotating in line —
// finalising the full log and creating the next, four fsyncs and a
// directory listing every ~120 appends — held capture well below a burst
// without rotation, and the per-append stat of the log's name cost more
// again (BenchmarkSessionAppend; measured in docs/ARCHITECTURE.md, Measurements).
const (
	// spareAt is how full a live log is when its successor is made in the
	// background (created, header synced, locked, named), so the append that
	// rotates only switches files, and the full log is finalised in the
	// background too. Started at three quarters (30 appends of lead in a
	// burst) the rotating append still waited for the successor to be made;
	// at a quarter (90 appends of lead) it rarely does (measured in
	// docs/ARCHITECTURE.md, Measurements). A session that ends before using its successor removes it;
	// one that never writes 6 KiB never makes one.
	spareAt = SessionLogMaxBytes / 4
	// pathCheckEvery is how long a live log's name may go unchecked. A log
	// moved or deleted by hand is noticed within this time and the session
	// goes on in a new log with a header; until then appends reach the moved
	// file, as one always could between a check and its write. The dreamer
	// never needs it: it finalises a live log through the capture before
	// moving it.
	pathCheckEvery = 20 * time.Millisecond
)

// Log status values.
const (
	StatusPending   = "pending"
	StatusProcessed = "processed"
)

// logTimeLayout is the local ISO time (seconds, no zone) of log headers and blocks.
const logTimeLayout = dates.TimeLayout

var sessionLogNameRe = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})_(\d{3,})\.md$`)
