package dates

import (
	"fmt"
	"testing"
	"time"
)

// FuzzResolve holds Resolve to the calendar for any phrase: no panic, no
// day beyond the bound from today; and for "in N units" / "N units ago" —
// the phrases whose arithmetic once wrapped — an answer is the exact
// calendar day (±1 for the month lengths a unit rounds over), and every
// amount within the bound is answered.
func FuzzResolve(f *testing.F) {
	f.Add("in 99999999999 days", int64(5), uint8(0), false)
	f.Add("in 3652060 weeks", int64(3652060), uint8(1), false)
	f.Add("in 9223372036854775807months", int64(9223372036854775807), uint8(2), true)
	f.Add("三天后", int64(200), uint8(3), true)
	f.Add("99999999999天后", int64(73000), uint8(0), false)
	units := []struct {
		word string
		step func(t time.Time, n int) time.Time
	}{
		{"days", func(t time.Time, n int) time.Time { return t.AddDate(0, 0, n) }},
		{"weeks", func(t time.Time, n int) time.Time { return t.AddDate(0, 0, 7*n) }},
		{"months", addMonths},
		{"years", func(t time.Time, n int) time.Time { return addMonths(t, 12*n) }},
	}
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	ref := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, phrase string, n int64, unit uint8, ago bool) {
		if got, err := Resolve(phrase, now); err == nil && tooFar(got, now) != "" {
			t.Fatalf("%q → %s, beyond the bound from today", phrase, Format(got))
		}
		if n < 0 {
			n = -n
		}
		u := units[int(unit)%len(units)]
		p, sign := fmt.Sprintf("in %d %s", n, u.word), 1
		if ago {
			p, sign = fmt.Sprintf("%d %s ago", n, u.word), -1
		}
		got, err := Resolve(p, now)
		within := float64(n)*unitDays(u.word) <= maxRelativeDays
		if err != nil {
			if within && n > 0 {
				t.Fatalf("%q refused although within the bound: %v", p, err)
			}
			return
		}
		if !within {
			t.Fatalf("%q → %s beyond the bound", p, Format(got))
		}
		want := midnight(u.step(ref, sign*int(n)))
		if d := got.Sub(want).Hours() / 24; d < -1 || d > 1 {
			t.Fatalf("%q → %s, the calendar says %s", p, Format(got), Format(want))
		}
	})
}
