package dates

import (
	"fmt"
	"strconv"
	"time"

	"github.com/somni-dev/somni/internal/lazyre"
)

// The forms of a day written out with its numbers. They are read here, not
// by the library: its rules read "2026-12-24" as the time 12:24, know no
// slashes and no year after a month name, and its time.Date arithmetic
// turns "Dec 32" into January 1st.
var (
	// 2026-12-24, 2026/12/24, 2026.12.24
	ymdRe = lazyre.New(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$`)
	// 24/12/2026 or 12/24/2026; 24.12.2026 (dots are always day first)
	dmyRe = lazyre.New(`^(\d{1,2})([/.])(\d{1,2})[/.](\d{4})$`)
	// Dec 24, december 24th, 2026; 24 Dec; 24th of December 2026
	enDateRe = lazyre.New(`^(?:(` + monthAlt + `)\.? (\d{1,3})(?:st|nd|rd|th)?|(\d{1,3})(?:st|nd|rd|th)? (?:of )?(` + monthAlt + `)\.?)(?:,? (\d{4}))?$`)
	// 12月24日, 2026年12月24号, 明年二月二十九日
	zhDateRe = lazyre.New(`^(?:(\d{4}) ?年|(今年|明年|后年))? ?([0-9]{1,2}|[零一二三四五六七八九十]{1,3}) ?月 ?([0-9]{1,3}|[零一二三四五六七八九十]{1,3}) ?[日号]$`)
)

// writtenDay is the day s writes out, at noon in ref's location, a year
// left out being ref's; ok is false when s is no such form. A form that
// names no day (2027-02-30, "Dec 32", 二月三十日) is an *Error saying why.
func writtenDay(in, s string, ref time.Time) (t time.Time, ok bool, err error) {
	y, m, d, yearSaid, reason, ok := writtenParts(s, ref)
	if !ok {
		return time.Time{}, false, nil
	}
	if reason == "" {
		reason = noSuchDay(y, m, d, yearSaid)
	}
	if reason != "" {
		return time.Time{}, true, &Error{Input: in, Reason: reason}
	}
	t, _ = dayAt(y, m, d, 12, ref.Location())
	return t, true, nil
}

// writtenParts reads the numbers of a written-out day; reason is set when
// they cannot be placed at all (a slashed date either way round).
func writtenParts(s string, ref time.Time) (y int, m time.Month, d int, yearSaid bool, reason string, ok bool) {
	y = ref.Year()
	if g := ymdRe().FindStringSubmatch(s); g != nil {
		return atoi(g[1]), time.Month(atoi(g[2])), atoi(g[3]), true, "", true
	}
	if g := dmyRe().FindStringSubmatch(s); g != nil {
		a, b, y := atoi(g[1]), atoi(g[3]), atoi(g[4])
		switch {
		case a < 1 || b < 1: // no reading has a day 0: say so of the month there is
			return y, time.Month(max(a, b)), min(a, b), true, "", true
		case g[2] == "." || a > 12 && b <= 12:
			return y, time.Month(b), a, true, "", true
		case b > 12 && a <= 12 || a == b:
			return y, time.Month(a), b, true, "", true
		case a > 12 && b > 12:
			return y, 0, 0, true, fmt.Sprintf("neither %d nor %d is a month", a, b), true
		}
		return y, 0, 0, true, fmt.Sprintf("could be %s %d or %s %d; write %04d-%02d-%02d or %04d-%02d-%02d",
			time.Month(a), b, time.Month(b), a, y, a, b, y, b, a), true
	}
	if g := enDateRe().FindStringSubmatch(s); g != nil {
		name, day := g[1], g[2]
		if name == "" {
			name, day = g[4], g[3]
		}
		if g[5] != "" {
			y, yearSaid = atoi(g[5]), true
		}
		return y, monthNames[name], atoi(day), yearSaid, "", true
	}
	if g := zhDateRe().FindStringSubmatch(s); g != nil {
		mm, okM := zhNumber(g[3])
		dd, okD := zhNumber(g[4])
		if !okM || !okD {
			return 0, 0, 0, false, "", false
		}
		switch {
		case g[1] != "":
			y, yearSaid = atoi(g[1]), true
		case g[2] != "":
			y, yearSaid = ref.Year()+map[string]int{"今年": 0, "明年": 1, "后年": 2}[g[2]], true
		}
		return y, time.Month(mm), dd, yearSaid, "", true
	}
	return 0, 0, 0, false, "", false
}

// atoi reads digits a pattern has already matched.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
