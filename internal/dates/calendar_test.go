package dates

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNoSuchDay: a day that does not exist is an error saying so in every
// form Resolve reads — never the day time.Date would carry it into — and
// every form is held to the one bound from today.
func TestNoSuchDay(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	tue := time.Date(2026, 12, 1, 10, 0, 0, 0, berlin)
	jan10 := time.Date(2027, 1, 10, 10, 0, 0, 0, berlin)
	cases := []struct {
		form, phrase string
		now          time.Time
		want         string // YYYY-MM-DD, or "" for an error
		reason       string // for errors: what Reason must say
	}{
		{"iso", "2027-02-30", tue, "", "2027-02-30 is not a day: February 2027 has 28 days"},
		{"iso", "2027-02-29", tue, "", "2027-02-29 is not a day: February 2027 has 28 days"},
		{"iso", "2026-04-31", tue, "", "2026-04-31 is not a day: April 2026 has 30 days"},
		{"iso", "2026-12-32", tue, "", "2026-12-32 is not a day: December 2026 has 31 days"},
		{"iso", "2026-12-00", tue, "", "2026-12-00 is not a day: December 2026 has 31 days"},
		{"iso", "2026-13-01", tue, "", "2026-13-01 is not a day: there is no month 13"},
		{"iso", "2026-00-10", tue, "", "2026-00-10 is not a day: there is no month 0"},
		{"iso", "2028-02-29", tue, "2028-02-29", ""},
		{"iso", "2027-2-28", tue, "2027-02-28", ""},
		{"slashes, year first", "2027/02/30", tue, "", "2027-02-30 is not a day: February 2027 has 28 days"},
		{"slashes, year first", "2026/12/24", tue, "2026-12-24", ""},
		{"dots, year first", "2026.12.24", tue, "2026-12-24", ""},
		{"slashes, month first", "02/30/2027", tue, "", "2027-02-30 is not a day: February 2027 has 28 days"},
		{"slashes, month first", "12/32/2027", tue, "", "2027-12-32 is not a day: December 2027 has 31 days"},
		{"slashes, month first", "12/24/2026", tue, "2026-12-24", ""},
		{"slashes, day first", "30/02/2027", tue, "", "2027-02-30 is not a day: February 2027 has 28 days"},
		{"slashes, day first", "24/12/2026", tue, "2026-12-24", ""},
		{"slashes, either way", "03/04/2027", tue, "", "could be March 4 or April 3; write 2027-03-04 or 2027-04-03"},
		{"slashes, either way the same", "05/05/2027", tue, "2027-05-05", ""},
		{"slashes, no month", "13/14/2027", tue, "", "neither 13 nor 14 is a month"},
		{"slashes, day 0", "00/05/2027", tue, "", "2027-05-00 is not a day: May 2027 has 31 days"},
		{"dots, day first", "30.02.2027", tue, "", "2027-02-30 is not a day: February 2027 has 28 days"},
		{"dots, day first", "03.04.2027", tue, "2027-04-03", ""},
		{"month name", "Dec 32", tue, "", "December 32 does not exist"},
		{"month name", "Dec 99", tue, "", "December 99 does not exist"},
		{"month name", "december 0", tue, "", "December 0 does not exist"},
		{"month name", "Feb 30", tue, "", "February 30 does not exist"},
		{"month name", "April 31st", tue, "", "April 31 does not exist"},
		{"month name, a year lacking the day", "Feb 29", tue, "", "2026-02-29 is not a day: February 2026 has 28 days"},
		{"month name", "Dec 24", tue, "2026-12-24", ""},
		{"month name with year", "December 32, 2027", tue, "", "2027-12-32 is not a day: December 2027 has 31 days"},
		{"month name with year", "Feb 29 2027", tue, "", "2027-02-29 is not a day: February 2027 has 28 days"},
		{"month name with year", "Feb 29, 2028", tue, "2028-02-29", ""},
		{"day first", "32 Dec", tue, "", "December 32 does not exist"},
		{"day first", "32nd of December", tue, "", "December 32 does not exist"},
		{"day first", "31st of february", tue, "", "February 31 does not exist"},
		{"day first", "24 December 2027", tue, "2027-12-24", ""},
		{"day first, in words", "thirty-first of february", tue, "", "February 31 does not exist"},
		{"day first, in words", "twenty-fourth of december", tue, "2026-12-24", ""},
		{"chinese", "2月30日", tue, "", "February 30 does not exist"},
		{"chinese", "二月三十日", tue, "", "February 30 does not exist"},
		{"chinese", "十二月三十二号", tue, "", "December 32 does not exist"},
		{"chinese", "13月1日", tue, "", "month 13 does not exist"},
		{"chinese", "2027年2月29日", tue, "", "2027-02-29 is not a day: February 2027 has 28 days"},
		{"chinese", "明年2月29日", tue, "", "2027-02-29 is not a day: February 2027 has 28 days"},
		{"chinese", "2027 年 2 月 28 日", tue, "2027-02-28", ""},
		{"chinese", "十二月二十四日", tue, "2026-12-24", ""},
		{"chinese", "2028年2月29号", tue, "2028-02-29", ""},
		{"relative with a day", "下个月31号", jan10, "", "February 31 does not exist"},
		{"relative with a day", "下个月15号", tue, "2027-01-15", ""},
		{"relative", "in a month", time.Date(2027, 1, 31, 10, 0, 0, 0, berlin), "2027-02-28", ""},
		{"relative", "end of next month", jan10, "2027-02-28", ""},
		{"bound, iso", "9999-12-31", tue, "", "9999-12-31 is too far: a date at most 200 years either way of today (2026-12-01)"},
		{"bound, iso", "1000-01-01", tue, "", "1000-01-01 is too far"},
		{"bound, iso", "2226-12-01", tue, "2226-12-01", ""},
		{"bound, month name", "Dec 24, 2999", tue, "", "2999-12-24 is too far"},
		{"bound, slashes", "24/12/2999", tue, "", "2999-12-24 is too far"},
		{"bound, chinese", "2999年12月24日", tue, "", "2999-12-24 is too far"},
		{"bound, relative", "in 201 years", tue, "", `"201 years" is too far: a date at most 200 years either way`},
		{"bound, relative", "in 200 years", tue, "2226-12-01", ""},
		{"bound, relative", "200年前", tue, "1826-12-01", ""},
	}
	for _, tc := range cases {
		t.Run(tc.form+" "+tc.phrase, func(t *testing.T) {
			got, err := Resolve(tc.phrase, tc.now)
			if tc.want != "" {
				if err != nil || Format(got) != tc.want {
					t.Fatalf("Resolve(%q) = %s, %v; want %s", tc.phrase, Format(got), err, tc.want)
				}
				return
			}
			var de *Error
			if !errors.As(err, &de) || !strings.Contains(de.Reason, tc.reason) {
				t.Fatalf("Resolve(%q) = %s, %v; want an *Error whose reason says %q", tc.phrase, Format(got), err, tc.reason)
			}
			if !got.IsZero() {
				t.Fatalf("Resolve(%q) refused but returned %s", tc.phrase, Format(got))
			}
		})
	}
}

