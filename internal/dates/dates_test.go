package dates

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	shanghai := mustZone(t, "Asia/Shanghai")
	la := mustZone(t, "America/Los_Angeles")
	at := func(loc *time.Location, s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	tue := at(berlin, "2026-12-01 10:00") // a Tuesday
	fri := at(berlin, "2026-12-04 10:00")
	sun := at(berlin, "2026-12-06 10:00")
	mon := at(berlin, "2026-12-07 10:00")
	cases := []struct {
		name, phrase string
		now          time.Time
		want         string // YYYY-MM-DD, or "" for an error
		unknown      string // for errors: the part named as not understood
	}{
		{"iso", "2026-12-24", tue, "2026-12-24", ""},
		{"iso leap day", "2028-02-29", tue, "2028-02-29", ""},
		{"today", "today", tue, "2026-12-01", ""},
		{"tomorrow", "tomorrow", tue, "2026-12-02", ""},
		{"tomorrow capitalised with dot", "Tomorrow.", tue, "2026-12-02", ""},
		{"by tomorrow", "by tomorrow", tue, "2026-12-02", ""},
		{"tomorrow with a time", "tomorrow at 9am", tue, "2026-12-02", ""},
		{"yesterday", "yesterday", tue, "2026-11-30", ""},
		{"friday on tuesday", "friday", tue, "2026-12-04", ""},
		{"on friday", "on friday", tue, "2026-12-04", ""},
		{"next friday on tuesday", "next friday", tue, "2026-12-04", ""},
		{"next friday on a friday", "next friday", fri, "2026-12-11", ""},
		{"friday on a friday", "friday", fri, "2026-12-11", ""},
		{"this friday on a friday", "this friday", fri, "2026-12-04", ""},
		{"last friday", "last friday", tue, "2026-11-27", ""},
		{"next friday across the year", "next friday", at(berlin, "2026-12-29 10:00"), "2027-01-01", ""},
		{"next monday on sunday", "next monday", sun, "2026-12-07", ""},
		{"in 3 days", "in 3 days", tue, "2026-12-04", ""},
		{"in three days", "in three days", tue, "2026-12-04", ""},
		{"in 2 weeks", "in 2 weeks", tue, "2026-12-15", ""},
		{"in a week", "in a week", tue, "2026-12-08", ""},
		{"3 days ago", "3 days ago", tue, "2026-11-28", ""},
		{"2 weeks ago", "2 weeks ago", tue, "2026-11-17", ""},
		{"month name", "Dec 24", tue, "2026-12-24", ""},
		{"next week is its monday", "next week", tue, "2026-12-07", ""},
		{"next week on sunday", "next week", sun, "2026-12-07", ""},
		{"last week", "last week", tue, "2026-11-23", ""},
		{"end of month", "end of month", tue, "2026-12-31", ""},
		{"end of the month in february", "end of the month", at(berlin, "2027-02-10 10:00"), "2027-02-28", ""},
		{"end of month in a leap february", "end of month", at(berlin, "2028-02-10 10:00"), "2028-02-29", ""},
		{"end of month on its last day", "end of month", at(berlin, "2026-12-31 10:00"), "2026-12-31", ""},
		{"end of next month from january 31", "end of next month", at(berlin, "2027-01-31 10:00"), "2027-02-28", ""},
		{"end of year", "end of year", tue, "2026-12-31", ""},
		{"in 1 month in december carries the year", "in 1 month", tue, "2027-01-01", ""},
		{"in a month from january 31 clamps", "in a month", at(berlin, "2027-01-31 10:00"), "2027-02-28", ""},
		{"3 months ago across the year", "3 months ago", at(berlin, "2026-01-15 10:00"), "2025-10-15", ""},
		{"next month", "next month", tue, "2027-01-01", ""},
		{"last month from march 31", "last month", at(berlin, "2027-03-31 10:00"), "2027-02-28", ""},
		{"下个月 from january 31", "下个月", at(berlin, "2027-01-31 10:00"), "2027-02-28", ""},
		{"一个月后", "一个月后", tue, "2027-01-01", ""},
		{"两年后 on a leap day", "两年后", at(berlin, "2028-02-29 10:00"), "2030-02-28", ""},
		{"十天以后", "十天以后", tue, "2026-12-11", ""},
		{"明天", "明天", tue, "2026-12-02", ""},
		{"后天", "后天", tue, "2026-12-03", ""},
		{"昨天", "昨天", tue, "2026-11-30", ""},
		{"今天", "今天", tue, "2026-12-01", ""},
		{"下周五 on tuesday", "下周五", tue, "2026-12-11", ""},
		{"下周五 on sunday is five days out", "下周五", sun, "2026-12-11", ""},
		{"下周一 on sunday is tomorrow", "下周一", sun, "2026-12-07", ""},
		{"下周一 on monday", "下周一", mon, "2026-12-14", ""},
		{"下周日", "下周日", tue, "2026-12-13", ""},
		{"上周五 on sunday", "上周五", sun, "2026-11-27", ""},
		{"上週五 on sunday, Traditional", "上週五", sun, "2026-11-27", ""},
		{"这周五 on sunday is past", "这周五", sun, "2026-12-04", ""},
		{"周五 on friday is today", "周五", fri, "2026-12-04", ""},
		{"星期天 on tuesday", "星期天", tue, "2026-12-06", ""},
		{"下个星期三", "下个星期三", tue, "2026-12-09", ""},
		{"下周 is its monday", "下周", tue, "2026-12-07", ""},
		{"下周五之前", "下周五之前", tue, "2026-12-11", ""},
		{"明天下午三点 drops the time", "明天下午三点", tue, "2026-12-02", ""},
		{"周五上午10点半", "周五上午10点半", tue, "2026-12-04", ""},
		{"下周一晚上", "下周一晚上", tue, "2026-12-07", ""},
		{"a bare time is no date", "下午三点", tue, "", ""},
		{"三天后", "三天后", tue, "2026-12-04", ""},
		{"3天后", "3天后", tue, "2026-12-04", ""},
		{"两周后", "两周后", tue, "2026-12-15", ""},
		{"三天前", "三天前", tue, "2026-11-28", ""},
		{"二十四天前", "二十四天前", tue, "2026-11-07", ""},
		{"两个月前", "两个月前", tue, "2026-10-01", ""},
		{"月底 in february", "月底", at(berlin, "2027-02-10 10:00"), "2027-02-28", ""},
		{"年底", "年底", tue, "2026-12-31", ""},
		// The same instant is already tomorrow in Shanghai and still today in Los Angeles.
		{"near midnight east", "tomorrow", at(time.UTC, "2026-12-01 23:30").In(shanghai), "2026-12-03", ""},
		{"near midnight west", "tomorrow", at(time.UTC, "2026-12-01 23:30").In(la), "2026-12-02", ""},
		{"明天 late evening", "明天", at(berlin, "2026-12-01 23:59"), "2026-12-02", ""},
		// Berlin springs forward at 02:00 on 2027-03-28: 72 hours from 23:30 would read as the 31st.
		{"in 3 days across a DST jump", "in 3 days", at(berlin, "2027-03-27 23:30"), "2027-03-30", ""},
		{"empty", "  ", tue, "", ""},
		{"nonsense", "banana", tue, "", ""},
		{"a date with junk", "next friday or so", tue, "", "or so"},
		{"words around a chinese date", "大概下周五吧", tue, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(tc.phrase, tc.now)
			if tc.want == "" {
				var de *Error
				if !errors.As(err, &de) {
					t.Fatalf("Resolve(%q) = %v, %v; want a *dates.Error", tc.phrase, got, err)
				}
				if tc.unknown != "" && de.Unknown != tc.unknown {
					t.Fatalf("Resolve(%q): unknown %q, want %q", tc.phrase, de.Unknown, tc.unknown)
				}
				if !strings.Contains(err.Error(), "YYYY-MM-DD") {
					t.Fatalf("error %q does not list the accepted forms", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.phrase, err)
			}
			if s := Format(got); s != tc.want {
				t.Fatalf("Resolve(%q) at %s = %s (%s), want %s", tc.phrase, tc.now.Format(time.RFC3339), s, got.Weekday(), tc.want)
			}
			if got.Location() != tc.now.Location() || got.Hour() != 0 || got.Minute() != 0 {
				t.Fatalf("Resolve(%q) = %s: want midnight in %s", tc.phrase, got, tc.now.Location())
			}
		})
	}
}

