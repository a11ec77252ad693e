package redact

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A secret that was quoted before it reached Text ({"auth": "…"} inside a JSON string, a tool call's
// arguments after JSON encoding, a YAML double-quoted value) reads as \"auth\": \"…\": the rules
// expect a quote where a backslash stands. Text therefore also reads an unescaped view of such text
// and replaces each finding at the escaped bytes it came from.

// maxUnescapeDepth is how many layers of quoting are read through: a JSON string inside a tool
// call's JSON arguments is two; a third is rare and costs another pass.
const maxUnescapeDepth = 3

// hasEscape reports a backslash escape a JSON or YAML string writer produces.
func hasEscape(text string) bool {
	for off := 0; ; {
		i := strings.IndexByte(text[off:], '\\')
		if i < 0 || off+i+1 >= len(text) {
			return false
		}
		off += i + 1
		switch text[off] {
		case '"', '\\', '/', 'n', 't', 'r', 'u', '\'':
			return true
		}
	}
}

// escapedView is text with its string escapes decoded. For each byte of view, from[i] is the offset
// in text where the escape (or plain byte) that produced it starts and to[i] where it ends.
type escapedView struct {
	view     string
	from, to []int
}

func unescapeView(text string) escapedView {
	var b strings.Builder
	b.Grow(len(text))
	from := make([]int, 0, len(text))
	to := make([]int, 0, len(text))
	emit := func(s string, start, end int) {
		b.WriteString(s)
		for range len(s) {
			from = append(from, start)
			to = append(to, end)
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c != '\\' || i+1 == len(text) {
			emit(text[i:i+1], i, i+1)
			i++
			continue
		}
		switch e := text[i+1]; e {
		case '"', '\\', '/', '\'':
			emit(string(e), i, i+2)
		case 'n':
			emit("\n", i, i+2)
		case 't':
			emit("\t", i, i+2)
		case 'r':
			emit("\r", i, i+2)
		case 'u':
			if r, ok := hex4(text, i+2); ok {
				emit(string(r), i, i+6)
				i += 6
				continue
			}
			emit(`\`, i, i+1)
			i++
			continue
		default:
			emit(`\`, i, i+1)
			i++
			continue
		}
		i += 2
	}
	return escapedView{view: b.String(), from: from, to: to}
}

// hex4 decodes the four hex digits of a \u escape; surrogate halves stay escaped (no secret format
// needs them, and a lone half is not valid UTF-8).
func hex4(text string, at int) (rune, bool) {
	if at+4 > len(text) {
		return 0, false
	}
	n, err := strconv.ParseUint(text[at:at+4], 16, 32)
	r := rune(n)
	if err != nil || !utf8.ValidRune(r) {
		return 0, false
	}
	return r, true
}

// spansIn maps spans found in the view back onto the escaped text.
func (v escapedView) spansIn(spans []span) []span {
	out := make([]span, 0, len(spans))
	for _, s := range spans {
		if s.start >= s.end || s.end > len(v.from) {
			continue
		}
		out = append(out, span{v.from[s.start], v.to[s.end-1]})
	}
	return out
}
