package memory

import (
	"regexp"

	"github.com/somni-dev/somni/internal/dates"
)

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

// Log status values.
const (
	StatusPending   = "pending"
	StatusProcessed = "processed"
)

// logTimeLayout is the local ISO time (seconds, no zone) of log headers and blocks.
const logTimeLayout = dates.TimeLayout

var sessionLogNameRe = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})_(\d{3,})\.md$`)