// Arbitrary text never panics (the library's rules are regex-driven and
// one family of them slices at -1 on empty matches).
func TestResolveNeverPanics(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, s := range []string{"点", "下", "周", "前", "后", "天后", "个月", "in", "in days", "ago", "下午三点", "十点半",
		"明天下午三点", "end of", "the", "on by", "2026-", "-1 days ago", "in 99999999999999999999 days", "\x00", "☃"} {
		_, _ = Resolve(s, now)
	}
}

func TestToday(t *testing.T) {
	cases := []struct {
		zone string
		utc  string
		want string
	}{
		{"Europe/Berlin", "2026-12-01T09:00:00Z", "Tuesday, 2026-12-01 (Europe/Berlin, UTC+01:00)"},
		{"Asia/Kolkata", "2026-12-01T20:00:00Z", "Wednesday, 2026-12-02 (Asia/Kolkata, UTC+05:30)"},
		{"America/New_York", "2026-07-01T02:00:00Z", "Tuesday, 2026-06-30 (America/New_York, UTC-04:00)"},
		{"UTC", "2026-12-01T09:00:00Z", "Tuesday, 2026-12-01 (UTC)"},
		{"Etc/UTC", "2026-12-01T09:00:00Z", "Tuesday, 2026-12-01 (UTC)"},
	}
	for _, tc := range cases {
		t.Run(tc.zone, func(t *testing.T) {
			u, err := time.Parse(time.RFC3339, tc.utc)
			if err != nil {
				t.Fatal(err)
			}
			if got := Today(u.In(mustZone(t, tc.zone))); got != tc.want {
				t.Fatalf("Today = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLoadZone(t *testing.T) {
	for _, bad := range []string{"", "Local", "Mars/Olympus", "+08:00"} {
		if _, err := LoadZone(bad); err == nil || !strings.Contains(err.Error(), "IANA") {
			t.Errorf("LoadZone(%q) = %v; want an error asking for an IANA name", bad, err)
		}
	}
	if loc, err := LoadZone(" Asia/Shanghai "); err != nil || loc.String() != "Asia/Shanghai" {
		t.Fatalf("LoadZone(Asia/Shanghai) = %v, %v", loc, err)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := LoadZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// Tool calls run concurrently and share one parser.
func TestResolveConcurrent(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	done := make(chan string)
	for _, p := range []string{"tomorrow", "next friday", "in 3 days", "明天", "三天后", "Dec 24"} {
		go func() {
			var last string
			for range 200 {
				d, err := Resolve(p, now)
				if err != nil {
					last = err.Error()
					break
				}
				last = Format(d)
			}
			done <- p + "=" + last
		}()
	}
	want := map[string]bool{"tomorrow=2026-12-02": true, "next friday=2026-12-04": true, "in 3 days=2026-12-04": true,
		"明天=2026-12-02": true, "三天后=2026-12-04": true, "Dec 24=2026-12-24": true}
	for range want {
		if got := <-done; !want[got] {
			t.Errorf("concurrent Resolve: %s", got)
		}
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"2026-11-20", true}, {"2026-11-20 10:00", true}, {"2026-11-20T10:00:05", true},
		{"2026-11-20T10:00:05+08:00", true}, {"2026-11-20 (afternoon)", true}, {"last week", false}, {"", false},
	}
	for _, tc := range tests {
		if got := !ParseTime(tc.in).IsZero(); got != tc.ok {
			t.Errorf("ParseTime(%q) ok = %v", tc.in, got)
		}
	}
}
