package dates

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/textseg"
)

// Span is a stretch of calendar days a text names: From is the first
// day's midnight, To the midnight after the last day (half-open), both in
// the reference time's location.
type Span struct {
	From, To time.Time
	Text     string // the words that named it, as written
	// Start and End are Text's byte offsets in the lowercased text, so a
	// reader of the words around it (FindBounds) need not search for it
	Start, End int
}

// Input bounds of FindSpans.
const (
	maxSpansPerText = 16 // a text naming more dates is a list, not a time reference
	maxSpanText     = 4 << 10
)

// FindSpans returns the days text names, relative ones ("yesterday", "last
// May", "two weeks ago", "上周", "去年五月", "三个月前") resolved against
// ref, absolute ones (2024-03-10, "March 2024", "2023年5月") as written.
// A zero ref resolves only absolute dates. A text's spans do not overlap
// in wording: the longest form at a place wins. Bare weekday names and a
// lone "may" are not dates: "may" is mostly the verb, and "on Friday" said
// in a text needs its tense to be placed.
func FindSpans(text string, ref time.Time) []Span {
	if len(text) > maxSpanText {
		text = text[:maxSpanText]
	}
	// Traditional Chinese is read as Simplified (上週 as 上周), full-width
	// digits as ASCII (２０２６年 as 2026年)
	lower := textseg.FoldString(strings.ToLower(text))
	if len(lower) != len(text) {
		text = lower // lowering changed byte lengths: offsets must index both
	}
	taken := make([]bool, len(lower)+1)
	var out []Span
	for _, r := range spanRules() {
		for _, w := range windows(lower, r.needles) {
			for _, loc := range r.re.FindAllStringSubmatchIndex(lower[w[0]:w[1]], -1) {
				if len(out) >= maxSpansPerText {
					return out
				}
				a, b := w[0]+loc[0], w[0]+loc[1]
				if anyTaken(taken, a, b) {
					continue
				}
				groups := make([]string, len(loc)/2)
				for i := range groups {
					if loc[2*i] >= 0 {
						groups[i] = lower[w[0]+loc[2*i] : w[0]+loc[2*i+1]]
					}
				}
				if r.ok != nil && !r.ok(text, a, b, groups) {
					continue
				}
				if r.relative && ref.IsZero() {
					continue
				}
				from, to, ok := r.span(groups, midnight(ref))
				if !ok || !to.After(from) {
					continue
				}
				for i := a; i < b; i++ {
					taken[i] = true
				}
				out = append(out, Span{From: from, To: to, Text: text[a:b], Start: a, End: b})
			}
		}
	}
	return out
}

// windowReach is how far around a needle a date phrase may extend ("in
// early December 2022", "the day before yesterday").
const windowReach = 40

// windows are the stretches of s around each needle, widened to word and
// rune boundaries and merged, in order: the regular expressions read only
// those, since they are slow per byte read and a note names a day in a
// few words at most (measured in docs/ARCHITECTURE.md, Measurements).
func windows(s string, needles []string) [][2]int {
	var ws [][2]int
	for _, n := range needles {
		for off := 0; ; {
			i := strings.Index(s[off:], n)
			if i < 0 {
				break
			}
			i += off
			a, b := max(0, i-windowReach), min(len(s), i+len(n)+windowReach)
			for a > 0 && (wordByte(s[a-1]) || !utf8.RuneStart(s[a])) {
				a--
			}
			for b < len(s) && (wordByte(s[b]) || !utf8.RuneStart(s[b])) {
				b++
			}
			ws = append(ws, [2]int{a, b})
			off = i + len(n)
		}
	}
	if len(ws) < 2 {
		return ws
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i][0] < ws[j][0] })
	merged := ws[:1]
	for _, w := range ws[1:] {
		if last := &merged[len(merged)-1]; w[0] <= last[1] {
			last[1] = max(last[1], w[1])
		} else {
			merged = append(merged, w)
		}
	}
	return merged
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

var (
	monthStarts = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september",
		"october", "november", "december", "jan ", "feb ", "mar ", "apr ", "jun ", "jul ", "aug ", "sep ", "sept ",
		"oct ", "nov ", "dec ", "jan.", "feb.", "mar.", "apr.", "jun.", "jul.", "aug.", "sep.", "oct.", "nov.", "dec."}
)

