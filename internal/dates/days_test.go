package dates

import (
	"testing"
	"time"
)

func TestDays(t *testing.T) {
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.Local)
	day := func(y int, m time.Month, d int) int32 { return DayNumber(time.Date(y, m, d, 23, 0, 0, 0, time.Local)) }
	march := Days{day(2026, 3, 1), day(2026, 4, 1)}
	for _, tc := range []struct {
		name        string
		entry       []Days
		question    string
		asks, keeps bool
	}{
		{"a day inside the month asked about", []Days{{day(2026, 3, 5), day(2026, 3, 6)}}, "what happened in March 2026?", true, true},
		{"a day outside it", []Days{{day(2026, 5, 5), day(2026, 5, 6)}}, "what happened in March 2026?", false, true},
		{"before a bound", []Days{{day(2026, 2, 5), day(2026, 2, 6)}}, "只看 2026 年 3 月以前", false, true},
		{"after a bound", []Days{{day(2026, 5, 5), day(2026, 5, 6)}}, "只看 2026 年 3 月以前", false, false},
		{"no day: kept by any bound", nil, "before March 2026", false, true},
		{"one of several days inside", []Days{{day(2026, 5, 5), day(2026, 5, 6)}, march}, "since 2026-03-10", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			days, bounds := QueryDays(tc.question, now)
			if got := AnyIn(tc.entry, days); got != tc.asks {
				t.Errorf("AnyIn = %v (question days %v)", got, days)
			}
			if got := InBounds(tc.entry, bounds); got != tc.keeps {
				t.Errorf("InBounds = %v (bounds %v)", got, bounds)
			}
		})
	}
	if got := TextDays("the migration ran yesterday", time.Date(2023, 10, 9, 12, 0, 0, 0, time.Local), 4); len(got) != 2 ||
		got[0] != (Days{day(2023, 10, 9), day(2023, 10, 9) + 1}) || got[1] != (Days{day(2023, 10, 8), day(2023, 10, 9)}) {
		t.Errorf("TextDays = %v", got)
	}
}
