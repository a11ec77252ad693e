package sidecar

import (
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/dates"
)

// TestDueNoteComparesDays checks the due note against the string order a
// valid YYYY-MM-DD shares with its date, across month, year and leap-day
// edges and in zones where now's day is not the UTC day.
func TestDueNoteComparesDays(t *testing.T) {
	kiritimati := time.FixedZone("UTC+14", 14*3600)
	samoa := time.FixedZone("UTC-11", -11*3600)
	for _, tc := range []struct {
		due  string
		now  time.Time
		want string
	}{
		{"2026-11-29", time.Date(2026, 11, 30, 9, 0, 0, 0, time.Local), "overdue since 2026-11-29"},
		{"2026-11-30", time.Date(2026, 11, 30, 9, 0, 0, 0, time.Local), "due today"},
		{"2026-12-02", time.Date(2026, 11, 30, 9, 0, 0, 0, time.Local), "due 2026-12-02"},
		{"2026-12-31", time.Date(2027, 1, 1, 0, 0, 0, 0, time.Local), "overdue since 2026-12-31"},
		{"2027-01-01", time.Date(2026, 12, 31, 23, 59, 0, 0, time.Local), "due 2027-01-01"},
		{"2028-02-29", time.Date(2028, 2, 29, 12, 0, 0, 0, time.Local), "due today"},
		{"2028-02-29", time.Date(2028, 3, 1, 0, 0, 0, 0, time.Local), "overdue since 2028-02-29"},
		{"2026-12-02", time.Date(2026, 12, 2, 23, 30, 0, 0, kiritimati), "due today"}, // UTC is still 12-02 09:30
		{"2026-12-02", time.Date(2026, 12, 1, 23, 30, 0, 0, samoa), "due 2026-12-02"}, // UTC is already 12-02
		{"2026-12-01", time.Date(2026, 12, 1, 23, 30, 0, 0, samoa), "due today"},
		{"1999-12-31", time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), "overdue since 1999-12-31"},
		{"2100-01-01", time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), "due 2100-01-01"},
	} {
		got := dueNote(tc.due, tc.now)
		if got != tc.want {
			t.Errorf("dueNote(%q, %v) = %q, want %q", tc.due, tc.now, got, tc.want)
		}
		if old := stringOrderNote(tc.due, tc.now); got != old {
			t.Errorf("dueNote(%q, %v) = %q, the string order said %q", tc.due, tc.now, got, old)
		}
	}
}

// stringOrderNote is the rule dueNote replaced, kept to show both agree on
// every valid date.
func stringOrderNote(due string, now time.Time) string {
	today := dates.Format(now)
	switch {
	case due < today:
		return "overdue since " + due
	case due == today:
		return "due today"
	}
	return "due " + due
}