func anyTaken(taken []bool, a, b int) bool {
	for i := a; i < b; i++ {
		if taken[i] {
			return true
		}
	}
	return false
}

type spanRule struct {
	// needles: the rule reads only the text around them (windows). Most
	// text names no date, and each regular expression read over a whole
	// note made opening a large index take seconds (measured in
	// docs/ARCHITECTURE.md, Measurements).
	needles  []string
	re       *regexp.Regexp
	relative bool
	ok       func(text string, a, b int, g []string) bool
	span     func(g []string, today time.Time) (from, to time.Time, ok bool)
}

var monthNames = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}

const monthAlt = `january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec`

// enCount reads a count as people say it before a unit: what enNumber
// reads, and "a couple (of)", "a few", "several".
func enCount(s string) (int, bool) {
	s = strings.TrimSpace(s)
	switch s {
	case "a couple", "a couple of", "couple of":
		return 2, true
	case "a few", "few":
		return 3, true
	case "several":
		return 4, true
	}
	n := enNumber(s)
	return n, n > 0
}

// dayOf is the day y-m-d; ok is false when there is none (a text's
// "February 30" names no day to look in).
func dayOf(y int, m time.Month, d int, loc *time.Location) (time.Time, time.Time, bool) {
	t, ok := dayAt(y, m, d, 0, loc)
	if !ok {
		return t, t, false
	}
	return t, t.AddDate(0, 0, 1), true
}

// monthOf is month m of year y; a month past December or before January
// is counted on into the next years or back into the previous ones.
func monthOf(y int, m time.Month, loc *time.Location) (time.Time, time.Time) {
	y, m = monthStep(y, time.January, int(m)-1)
	t := dateOf(y, m, 1, loc)
	return t, t.AddDate(0, 1, 0)
}

func yearOf(y int, loc *time.Location) (time.Time, time.Time) {
	t := dateOf(y, time.January, 1, loc)
	return t, t.AddDate(1, 0, 0)
}

// weekOf is the Monday-to-Sunday week holding t.
func weekOf(t time.Time) (time.Time, time.Time) {
	from := weekStart(t)
	return from, from.AddDate(0, 0, 7)
}

// lastWeekend is the most recent Saturday–Sunday that ended before today
// (said on a Monday: the two days just gone).
func lastWeekend(today time.Time) (time.Time, time.Time) {
	back := (int(today.Weekday()) + 1) % 7 // days since the last Saturday
	if back < 2 {                          // Saturday or Sunday: the one before
		back += 7
	}
	sat := today.AddDate(0, 0, -back)
	return sat, sat.AddDate(0, 0, 2)
}

// nearestMonth places a month named without a year: dir < 0 the last such
// month before today's ("last May"), 0 the most recent one not after it
// ("in May"), > 0 the next one after it.
func nearestMonth(m time.Month, dir int, today time.Time) (time.Time, time.Time) {
	y := today.Year()
	switch {
	case dir < 0 && m >= today.Month():
		y--
	case dir == 0 && m > today.Month():
		y--
	case dir > 0 && m <= today.Month():
		y++
	}
	return monthOf(y, m, today.Location())
}

// monthPart narrows a month to the part a word names: early (days 1–10),
// mid (11–20), late (21 to the end); any other word keeps the month.
func monthPart(from, to time.Time, part string) (time.Time, time.Time) {
	switch {
	case part == "early" || strings.Contains(part, "start") || strings.Contains(part, "beginning"):
		return from, from.AddDate(0, 0, 10)
	case part == "mid" || strings.Contains(part, "middle"):
		return from.AddDate(0, 0, 10), from.AddDate(0, 0, 20)
	case part == "late" || strings.Contains(part, "end"):
		return from.AddDate(0, 0, 20), to
	}
	return from, to
}

// ago is the span around n units before (sign −1) or after (+1) today.
// People round, so it reaches either side of that day: "two weeks ago" is
// 8–20 days back, "two months ago" 20 days either side, a year 4 months.
func ago(n int, unit string, sign int, today time.Time) (time.Time, time.Time, bool) {
	if n <= 0 || n > 100 {
		return today, today, false
	}
	var mid time.Time
	var slack int // days either side
	switch unit {
	case "day":
		mid, slack = today.AddDate(0, 0, sign*n), max(1, n/4)
	case "week":
		mid, slack = today.AddDate(0, 0, sign*7*n), 2+2*n
	case "month":
		mid, slack = today.AddDate(0, sign*n, 0), 10+5*n
	case "year":
		mid, slack = today.AddDate(sign*n, 0, 0), 120
	default:
		return today, today, false
	}
	return mid.AddDate(0, 0, -slack), mid.AddDate(0, 0, slack+1), true
}

