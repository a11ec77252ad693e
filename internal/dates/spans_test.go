package dates

import (
	"testing"
	"time"
)

func TestFindSpans(t *testing.T) {
	ref := time.Date(2024, 3, 13, 19, 30, 0, 0, time.UTC) // a Wednesday
	for _, tc := range []struct {
		text     string
		from, to string // first span, half-open; "" = no span
	}{
		{"What did Maya do in March 2024?", "2024-03-01", "2024-04-01"},
		{"What happened with Tom's car last May?", "2023-05-01", "2023-06-01"},
		{"in May we went", "2023-05-01", "2023-06-01"},
		{"you may be right", "", ""},
		{"May I ask?", "", ""},
		{"in 2023", "2023-01-01", "2024-01-01"},
		{"the week of 2024-02-12", "2024-02-12", "2024-02-19"},
		{"session 3, 2023-11-04 19:30", "2023-11-04", "2023-11-05"},
		{"I ran 10k yesterday", "2024-03-12", "2024-03-13"},
		{"last weekend was fun", "2024-03-09", "2024-03-11"},
		{"last week", "2024-03-04", "2024-03-11"},
		{"two weeks ago", "2024-02-22", "2024-03-06"},
		{"a few days ago", "2024-03-09", "2024-03-12"},
		{"on March 3rd", "2024-03-03", "2024-03-04"},
		{"3 June 2023", "2023-06-03", "2023-06-04"},
		{"next month", "2024-04-01", "2024-05-01"},
		{"去年五月阿杰在忙什么？", "2023-05-01", "2023-06-01"},
		{"只看 2023 年 5 月的", "2023-05-01", "2023-06-01"},
		{"2023年5月", "2023-05-01", "2023-06-01"},
		{"三月十号", "2024-03-10", "2024-03-11"},
		{"两个月前小雨去了哪里？", "2023-12-24", "2024-02-03"},
		{"两周前", "2024-02-22", "2024-03-06"},
		{"昨天我去跑步了", "2024-03-12", "2024-03-13"},
		{"上周末", "2024-03-09", "2024-03-11"},
		{"上个月", "2024-02-01", "2024-03-01"},
		{"半年前", "2023-08-04", "2023-10-24"},
		{"兩個月前小雨去了哪裡？", "2023-12-24", "2024-02-03"}, // Traditional
		{"兩週前", "2024-02-22", "2024-03-06"},
		{"上個月", "2024-02-01", "2024-03-01"},
		{"上週末", "2024-03-09", "2024-03-11"},
		{"we meet on Friday", "", ""},
		{"in late December 2022", "2022-12-21", "2023-01-01"},
		{"mid-February 2024", "2024-02-11", "2024-02-21"},
		{"at the start of October 2023", "2023-10-01", "2023-10-11"},
		{"去年三月初", "2023-03-01", "2023-03-11"},
		{"2022年12月中旬", "2022-12-11", "2022-12-21"},
		{"去年十一月底", "2023-11-21", "2023-12-01"},
	} {
		got := FindSpans(tc.text, ref)
		if tc.from == "" {
			if len(got) != 0 {
				t.Errorf("%q: got %v, want no span", tc.text, got)
			}
			continue
		}
		if len(got) == 0 {
			t.Errorf("%q: no span, want %s–%s", tc.text, tc.from, tc.to)
			continue
		}
		if f, to := got[0].From.Format(Layout), got[0].To.Format(Layout); f != tc.from || to != tc.to {
			t.Errorf("%q: got %s–%s (%q), want %s–%s", tc.text, f, to, got[0].Text, tc.from, tc.to)
		}
	}
}

func TestFindSpansWithoutRef(t *testing.T) {
	if got := FindSpans("yesterday, in May 2023", time.Time{}); len(got) != 1 || got[0].From.Format(Layout) != "2023-05-01" {
		t.Fatalf("got %v, want only the absolute May 2023", got)
	}
}

// FuzzFindSpans: any text, any reference day, no panic, and every span
// is a non-empty stretch of days.
func FuzzFindSpans(f *testing.F) {
	for _, s := range []string{"last May", "去年十一月底", "the week of 2024-02-12", "İSTANBUL in March 2024", "\xff\xfe May 3", "两个月前 yesterday"} {
		f.Add(s, int64(1710000000))
	}
	f.Fuzz(func(t *testing.T, text string, unix int64) {
		ref := time.Unix(unix%(1<<34), 0).UTC()
		for _, s := range FindSpans(text, ref) {
			if !s.To.After(s.From) {
				t.Fatalf("%q: empty span %v–%v", text, s.From, s.To)
			}
		}
	})
}
