package index

import (
	"math"
	"time"

	"github.com/somni-dev/somni/internal/dates"
)

// dayRange is a half-open run of calendar days, as days since 1970-01-01
// of the date as written (not of an instant), so a date read in one zone
// and a query resolved in another still meet on the same calendar day.
type dayRange struct{ from, to int32 }

// maxEntryDays bounds the date ranges one entry keeps: its own day and
// the first dates its text names; a text naming dozens is a list or a log,
// and every range costs memory at 10k entries.
const maxEntryDays = 4

func dayNum(t time.Time) int32 {
	y, m, d := t.Date()
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func rangeOf(s dates.Span) dayRange { return dayRange{dayNum(s.From), dayNum(s.To)} }

// entryDays is what an entry says about time: the day it carries (Doc.When:
// when an episode happened, when knowledge was recorded, the session of a
// turn) and the days its text names, relative ones ("yesterday", "上周末")
// read from that day. A turn saying "I ran my first half yesterday" in a
// session on 2023-10-09 is about 2023-10-08 and 2023-10-09 both.
func entryDays(d Doc) []dayRange {
	var out []dayRange
	ref := d.When
	if !ref.IsZero() {
		ref = ref.In(time.Local) // the zone the entry's date was written in
		out = append(out, dayRange{dayNum(ref), dayNum(ref) + 1})
	}
	for _, s := range dates.FindSpans(d.Description+"\n"+d.Body, ref) {
		if len(out) >= maxEntryDays {
			break
		}
		r := rangeOf(s)
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

// queryDays are the days a query asks about ("in March 2024", "last May",
// "两周前"), resolved against now, and the bounds it limits itself to
// ("before March 2026", "只看 2026 年 3 月以前"): a bound's day is where the
// question stops looking, not what it asks about, so it is no day to match.
func queryDays(text string, now time.Time) ([]dayRange, []dayRange) {
	bs, spans := dates.FindBounds(text, now)
	days := make([]dayRange, len(spans))
	for i, s := range spans {
		days[i] = rangeOf(s)
	}
	var bounds []dayRange
	for _, b := range bs {
		r := dayRange{math.MinInt32, math.MaxInt32}
		if !b.Since.IsZero() {
			r.from = dayNum(b.Since)
		}
		if !b.Until.IsZero() {
			r.to = dayNum(b.Until)
		}
		bounds = append(bounds, r)
	}
	return days, bounds
}

// inBounds reports whether an entry may answer a query with these bounds:
// one of its days falls inside every bound, or it has no day to place it
// by (it is then kept: nothing says it lies outside).
func inBounds(entry, bounds []dayRange) bool {
	if len(entry) == 0 {
		return true
	}
	for _, b := range bounds {
		if !overlaps(entry, b) {
			return false
		}
	}
	return true
}

// overlaps reports whether any of an entry's days fall in r.
func overlaps(entry []dayRange, r dayRange) bool {
	for _, e := range entry {
		if e.from < r.to && r.from < e.to {
			return true
		}
	}
	return false
}

// inDays reports whether any of an entry's days fall in the query's.
func inDays(entry, query []dayRange) bool {
	for _, q := range query {
		if overlaps(entry, q) {
			return true
		}
	}
	return false
}