func unitOf(s string) string {
	switch {
	case strings.HasPrefix(s, "day"), s == "天", s == "日":
		return "day"
	case strings.HasPrefix(s, "week"), s == "周", s == "星期", s == "个星期", s == "礼拜", s == "个礼拜":
		return "week"
	case strings.HasPrefix(s, "month"), s == "个月", s == "月":
		return "month"
	case strings.HasPrefix(s, "year"), s == "年":
		return "year"
	}
	return ""
}

// cnYear maps 去年/今年/明年/前年 to a year offset.
func cnYear(s string) int {
	return map[string]int{"前年": -2, "去年": -1, "今年": 0, "明年": 1, "": 0}[s]
}

// relativeSpan places a word of relativeWords.
func relativeSpan(g []string, today time.Time) (time.Time, time.Time, bool) {
	period, ok := relativeWords()[g[0]]
	if !ok {
		return today, today, false
	}
	from, to := period(today)
	return from, to, true
}

// relativeWords are the words, in both languages, that name a day or a
// period by where it lies from today.
var relativeWords = sync.OnceValue(func() map[string]func(today time.Time) (time.Time, time.Time) {
	days := func(n int) func(time.Time) (time.Time, time.Time) {
		return func(t time.Time) (time.Time, time.Time) { d := t.AddDate(0, 0, n); return d, d.AddDate(0, 0, 1) }
	}
	weeks := func(n int) func(time.Time) (time.Time, time.Time) {
		return func(t time.Time) (time.Time, time.Time) { return weekOf(t.AddDate(0, 0, 7*n)) }
	}
	weekend := func(n int) func(time.Time) (time.Time, time.Time) {
		return func(t time.Time) (time.Time, time.Time) {
			f := weekStart(t.AddDate(0, 0, 7*n))
			return f.AddDate(0, 0, 5), f.AddDate(0, 0, 7)
		}
	}
	months := func(n int) func(time.Time) (time.Time, time.Time) {
		return func(t time.Time) (time.Time, time.Time) {
			return monthOf(t.Year(), t.Month()+time.Month(n), t.Location())
		}
	}
	years := func(n int) func(time.Time) (time.Time, time.Time) {
		return func(t time.Time) (time.Time, time.Time) { return yearOf(t.Year()+n, t.Location()) }
	}
	out := map[string]func(time.Time) (time.Time, time.Time){"last weekend": lastWeekend, "the weekend": lastWeekend,
		"上周末": lastWeekend, "上个周末": lastWeekend, "this weekend": weekend(0), "这周末": weekend(0), "next weekend": weekend(1)}
	for n, words := range map[int][]string{-3: {"大前天"}, -2: {"the day before yesterday", "前天"},
		-1: {"yesterday", "last night", "昨天", "昨晚"}, 0: {"today", "tonight", "今天"}, 1: {"tomorrow", "明天"}, 2: {"后天"}} {
		for _, w := range words {
			out[w] = days(n)
		}
	}
	for n, words := range map[int][]string{-2: {"上上周"}, -1: {"last week", "the other week", "上周", "上个星期", "上星期", "上礼拜"},
		0: {"this week", "这周", "本周"}, 1: {"next week", "下周"}} {
		for _, w := range words {
			out[w] = weeks(n)
		}
	}
	for n, words := range map[int][]string{-1: {"last month", "the other month", "上个月", "上月"}, 0: {"this month", "这个月", "本月"},
		1: {"next month", "下个月"}} {
		for _, w := range words {
			out[w] = months(n)
		}
	}
	for n, words := range map[int][]string{-2: {"前年"}, -1: {"last year", "the other year", "去年"}, 0: {"this year", "今年"},
		1: {"next year", "明年"}} {
		for _, w := range words {
			out[w] = years(n)
		}
	}
	return out
})

