// Package dates turns what people say about a day ("tomorrow", "next
// friday", "in 3 days", "end of month", "下周五", "三天后", 2026-12-24) into a
// calendar date, and says what today is. It is the one home of the date and
// time layouts memory files, session logs and recall use, and of reading the
// times people and older writers put in them (layouts.go: Layout, TimeLayout,
// MinuteLayout, ParseTime, IsDate).
//
// English phrases and most Chinese ones go to github.com/olebedev/when; a
// few rules of our own cover what it gets wrong or lacks: days written out
// with their numbers (its rules read "2026-12-24" as the time 12:24, and
// know no slashes, no year after a month name and no 12月24日), period
// ends ("end of month", "月底"), Chinese weeks (its 下周X counts weeks from
// Sunday, so "下周五" said on a Sunday lands two Fridays out), month steps
// (its month arithmetic does not carry the year), and Chinese "N天前/N个月
// 后". Whatever form named it, a day is built in one checked place
// (calendar.go): one that does not exist ("Dec 32", 2027-02-30, 二月三十日)
// is an error saying so, never the day time.Date would carry it into, and
// every day is held to one bound of years from today.
//
// Files, by job:
//
//	dates.go    Resolve, Today, Format: a phrase about one day → a date in the user's zone; the
//	            English and Chinese rules of olebedev/when, set up on first use
//	written.go  days written out with their numbers: ISO, slashes, dots, month names, 12月24日
//	calendar.go dayAt, the one checked way from numbers to a day; the bound from today
//	spans.go    FindSpans: the dates and periods a text names, for date-bounded recall
//	bounds.go   FindBounds: the spans a text limits itself by ("before March 2026", "2026 年 3 月以前")
//	days.go     Days: calendar-day runs a dated text is about (TextDays) or a question asks about
//	            and is bounded by (QueryDays), and how they meet (InBounds, AnyIn, AnyWithin)
//	question.go ReadQuestion: what a search's question says about time, and its words without its dates
//	layouts.go  the layouts and reading times back
//	zone.go     LoadZone, MachineZone: the user's time zone
package dates

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/olebedev/when/rules"
	"github.com/olebedev/when/rules/en"
	"github.com/olebedev/when/rules/zh"

	"github.com/somni-dev/somni/internal/lazyre"
	"github.com/somni-dev/somni/internal/textseg"
)

// Accepted lists example forms, for tool descriptions and error messages.
const Accepted = `YYYY-MM-DD, "today", "tomorrow", "friday", "next friday", "in 3 days", "2 weeks ago", "Dec 24", "end of month", "明天", "下周五", "三天后", "三天前", "月底", "12月24日"`

// Error is a phrase that is not a date; Unknown is the part not understood,
// or Reason says why a phrase that was understood names no usable day.
type Error struct {
	Input   string
	Unknown string
	Reason  string
}

func (e *Error) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("%q: %s", e.Input, e.Reason)
	}
	if e.Unknown != "" && e.Unknown != e.Input {
		return fmt.Sprintf("did not understand %q in %q; use %s", e.Unknown, e.Input, Accepted)
	}
	return fmt.Sprintf("did not understand %q as a date; use %s", e.Input, Accepted)
}

// Resolve returns the calendar day phrase names, as midnight in now's
// location (the user's zone: "tomorrow" is relative to their calendar, not
// UTC's). The phrase must be a date as a whole: "next friday" is, "next
// friday or so" is an *Error naming " or so"; small words like "on", "by",
// "before" around it are ignored. A day that does not exist ("Dec 32",
// 2027-02-30, 二月三十日) and one further than maxYearsAway from today are
// an *Error whose Reason says so, in every form.
func Resolve(phrase string, now time.Time) (time.Time, error) {
	in := strings.TrimSpace(phrase)
	s := normalize(in)
	if s == "" {
		return time.Time{}, &Error{Input: in}
	}
	t, err := resolve(in, s, now)
	if err != nil {
		return time.Time{}, err
	}
	if r := tooFar(t, now); r != "" {
		return time.Time{}, &Error{Input: in, Reason: r}
	}
	return t, nil
}

