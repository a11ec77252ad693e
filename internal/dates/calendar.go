package dates

import (
	"fmt"
	"time"
)

// The one bound on how far a day may lie from today, whatever form named
// it: written out (2226-12-01, "Dec 24, 2226", 2226年12月1日) or relative
// ("in 200 years", "200年后"). No reminder or search range a person means
// lies two centuries away, and a bound relative to today keeps every day
// clear of the zero time.Time (0001-01-01) callers read as "no date". A
// year counts as 366 days, so that an amount of any unit which is at most
// the bound ("in 200 years", "in 2400 months") is inside it.
const (
	maxYearsAway = 200
	maxDaysAway  = maxYearsAway * 366
)

// tooFar says why day lies beyond the bound from today's date, or "" when
// it does not. Both are compared as calendar dates, so the zone of the
// instant does not shift the bound by a day.
func tooFar(day, today time.Time) string {
	if d := DayNumber(day) - DayNumber(today); d >= -maxDaysAway && d <= maxDaysAway {
		return ""
	}
	return fmt.Sprintf("%s is too far: a date at most %d years either way of today (%s)", Format(day), maxYearsAway, Format(today))
}

// daysIn is how many days month m of year y has.
func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// noSuchDay says why y-m-d is no calendar day, or "" when it is one.
// yearSaid is whether the year was written with the day (2027-02-30,
// 2027年2月30日) or supplied by the reader ("Feb 30" is placed in this
// year): a day no month of that name ever has is said without a year
// ("December 32 does not exist"), one the year lacks names the year.
func noSuchDay(y int, m time.Month, d int, yearSaid bool) string {
	iso := fmt.Sprintf("%04d-%02d-%02d", y, int(m), d)
	switch {
	case m < time.January || m > time.December:
		if yearSaid {
			return fmt.Sprintf("%s is not a day: there is no month %d", iso, int(m))
		}
		return fmt.Sprintf("month %d does not exist", int(m))
	case d >= 1 && d <= daysIn(y, m):
		return ""
	case !yearSaid && (d < 1 || d > daysIn(2000, m)): // 2000: a leap year, every month at its longest
		return fmt.Sprintf("%s %d does not exist", m, d)
	}
	return fmt.Sprintf("%s is not a day: %s %d has %d days", iso, m, y, daysIn(y, m))
}

// dayAt is y-m-d at the given hour in loc; ok is false when there is no
// such day. It is the package's one way from numbers to a time: time.Date
// carries what does not exist into a day that does (December 32 into
// January 1st, month 13 into next year), so a date someone wrote would
// silently become another one. Month arithmetic goes through monthStep
// first, which carries on purpose.
func dayAt(y int, m time.Month, d, hour int, loc *time.Location) (t time.Time, ok bool) {
	if noSuchDay(y, m, d, true) != "" {
		return time.Time{}, false
	}
	return time.Date(y, m, d, hour, 0, 0, 0, loc), true
}

// dateOf is the midnight of a day known to exist (one read off a time).
func dateOf(y int, m time.Month, d int, loc *time.Location) time.Time {
	t, _ := dayAt(y, m, d, 0, loc)
	return t
}

// monthStep is the year and month n months after y-m (before, for n < 0),
// carrying the year.
func monthStep(y int, m time.Month, n int) (int, time.Month) {
	i := y*12 + int(m) - 1 + n
	y, mi := i/12, i%12
	if mi < 0 {
		y, mi = y-1, mi+12
	}
	return y, time.Month(mi + 1)
}