// spanRules are tried longest forms first; a place another rule took is
// not read again.
var spanRules = sync.OnceValue(func() []spanRule {
	return []spanRule{
		{ // ISO date, optionally "the week of"
			needles: []string{"-"},
			re:      regexp.MustCompile(`(the week of )?\b(\d{4})-(\d{1,2})-(\d{1,2})\b`),
			span: func(g []string, today time.Time) (time.Time, time.Time, bool) {
				y, _ := strconv.Atoi(g[2])
				m, _ := strconv.Atoi(g[3])
				d, _ := strconv.Atoi(g[4])
				loc := time.UTC
				if !today.IsZero() {
					loc = today.Location()
				}
				from, to, ok := dayOf(y, time.Month(m), d, loc)
				if ok && g[1] != "" {
					from, to = weekOf(from)
				}
				return from, to, ok
			},
		},
		{ // 2024年3月10日, 2024年3月, 2024年, 去年五月, 五月份, 三月十号
			needles: []string{"月", "年"},
			// a space may stand around the digits, as many write them ("2026 年 3 月")
			re: regexp.MustCompile(`(\d{4} ?年|去年|今年|明年|前年)? ?(?:([0-9]{1,2}|[一二三四五六七八九十]{1,3}) ?月份?(?:([0-9]{1,2}|[一二三四五六七八九十]{1,3}) ?[日号]|(初|上旬|中旬|下旬|底|末))?)|(\d{4} ?年)`),
			span: func(g []string, today time.Time) (time.Time, time.Time, bool) {
				loc := time.UTC
				if !today.IsZero() {
					loc = today.Location()
				}
				if g[5] != "" { // a year on its own
					g = []string{g[0], g[5], "", "", ""}
				}
				year, hasYear := 0, false
				switch {
				case strings.HasSuffix(g[1], "年") && len(g[1]) > 3 && g[1][0] >= '0' && g[1][0] <= '9':
					year, _ = strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(g[1], "年")))
					hasYear = true
				case g[1] != "":
					if today.IsZero() {
						return today, today, false
					}
					year, hasYear = today.Year()+cnYear(g[1]), true
				}
				if g[2] == "" {
					if !hasYear {
						return today, today, false
					}
					from, to := yearOf(year, loc)
					return from, to, true
				}
				m, ok := zhNumber(g[2])
				if !ok || m < 1 || m > 12 {
					return today, today, false
				}
				var from, to time.Time
				if hasYear {
					from, to = monthOf(year, time.Month(m), loc)
				} else {
					if today.IsZero() {
						return today, today, false
					}
					from, to = nearestMonth(time.Month(m), 0, today)
				}
				if g[3] != "" {
					d, ok := zhNumber(g[3])
					if !ok {
						return today, today, false
					}
					return dayOf(from.Year(), from.Month(), d, loc)
				}
				from, to = monthPart(from, to, map[string]string{"初": "early", "上旬": "early", "中旬": "mid", "下旬": "late", "底": "late", "末": "late"}[g[4]])
				return from, to, true
			},
		},
		{ // N天前, 两周前, 三个月前, 半年前, 两天后
			needles:  []string{"前", "后"},
			re:       regexp.MustCompile(`([0-9]{1,2}|[一二两三四五六七八九十半]{1,3})(天|日|周|个星期|星期|个礼拜|礼拜|个月|年)(前|以前|之前|后|以后|之后)`),
			relative: true,
			span: func(g []string, today time.Time) (time.Time, time.Time, bool) {
				unit := unitOf(g[2])
				n, ok := zhNumber(g[1])
				if g[1] == "半" {
					switch unit {
					case "year":
						n, unit, ok = 6, "month", true
					case "month":
						n, unit, ok = 2, "week", true
					}
				}
				if !ok {
					return today, today, false
				}
				sign := -1
				if strings.HasSuffix(g[3], "后") {
					sign = 1
				}
				return ago(n, unit, sign, today)
			},
		},
		{ // 昨天, 前天, 上周, 上周末, 上个月, 去年, …
			needles:  []string{"天", "晚", "周", "星期", "礼拜", "月", "年"},
			re:       regexp.MustCompile(`大前天|前天|昨天|昨晚|今天|明天|后天|上上周|上周末|上个周末|这周末|上周|上个星期|上星期|上礼拜|这周|本周|下周|上个月|上月|这个月|本月|下个月|去年|前年|今年|明年`),
			relative: true,
			span:     relativeSpan,
		},
		{ // March 3, March 3rd 2024, 3 March, the 3rd of March
			needles: monthStarts,
			re:      regexp.MustCompile(`\b(?:(` + monthAlt + `)\.? (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?|(\d{1,2})(?:st|nd|rd|th)? (?:of )?(` + monthAlt + `)(?:,? (\d{4}))?)\b`),
			span: func(g []string, today time.Time) (time.Time, time.Time, bool) {
				mn, ds, ys := g[1], g[2], g[3]
				if mn == "" {
					mn, ds, ys = g[5], g[4], g[6]
				}
				m := monthNames[mn]
				d, _ := strconv.Atoi(ds)
				loc := time.UTC
				if !today.IsZero() {
					loc = today.Location()
				}
				if ys != "" {
					y, _ := strconv.Atoi(ys)
					return dayOf(y, m, d, loc)
				}
				if today.IsZero() {
					return today, today, false
				}
				from, _ := nearestMonth(m, 0, today)
				return dayOf(from.Year(), m, d, loc)
			},
		},
		{ // (in|last|this|next|early|late) May (2024)
			needles: monthStarts,
			re:      regexp.MustCompile(`\b(?:(in|during|of|since|until|by|last|this|next)\s+)?(?:(early|mid|late|the start of|the beginning of|the middle of|the end of|start of|end of)[\s-]+)?(` + monthAlt + `)\b(?:,?\s+(\d{4})\b)?`),
			ok: func(text string, a, b int, g []string) bool {
				if g[3] == "may" || len(g[3]) <= 4 && g[3] != "june" && g[3] != "july" {
					// an abbreviation or "may": only with a preposition or a year,
					// and "may" only capitalised
					if g[1] == "" && g[2] == "" && g[4] == "" {
						return false
					}
					if g[3] == "may" && !strings.Contains(text[a:b], "May") {
						return false
					}
				}
				return true
			},
			span: func(g []string, today time.Time) (time.Time, time.Time, bool) {
				m := monthNames[g[3]]
				loc := time.UTC
				if !today.IsZero() {
					loc = today.Location()
				}
				if g[4] != "" {
					y, _ := strconv.Atoi(g[4])
					f, t := monthOf(y, m, loc)
					from, to := monthPart(f, t, g[2])
					return from, to, true
				}
				if today.IsZero() {
					return today, today, false
				}
				dir := 0
				switch g[1] {
				case "last":
					dir = -1
				case "next":
					dir = 1
				case "this":
					if m > today.Month() {
						dir = 1
					}
				}
				f, t := nearestMonth(m, dir, today)
				from, to := monthPart(f, t, g[2])
				return from, to, true
			},
		},
		{ // in 2023, 2024 (a year on its own)
			needles: []string{"19", "20"},
			re:      regexp.MustCompile(`\b((?:19|20)\d{2})\b`),
			span: func(g []string, today time.Time) (time.Time, time.Time, bool) {
				y, _ := strconv.Atoi(g[1])
				loc := time.UTC
				if !today.IsZero() {
					loc = today.Location()
				}
				from, to := yearOf(y, loc)
				return from, to, true
			},
		},
		{ // two weeks ago, a few days ago, 3 months ago, in two weeks
			needles:  []string{"ago", "back", "before", "earlier", "later", "in "},
			re:       regexp.MustCompile(`\b(?:(\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple(?: of)?|a few|several) (days?|weeks?|months?|years?) (ago|back|before|earlier|later)|in (\d{1,2}|an?|one|two|three|four|five|six|a couple of|a few) (days?|weeks?|months?|years?))\b`),
			relative: true,
			span: func(g []string, today time.Time) (time.Time, time.Time, bool) {
				if g[1] != "" {
					n, ok := enCount(g[1])
					if !ok {
						return today, today, false
					}
					sign := -1
					if g[3] == "later" {
						sign = 1
					}
					return ago(n, unitOf(g[2]), sign, today)
				}
				n, ok := enCount(g[4])
				if !ok {
					return today, today, false
				}
				return ago(n, unitOf(g[5]), 1, today)
			},
		},
		{ // yesterday, last night, last weekend, last week, this month, last year, …
			needles:  []string{"yesterday", "last night", "tonight", "today", "tomorrow", "weekend", "last ", "this ", "next ", "other "},
			re:       regexp.MustCompile(`\b(?:the day before yesterday|yesterday|last night|tonight|today|tomorrow|(?:last|this|next|the other) (?:weekend|week|month|year)|the weekend)\b`),
			relative: true,
			span:     relativeSpan,
		},
	}
})