// Relative amounts are bounded before any arithmetic: the library moves by
// time.Duration, which wraps after 292 years ("in 99999999999 days" came
// out as 2224-10-18).
const (
	maxRelativeDays   = maxDaysAway
	amountUnitPattern = `(minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|fortnights?|months?|years?|yrs?|分钟|小时|个?钟头|天|日|周|星期|个?礼拜|个?月|年)`
)

// amountRe is a number of some unit of time ("99999999999 days", "3周").
var amountRe = lazyre.New(`(\d+)\s*` + amountUnitPattern)

// unitDays is how many days one of a unit spans, at most.
func unitDays(unit string) float64 {
	unit = strings.TrimPrefix(unit, "个")
	switch {
	case strings.HasPrefix(unit, "min"), unit == "分钟":
		return 1.0 / 1440
	case strings.HasPrefix(unit, "h"), unit == "小时", unit == "钟头":
		return 1.0 / 24
	case strings.HasPrefix(unit, "d"), unit == "天", unit == "日":
		return 1
	case strings.HasPrefix(unit, "w"), unit == "周", unit == "星期", unit == "礼拜":
		return 7
	case strings.HasPrefix(unit, "f"):
		return 14
	case strings.HasPrefix(unit, "mo"), unit == "月":
		return 31
	default: // years
		return 366
	}
}

// checkAmounts refuses a phrase that moves further than maxYearsAway.
func checkAmounts(in, s string) error {
	for _, m := range amountRe().FindAllStringSubmatch(s, -1) {
		n, err := strconv.ParseFloat(m[1], 64) // no overflow: 1e30 is just large
		if err == nil && n*unitDays(m[2]) <= maxRelativeDays {
			continue
		}
		return &Error{Input: in, Reason: fmt.Sprintf("%q is too far: a date at most %d years either way", m[0], maxYearsAway)}
	}
	return nil
}

// resolve is Resolve without the bound from today.
func resolve(in, s string, now time.Time) (time.Time, error) {
	// The day's noon as the reference: relative phrases move in whole days,
	// and from noon a daylight-saving jump can never tip them into the
	// neighbouring date, as it can from 23:30.
	y, m, d := now.Date()
	ref, _ := dayAt(y, m, d, 12, now.Location())
	// Written-out days first: the year of 2027年2月28日 is no amount of years.
	t, ok, err := writtenDay(in, s, ref)
	if err != nil {
		return time.Time{}, err
	}
	if ok {
		return midnight(t), nil
	}
	if err := checkAmounts(in, s); err != nil {
		return time.Time{}, err
	}
	if t, ok, err := ownRules(s, ref); ok || err != nil {
		if err != nil {
			return time.Time{}, err
		}
		return midnight(t), nil
	}
	t, rest, reason, ok := library(s, ref)
	if !ok {
		return time.Time{}, &Error{Input: in}
	}
	if rest = strings.TrimSpace(stripFillers(rest)); rest != "" {
		return time.Time{}, &Error{Input: in, Unknown: rest}
	}
	if reason != "" {
		return time.Time{}, &Error{Input: in, Reason: reason}
	}
	return midnight(t), nil
}

// Format writes t as YYYY-MM-DD.
func Format(t time.Time) string { return t.Format(Layout) }

// Today is the one-line statement of the date for a system prompt:
// "Tuesday, 2026-12-01 (Europe/Berlin, UTC+01:00)".
func Today(now time.Time) string {
	return fmt.Sprintf("%s, %s (%s)", now.Weekday(), Format(now), ZoneLabel(now))
}

// ZoneLabel names now's zone and offset: "Europe/Berlin, UTC+01:00"; a zone
// without an IANA name ("Local" on a machine whose zone we could not name)
// shows its abbreviation instead.
func ZoneLabel(now time.Time) string {
	abbr, off := now.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	utc := fmt.Sprintf("UTC%c%02d:%02d", sign, off/3600, off%3600/60)
	name := now.Location().String()
	if name == "Local" || name == "" {
		name = abbr
	}
	if off == 0 && (name == "UTC" || name == "Etc/UTC" || name == "UCT" || name == "Zulu" || name == "Etc/Zulu") {
		return "UTC"
	}
	if name == "" || strings.HasPrefix(name, "+") || strings.HasPrefix(name, "-") {
		return utc
	}
	return name + ", " + utc
}

