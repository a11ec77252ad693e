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
		within      bool // AnyWithin: about the days asked, not just overlapping them
	}{
		{"a day inside the month asked about", []Days{{day(2026, 3, 5), day(2026, 3, 6)}}, "what happened in March 2026?", true, true, true},
		{"a day outside it", []Days{{day(2026, 5, 5), day(2026, 5, 6)}}, "what happened in March 2026?", false, true, false},
		{"before a bound", []Days{{day(2026, 2, 5), day(2026, 2, 6)}}, "只看 2026 年 3 月以前", false, true, false},
		{"after a bound", []Days{{day(2026, 5, 5), day(2026, 5, 6)}}, "只看 2026 年 3 月以前", false, false, false},
		{"no day: kept by any bound", nil, "before March 2026", false, true, false},
		{"one of several days inside", []Days{{day(2026, 5, 5), day(2026, 5, 6)}, march}, "since 2026-03-10", false, true, false},
		{"the whole month, a day asked", []Days{march}, "2026年3月10日做了什么？", true, true, false},
		{"the whole year, a month asked", []Days{{day(2026, 1, 1), day(2027, 1, 1)}}, "what happened in March 2026?", true, true, false},
		{"that day among others", []Days{{day(2026, 1, 2), day(2026, 1, 3)}, {day(2026, 3, 10), day(2026, 3, 11)}}, "2026年3月10日做了什么？", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			days, bounds := QueryDays(tc.question, now)
			if got := AnyIn(tc.entry, days); got != tc.asks {
				t.Errorf("AnyIn = %v (question days %v)", got, days)
			}
			if got := InBounds(tc.entry, bounds); got != tc.keeps {
				t.Errorf("InBounds = %v (bounds %v)", got, bounds)
			}
			if got := AnyWithin(tc.entry, days); got != tc.within {
				t.Errorf("AnyWithin = %v (question days %v)", got, days)
			}
		})
	}
	if got := TextDays("the migration ran yesterday", time.Date(2023, 10, 9, 12, 0, 0, 0, time.Local), 4); len(got) != 2 ||
		got[0] != (Days{day(2023, 10, 9), day(2023, 10, 9) + 1}) || got[1] != (Days{day(2023, 10, 8), day(2023, 10, 9)}) {
		t.Errorf("TextDays = %v", got)
	}
}
