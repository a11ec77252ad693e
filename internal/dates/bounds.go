package dates

import (
	"strings"
	"time"
	"unicode"

	"github.com/somni-dev/somni/internal/textseg"
)

// Bound is an open-ended stretch of days a text limits itself to: "before
// March 2026", "2026 年 3 月以前", "since last May", "去年十一月起". Since is
// the first day's midnight, Until the midnight after the last day (so an
// entry of day d is inside when Since <= d < Until); a zero one is open.
type Bound struct {
	Since, Until time.Time
	Text         string // the span's words, as FindSpans read them
}

// boundWord is a word that turns a span into a bound, and which end of the
// span the bound starts or stops at.
type boundWord struct {
	word string
	// since: the bound runs from the span on (else up to it); atEnd: from or
	// up to the span's end (its To), else its start (its From)
	since, atEnd bool
}

// Bound words before a span ("before March", "since 2024") and after it
// ("3 月以前", "去年以来", "2024 or later"), longest first where one word
// begins another.
var (
	// "开始" after a day is mostly the verb ("我昨天开始看…"); "up to",
	// "through" and "from" are left out: "what was she up to
	// last May", "went through March", "photos from last May" name the
	// period itself
	boundsBefore = []boundWord{
		{"prior to", false, false}, {"earlier than", false, false}, {"before", false, false},
		{"until", false, true}, {"till", false, true},
		{"later than", true, true}, {"after", true, true}, {"since", true, false},
	}
	boundsAfter = []boundWord{
		{"以前", false, false}, {"之前", false, false}, {"前", false, false}, {"or earlier", false, true},
		{"为止", false, true},
		{"以后", true, true}, {"之后", true, true}, {"后", true, true},
		{"以来", true, false}, {"起", true, false}, {"onwards", true, false},
		{"onward", true, false}, {"or later", true, false},
	}
)

// FindBounds splits the spans FindSpans reads in text into bounds (a span
// with a bound word before or after it) and the spans left, which name the
// days asked about. A recall query bounded so ("只看 2026 年 3 月以前…")
// asks to leave out what lies outside the bound, not about the day it
// names.
func FindBounds(text string, ref time.Time) (bounds []Bound, rest []Span) {
	lower := textseg.FoldString(strings.ToLower(text))
	for _, s := range FindSpans(text, ref) {
		a, b := s.Start, s.End
		w, ok := boundAt(lower[:a], lower[b:])
		if !ok {
			w, ok = leadingBound(lower[a:b])
		}
		if !ok || nearDay(s) {
			rest = append(rest, s)
			continue
		}
		bd := Bound{Text: s.Text}
		edge := s.From
		if w.atEnd {
			edge = s.To
		}
		if w.since {
			bd.Since = edge
		} else {
			bd.Until = edge
		}
		bounds = append(bounds, bd)
	}
	return bounds, rest
}

// boundAt finds the bound word that ends before (the text before a span)
// or starts after (the text after it), at a word boundary.
func boundAt(before, after string) (boundWord, bool) {
	before = strings.TrimRightFunc(before, unicode.IsSpace)
	after = strings.TrimLeftFunc(after, unicode.IsSpace)
	for _, w := range boundsAfter {
		if strings.HasPrefix(after, w.word) && wordEnds(after[len(w.word):], w.word) {
			return w, true
		}
	}
	for _, w := range boundsBefore {
		if strings.HasSuffix(before, w.word) && wordStarts(before[:len(before)-len(w.word)], w.word) {
			return w, true
		}
	}
	return boundWord{}, false
}

// nearDay reports whether a span is one day named relative to today
// ("tomorrow", "昨天"): "after tomorrow's exam", "昨天起床" and "the day
// before yesterday" are about that day, not a limit; a bound is a month,
// a year or a date written out.
func nearDay(s Span) bool {
	if s.To.Sub(s.From) > 26*time.Hour {
		return false
	}
	return !strings.ContainsAny(s.Text, "0123456789")
}

// leadingBound finds a bound word a span's own words begin with: a date
// rule may read "until june 2025" whole.
func leadingBound(span string) (boundWord, bool) {
	for _, w := range boundsBefore {
		if strings.HasPrefix(span, w.word+" ") {
			return w, true
		}
	}
	return boundWord{}, false
}

// wordEnds reports whether a Latin bound word is not the start of a longer
// word (rest is what follows it); a Chinese one needs no boundary.
func wordEnds(rest, word string) bool {
	if !isLatin(word) || rest == "" {
		return true
	}
	return !wordByte(rest[0])
}

// wordStarts is wordEnds for the text before a bound word.
func wordStarts(head, word string) bool {
	if !isLatin(word) || head == "" {
		return true
	}
	return !wordByte(head[len(head)-1])
}

func isLatin(w string) bool { return w != "" && w[0] < 0x80 }
