package dates

import (
	"math"
	"time"
)

// Days is a half-open run of calendar days, as days since 1970-01-01 of the
// date as written (not of an instant), so a date read in one zone and a
// question resolved in another still meet on the same calendar day.
type Days struct{ From, To int32 }

// DayNumber is t's calendar date as days since 1970-01-01.
func DayNumber(t time.Time) int32 {
	y, m, d := t.Date()
	return int32(dateOf(y, m, d, time.UTC).Unix() / 86400)
}

// DaysOf is the calendar days s covers.
func DaysOf(s Span) Days { return Days{DayNumber(s.From), DayNumber(s.To)} }

// TextDays is what a dated text says about time: the day it carries (ref:
// when an episode happened, when knowledge was recorded, the session of a
// turn) and the days its text names, relative ones ("yesterday", "上周末")
// read from that day, at most max runs. A turn saying "I ran my first half
// yesterday" in a session on 2023-10-09 is about 2023-10-08 and 2023-10-09
// both.
func TextDays(text string, ref time.Time, max int) []Days {
	var out []Days
	if !ref.IsZero() {
		ref = ref.In(time.Local) // the zone the date was written in
		out = append(out, Days{DayNumber(ref), DayNumber(ref) + 1})
	}
	for _, s := range FindSpans(text, ref) {
		if len(out) >= max {
			break
		}
		r := DaysOf(s)
		dup := false
		for _, o := range out {
			dup = dup || o == r
		}
		if !dup {
			out = append(out, r)
		}
	}
	return out
}

// QueryDays are the days a question asks about ("in March 2024", "last
// May", "两周前"), resolved against now, and the bounds it limits itself to
// ("before March 2026", "只看 2026 年 3 月以前"): a bound's day is where the
// question stops looking, not what it asks about, so it is no day to match.
func QueryDays(text string, now time.Time) (days, bounds []Days) {
	return queryDays(FindBounds(text, now))
}

// queryDays is QueryDays over what FindBounds found.
func queryDays(bs []Bound, spans []Span) (days, bounds []Days) {
	days = make([]Days, len(spans))
	for i, s := range spans {
		days[i] = DaysOf(s)
	}
	for _, b := range bs {
		r := Days{math.MinInt32, math.MaxInt32}
		if !b.Since.IsZero() {
			r.From = DayNumber(b.Since)
		}
		if !b.Until.IsZero() {
			r.To = DayNumber(b.Until)
		}
		bounds = append(bounds, r)
	}
	return days, bounds
}

// InBounds reports whether a text with these days may answer a question
// with these bounds: one of its days falls inside every bound, or it has no
// day to place it by (it is then kept: nothing says it lies outside).
func InBounds(days, bounds []Days) bool {
	if len(days) == 0 {
		return true
	}
	for _, b := range bounds {
		if !Overlap(days, b) {
			return false
		}
	}
	return true
}

// Overlap reports whether any of days falls in r.
func Overlap(days []Days, r Days) bool {
	for _, e := range days {
		if e.From < r.To && r.From < e.To {
			return true
		}
	}
	return false
}

// AnyIn reports whether any of days falls in one of query's.
func AnyIn(days, query []Days) bool {
	for _, q := range query {
		if Overlap(days, q) {
			return true
		}
	}
	return false
}

// AnyWithin reports whether one of days lies wholly inside one of query's:
// a text naming the whole year or month does not say it is about the day
// or week asked, though its days overlap them.
func AnyWithin(days, query []Days) bool {
	for _, q := range query {
		for _, e := range days {
			if q.From <= e.From && e.To <= q.To {
				return true
			}
		}
	}
	return false
}
