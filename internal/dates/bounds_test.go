package dates

import (
	"testing"
	"time"
)

func TestFindBounds(t *testing.T) {
	ref := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	day := func(s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		d, err := time.Parse(Layout, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		text         string
		since, until string // the first bound; both "" = none
		spans        int    // spans left that bound nothing
	}{
		{"只看 2026 年 3 月以前，我们搬过几次家？", "", "2026-03-01", 0},
		{"2026年3月之前的体检结果", "", "2026-03-01", 0},
		{"去年五月以后阿杰换了几份工作？", "2025-06-01", "", 0},
		{"自 2024 年以来他跑了几次马拉松", "2024-01-01", "", 0},
		{"从去年十一月起用的是哪个数据库？", "2025-11-01", "", 0},
		{"what did we decide before March 2026?", "", "2026-03-01", 0},
		{"anything after last May about the car?", "2026-06-01", "", 0},
		{"which laptops since 2024?", "2024-01-01", "", 0},
		{"notes until June 2025", "", "2025-07-01", 0},
		{"what was Maya up to two months ago?", "", "", 1},
		{"photos from last May", "", "", 1},
		{"the holidays after tomorrow's final exam", "", "", 1},
		{"我昨天开始看一本新的武侠小说", "", "", 1},
		{"我今天起床很早", "", "", 1},
		{"before 2026-03-10, what did we pay?", "", "2026-03-10", 0},
		{"what did Maya do in March 2024?", "", "", 1},
		{"三天前说了什么", "", "", 1},
		{"before the move, what did we eat?", "", "", 0},
		// Traditional Chinese reads as Simplified (textseg.FoldHan)
		{"2026年3月以後我們改了什麼？", "2026-04-01", "", 0},
		{"只看 2025 年 10 月之後的紀錄", "2025-11-01", "", 0},
		{"上週說了什麼", "", "", 1},
		{"三個月前的體檢", "", "", 1},
		{"兩週前的會議", "", "", 1},
		// full-width digits, as Chinese input methods type them
		{"只看２０２６年３月以前的", "", "2026-03-01", 0},
		{"３天前說了什麼", "", "", 1},
	} {
		bounds, rest := FindBounds(tc.text, ref)
		if tc.since == "" && tc.until == "" {
			if len(bounds) != 0 {
				t.Errorf("%q: bounds %+v, want none", tc.text, bounds)
			}
		} else if len(bounds) == 0 {
			t.Errorf("%q: no bound, want since %q until %q", tc.text, tc.since, tc.until)
		} else if b := bounds[0]; !b.Since.Equal(day(tc.since)) || !b.Until.Equal(day(tc.until)) {
			t.Errorf("%q: since %v until %v, want %q %q", tc.text, b.Since, b.Until, tc.since, tc.until)
		}
		if len(rest) != tc.spans {
			t.Errorf("%q: %d spans left, want %d", tc.text, len(rest), tc.spans)
		}
	}
}
