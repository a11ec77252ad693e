package dates

import (
	"strings"
	"time"
)

// The layouts memory files, session logs and recall's output use. Each is
// written here once so a reader and a writer can never disagree on one.
const (
	// Layout is the ISO calendar date memory files and tools use.
	Layout = "2006-01-02"
	// TimeLayout is the local ISO time (seconds, no zone) the compat writer
	// puts in session logs and episodes.
	TimeLayout = "2006-01-02T15:04:05"
	// MinuteLayout is how recall shows when an episode happened.
	MinuteLayout = "2006-01-02 15:04"
	// LogLayout is the UTC instant that starts a somni.log line, as the
	// Python sidecar wrote it (the host greps its logs by it).
	LogLayout = "2006-01-02T15:04:05.000Z"
	// CompactLayout is the date inside intention ids (pi-YYYYMMDD-NNN).
	CompactLayout = "20060102"
	// CompactTimeLayout is the time inside episode names (ep-YYYYMMDD-HHMMSS).
	CompactTimeLayout = "20060102-150405"
)

// timeLayouts are the forms a hand-edited or Python-written time may take,
// most precise first.
var timeLayouts = []string{time.RFC3339, TimeLayout, "2006-01-02 15:04:05", MinuteLayout, Layout}

// ParseTime reads a date, a date and time, or RFC 3339 in local time; text
// after a leading date ("2026-11-20 (afternoon)") still yields that date.
// Anything else is "unknown": the zero time.
func ParseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range timeLayouts {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t
		}
	}
	if len(s) >= 10 {
		if t, err := time.ParseInLocation(Layout, s[:10], time.Local); err == nil {
			return t
		}
	}
	return time.Time{}
}

// IsDate reports whether v (spaces aside) is exactly one YYYY-MM-DD date.
func IsDate(v string) bool {
	_, err := time.Parse(Layout, strings.TrimSpace(v))
	return err == nil
}