// TestEveryDayEveryLayout: for each day number 0–32 of every month of a
// common and a leap year, each written form of the day names exactly that
// day when the calendar has it and is refused with a reason otherwise.
func TestEveryDayEveryLayout(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	layouts := map[string]func(y int, m time.Month, d int) string{
		"iso":          func(y int, m time.Month, d int) string { return fmt.Sprintf("%04d-%02d-%02d", y, int(m), d) },
		"year first /": func(y int, m time.Month, d int) string { return fmt.Sprintf("%04d/%d/%d", y, int(m), d) },
		"day first .":  func(y int, m time.Month, d int) string { return fmt.Sprintf("%d.%d.%04d", d, int(m), y) },
		"month name":   func(y int, m time.Month, d int) string { return fmt.Sprintf("%s %d, %04d", m, d, y) },
		"abbreviated":  func(y int, m time.Month, d int) string { return fmt.Sprintf("%s %d %04d", m.String()[:3], d, y) },
		"day first":    func(y int, m time.Month, d int) string { return fmt.Sprintf("%d %s %04d", d, m, y) },
		"chinese":      func(y int, m time.Month, d int) string { return fmt.Sprintf("%d年%d月%d日", y, int(m), d) },
		"chinese words": func(y int, m time.Month, d int) string {
			return fmt.Sprintf("%d年%s月%s号", y, zhNumeral(int(m)), zhNumeral(d))
		},
	}
	for name, layout := range layouts {
		for _, y := range []int{2027, 2028} {
			for m := time.January; m <= time.December; m++ {
				for d := 0; d <= 32; d++ {
					if d == 0 && name == "chinese words" {
						continue // 零日 is nobody's way of writing a day
					}
					phrase := layout(y, m, d)
					got, err := Resolve(phrase, now)
					exists := d >= 1 && d <= time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
					var de *Error
					switch {
					case exists && (err != nil || got.Year() != y || got.Month() != m || got.Day() != d):
						t.Errorf("%s: Resolve(%q) = %s, %v", name, phrase, Format(got), err)
					case !exists && (!errors.As(err, &de) || de.Reason == ""):
						t.Errorf("%s: Resolve(%q) = %s, %v; want the reason there is no such day", name, phrase, Format(got), err)
					}
				}
			}
		}
	}
}

// zhNumeral writes 1–39 in Chinese numerals, as people write days.
func zhNumeral(n int) string {
	digits := []string{"", "一", "二", "三", "四", "五", "六", "七", "八", "九"}
	switch {
	case n < 10:
		return digits[n]
	case n < 20:
		return "十" + digits[n-10]
	}
	return digits[n/10] + "十" + digits[n%10]
}

// TestMonthStep: month arithmetic carries the year both ways.
func TestMonthStep(t *testing.T) {
	for _, tc := range []struct {
		y, n, wy int
		m, wm    time.Month
	}{
		{2026, 1, 2027, 12, 1}, {2026, -1, 2025, 1, 12}, {2026, -12, 2025, 3, 3}, {2026, 25, 2028, 1, 2},
		{2026, 0, 2026, 6, 6}, {2026, -13, 2024, 1, 12},
	} {
		if y, m := monthStep(tc.y, tc.m, tc.n); y != tc.wy || m != tc.wm {
			t.Errorf("monthStep(%d, %d, %d) = %d-%d, want %d-%d", tc.y, tc.m, tc.n, y, m, tc.wy, tc.wm)
		}
	}
}