func midnight(t time.Time) time.Time {
	y, m, d := t.Date()
	return dateOf(y, m, d, t.Location())
}

// fillers are words around a date that do not change it ("due on friday",
// "by tomorrow", "下周五之前").
var fillerRe = lazyre.New(`(?i)^(?:(?:on|by|before|until|till|due|at|the|around)\s+|在|到|于)+|(?:之前|以前)$`)

// zhClockRe is a Chinese time of day after the date ("明天下午三点",
// "周五上午10点半"). A date has no time, so it is dropped; when's own
// Chinese time rules are left out because they panic (see parser).
var zhClockRe = lazyre.New(`(?:上午|下午|晚上|早上|中午|凌晨|傍晚)?(?:[零一二两三四五六七八九十0-9]{1,3}[点點时](?:半|[零一二三四五六七八九十0-9]{1,3}分?)?)?$`)

func stripFillers(s string) string {
	s = strings.TrimSpace(s)
	for {
		t := strings.TrimSpace(fillerRe().ReplaceAllString(s, ""))
		if u := zhClockRe().ReplaceAllString(t, ""); u != "" {
			t = strings.TrimSpace(u)
		}
		if t == s {
			return s
		}
		s = t
	}
}

// normalize lowercases, folds spaces and drops fillers and trailing
// punctuation, so the anchored rules below see just the date words.
func normalize(s string) string {
	s = textseg.FoldString(strings.ToLower(strings.Join(strings.Fields(s), " ")))
	s = strings.TrimRight(s, ".。!！?？,，;；")
	return stripFillers(s)
}

var (
	monthEndRe = lazyre.New(`^(?:(?:the )?end of (?:the |this )?month|eom|月底|月末|本月底|本月末|这个月底|这个月末)$`)
	nextMEndRe = lazyre.New(`^(?:(?:the )?end of next month|下个?月底|下个?月末)$`)
	yearEndRe  = lazyre.New(`^(?:(?:the )?end of (?:the |this )?year|eoy|年底|年末|今年底|今年年底)$`)
	// 周五, 下周五, 上星期一, 这个礼拜天, 下下周三; also a bare 下周 (its Monday).
	zhWeekRe = lazyre.New(`^(上上|上|这|本|下下|下)?个?(?:周|星期|礼拜)([一二三四五六日天1-7])?$`)
	enWeekRe = lazyre.New(`^(last|this|next) week$`)
	// 三天前, 2周后, 两个月以后, 十天之前.
	zhRelRe = lazyre.New(`^([0-9]{1,3}|[零一二两三四五六七八九十]{1,3})\s*(天|日|周|星期|个?礼拜|个?月|年)(前|以前|之前|后|以后|之后)$`)
	// Month steps are ours: when's month arithmetic wraps modulo 12 without
	// carrying the year ("in 1 month" said in December gives January of the
	// same year).
	enMonthsRe = lazyre.New(`^(?:in (\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) months?|(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) months? ago|(next|last) month)$`)
	zhMonthRe  = lazyre.New(`^(下下|上上|下|上)个?月$`)
)

