package dates

import (
	"testing"
	"time"

	"github.com/olebedev/when"
	"github.com/olebedev/when/rules"
	"github.com/olebedev/when/rules/en"
	"github.com/olebedev/when/rules/zh"
)

// TestParserMatchesWhen holds the package's own copy of when's Parse to the
// library's (imported here only, so the binary does not set up when's other
// languages): same phrase found, same place, same time, for English and
// Chinese phrases alone and inside text.
func TestParserMatchesWhen(t *testing.T) {
	lib := when.New(&rules.Options{Distance: 5, Afternoon: 15, Evening: 18, Morning: 8, Noon: 12})
	lib.Add(en.All...)
	lib.Add(zh.CasualDate(rules.Override), zh.AfterTime(rules.Override))
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	phrases := []string{
		"tomorrow", "today", "yesterday", "next friday", "last monday", "friday", "in 3 days", "2 weeks ago",
		"dec 24", "december 24th", "24th of december", "tomorrow at 9am", "next week", "in an hour",
		"by tomorrow evening", "the meeting is next tuesday at 3pm, or wednesday", "in 2 months",
		"nothing here", "", "明天", "后天", "昨天", "三天后", "两周后", "明天下午三点", "我们下周再说", "10天后交",
		"see you friday. or saturday", "at noon tomorrow", "end of month", "2026-12-24",
	}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, loc)
	for _, s := range phrases {
		want, wantErr := lib.Parse(s, now)
		got, gotErr := parser().Parse(s, now)
		if (wantErr != nil) != (gotErr != nil) {
			t.Errorf("%q: error %v, when says %v", s, gotErr, wantErr)
			continue
		}
		if (want == nil) != (got == nil) {
			t.Errorf("%q: result %+v, when says %+v", s, got, want)
			continue
		}
		if want != nil && (want.Index != got.Index || want.Text != got.Text || !want.Time.Equal(got.Time)) {
			t.Errorf("%q: %d %q %s, when says %d %q %s", s, got.Index, got.Text, got.Time, want.Index, want.Text, want.Time)
		}
	}
}