var zhWeekday = map[string]int{"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7,
	"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7}

// ownRules resolves the phrases the library does not (or not correctly);
// ok is false when none applies.
func ownRules(s string, ref time.Time) (time.Time, bool, error) {
	y, m, _ := ref.Date()
	loc := ref.Location()
	switch {
	case monthEndRe().MatchString(s):
		return monthEnd(y, m, loc), true, nil
	case nextMEndRe().MatchString(s):
		ny, nm := monthStep(y, m, 1)
		return monthEnd(ny, nm, loc), true, nil
	case yearEndRe().MatchString(s):
		return monthEnd(y, time.December, loc), true, nil
	}
	if g := enWeekRe().FindStringSubmatch(s); g != nil {
		// A week as a date is its Monday: the start of a search range, and
		// the first day a "next week" reminder is due.
		return weekStart(ref).AddDate(0, 0, map[string]int{"last": -7, "this": 0, "next": 7}[g[1]]), true, nil
	}
	if g := zhWeekRe().FindStringSubmatch(s); g != nil {
		monday := weekStart(ref)
		if g[2] == "" { // 下周, 上周, 本周: the week's Monday
			if g[1] == "" {
				return time.Time{}, false, nil
			}
			return monday.AddDate(0, 0, 7*zhWeekShift[g[1]]), true, nil
		}
		wd := zhWeekday[g[2]]
		if g[1] == "" {
			// A bare 周五 is the coming one, today included.
			return ref.AddDate(0, 0, (wd-isoWeekday(ref)+7)%7), true, nil
		}
		// Chinese weeks run Monday to Sunday: 下周五 is the Friday of the
		// week after this one, whatever today is.
		return monday.AddDate(0, 0, 7*zhWeekShift[g[1]]+wd-1), true, nil
	}
	if g := zhRelRe().FindStringSubmatch(s); g != nil {
		n, ok := zhNumber(g[1])
		if !ok {
			return time.Time{}, false, nil
		}
		if strings.HasSuffix(g[3], "前") {
			n = -n
		}
		switch unit := strings.TrimPrefix(g[2], "个"); unit {
		case "天", "日":
			return ref.AddDate(0, 0, n), true, nil
		case "周", "星期", "礼拜":
			return ref.AddDate(0, 0, 7*n), true, nil
		case "月":
			return addMonths(ref, n), true, nil
		default: // 年
			return addMonths(ref, 12*n), true, nil
		}
	}
	if g := zhMonthRe().FindStringSubmatch(s); g != nil {
		return addMonths(ref, map[string]int{"下下": 2, "下": 1, "上": -1, "上上": -2}[g[1]]), true, nil
	}
	if g := enMonthsRe().FindStringSubmatch(s); g != nil {
		switch {
		case g[1] != "":
			return addMonths(ref, enNumber(g[1])), true, nil
		case g[2] != "":
			return addMonths(ref, -enNumber(g[2])), true, nil
		case g[3] == "next":
			return addMonths(ref, 1), true, nil
		default:
			return addMonths(ref, -1), true, nil
		}
	}
	return time.Time{}, false, nil
}

// addMonths moves n calendar months, keeping the day of month where it
// exists and the month's last day where it does not: a month after
// January 31st is February 28th, not March 3rd.
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	y, m = monthStep(y, m, n)
	t, _ = dayAt(y, m, min(d, daysIn(y, m)), 12, t.Location())
	return t
}

// monthEnd is the last day of y-m, at noon.
func monthEnd(y int, m time.Month, loc *time.Location) time.Time {
	t, _ := dayAt(y, m, daysIn(y, m), 12, loc)
	return t
}

// enNumber reads "3", "a", "an" or a number word up to twelve.
func enNumber(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	if s == "a" || s == "an" {
		return 1
	}
	return en.INTEGER_WORDS[s]
}

var zhWeekShift = map[string]int{"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1, "下下": 2}

// isoWeekday is Monday=1 … Sunday=7.
func isoWeekday(t time.Time) int {
	if wd := int(t.Weekday()); wd != 0 {
		return wd
	}
	return 7
}

// weekStart is the Monday of t's week (weeks run Monday to Sunday, ISO 8601).
func weekStart(t time.Time) time.Time { return t.AddDate(0, 0, 1-isoWeekday(t)) }

// zhNumber reads 1–999 written in digits or as Chinese numerals up to 九十九.
func zhNumber(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, n > 0
	}
	if n, ok := zh.INTEGER_WORDS[s]; ok && n > 0 {
		return n, true
	}
	// 二十四 and the like beyond the library's table: tens 十 units.
	digits := map[rune]int{'一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	r := []rune(s)
	if len(r) == 3 && r[1] == '十' && digits[r[0]] > 0 && digits[r[2]] > 0 {
		return 10*digits[r[0]] + digits[r[2]], true
	}
	return 0, false
}

// parser is built once, on first use: when's English rules and the two
// Chinese ones, without the root package, whose import sets up Russian,
// Portuguese and Dutch rules at start-up, a cost of every start
// (GODEBUG=inittrace=1; measured in docs/ARCHITECTURE.md, Measurements). Its rules are safe for
// concurrent Find calls.
var parser = sync.OnceValue(func() *whenParser {
	p := &whenParser{opts: &rules.Options{Distance: 5, Afternoon: 15, Evening: 18, Morning: 8, Noon: 12}}
	p.rules = append(p.rules, en.All...)
	// Not zh.All: in v1.1.0 its time-of-day rules panic on most text (an
	// all-optional pattern matches empty and is sliced at -1), and its
	// weekday rule counts weeks from Sunday; ownRules covers weeks.
	p.rules = append(p.rules, zh.CasualDate(rules.Override), zh.AfterTime(rules.Override))
	return p
})

// whenParser is when.Parser's Parse (olebedev/when v1.1.0, Apache-2.0)
// over the rules above: the first cluster of matches no further than
// Distance apart, each applied in turn to the reference time.
type whenParser struct {
	opts  *rules.Options
	rules []rules.Rule
}

// whenResult is where the phrase when understood starts, the phrase, and
// the time it names.
type whenResult struct {
	Index int
	Text  string
	Time  time.Time
}

// Parse returns nil when no rule matches or none applies.
func (p *whenParser) Parse(text string, base time.Time) (*whenResult, error) {
	ctx, start, err := p.match(text, base)
	if err != nil || ctx == nil {
		return nil, err
	}
	t, err := ctx.Time(base)
	if err != nil {
		return nil, fmt.Errorf("dates: bind %q: %w", ctx.Text, err)
	}
	return &whenResult{Index: start, Text: ctx.Text, Time: t}, nil
}

// match is Parse up to the time: what the rules said, and where the words
// they read start; a nil context when no rule matches or none applies.
func (p *whenParser) match(text string, base time.Time) (*rules.Context, int, error) {
	var matches []*rules.Match
	for _, rule := range p.rules {
		if m := rule.Find(text); m != nil {
			m.Order = float64(len(matches))
			matches = append(matches, m)
		}
	}
	if len(matches) == 0 {
		return nil, 0, nil
	}
	sort.Sort(rules.MatchByIndex(matches))
	start, end := matches[0].Left, matches[0].Right
	for i, m := range matches {
		if m.Left > end+p.opts.Distance {
			matches = matches[:i]
			break
		}
		end = m.Right
	}
	ctx := &rules.Context{Text: text[start:end]}
	applied := false
	for _, m := range matches {
		ok, err := m.Apply(ctx, p.opts, base)
		if err != nil {
			return nil, 0, fmt.Errorf("dates: apply %q: %w", ctx.Text, err)
		}
		applied = ok || applied
	}
	if !applied {
		return nil, 0, nil
	}
	return ctx, start, nil
}

// contextDay is the day the library's rules name, at noon: what
// rules.Context.Time does, but through dayAt, so that a day no month has
// ("thirty-first of february", 下个月31号 said in January) is the reason
// there is none instead of a day in the month after. A month or year set
// without a day keeps ref's day where the month has it and its last day
// where not, as addMonths does.
func contextDay(c *rules.Context, ref time.Time) (time.Time, string) {
	loc := ref.Location()
	y, m, d := ref.Add(c.Duration).Date()
	if c.Year != nil {
		y = *c.Year
	}
	if c.Month != nil {
		// The rules' month arithmetic (下个月 said in December is month
		// 13) carries into the next year, as time.Date would.
		y, m = monthStep(y, time.January, *c.Month-1)
	}
	if c.Weekday != nil {
		t, _ := dayAt(y, m, min(d, daysIn(y, m)), 12, loc)
		y, m, d = t.AddDate(0, 0, *c.Weekday-int(t.Weekday())).Date()
	}
	if c.Day != nil {
		if r := noSuchDay(y, m, *c.Day, c.Year != nil); r != "" {
			return time.Time{}, r
		}
		d = *c.Day
	}
	t, _ := dayAt(y, m, min(d, daysIn(y, m)), 12, loc)
	return t, ""
}

// library asks when; rest is the input outside the matched phrase, reason
// why the phrase it matched names no day.
func library(s string, ref time.Time) (t time.Time, rest, reason string, ok bool) {
	defer func() {
		// A rule's bug must be a "not understood", never a crashed tool call.
		if r := recover(); r != nil {
			ok = false
		}
	}()
	ctx, start, err := parser().match(s, ref)
	if err != nil || ctx == nil {
		return time.Time{}, "", "", false
	}
	rest = s[:start] + " " + s[start+len(ctx.Text):]
	t, reason = contextDay(ctx, ref)
	return t, rest, reason, true
}
