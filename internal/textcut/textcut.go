// Package textcut is the one place text is cut to a budget, flattened
// onto one line or cleared of invisible characters (Visible): prompts and
// tool answers, session-log records, file names, protocol and error messages. Each caller keeps its own marker ("…", " …",
// none) as an argument, so output stays what it was while the cutting rule
// lives here once. It is not presentation to the model (package present
// owns that, and cuts through here like every other caller): most of its
// callers bound what is stored, logged or sent to a peer.
package textcut

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prefix returns the first n runes of s and whether that cut anything. It
// walks s rather than converting it to runes, so a 10 MB paste costs n runes,
// and never cuts inside a UTF-8 sequence. Every clipper with its own marker
// (queries, captured messages, prompt text) cuts with it.
func Prefix(s string, n int) (string, bool) {
	if len(s) <= n { // bytes bound runes
		return s, false
	}
	seen := 0
	for i := range s {
		if seen == n {
			return s[:i], true
		}
		seen++
	}
	return s, false
}

// Clip returns s cut to n runes with marker appended when the cut removed
// something; n ≤ 0 keeps s whole (a computed budget that ran out must not
// erase the text). A marker that starts with a space (" …") is meant to
// stand one space from the last word, so the kept head is trimmed of
// surrounding whitespace first and never reads "word  …".
func Clip(s string, n int, marker string) string {
	if n <= 0 {
		return s
	}
	head, cut := Prefix(s, n)
	if !cut {
		return s
	}
	if strings.HasPrefix(marker, " ") {
		head = strings.TrimSpace(head)
	}
	return head + marker
}

// ClipBytes returns s cut to at most n bytes, backing up to a rune start so
// no UTF-8 sequence is split, with marker appended when the cut removed
// something. It bounds what an error message echoes of a caller's input,
// where the limit is a frame size in bytes rather than characters.
func ClipBytes(s string, n int, marker string) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + marker
}

// ClipMiddle keeps the first half and the last third of s within about n
// bytes, joined by sep and cut on rune boundaries: a long error names both
// what it was about (the head) and why it failed (the tail).
func ClipMiddle(s string, n int, sep string) string {
	if len(s) <= n {
		return s
	}
	head, tail := n/2, len(s)-n/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + sep + s[tail:]
}

// OneLine folds every whitespace run (newlines included) into one space and
// trims the ends, so a multi-line field reads as one line of a list.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// newlineMark shows where a folded line break was, so a record stays one
// line yet the reader still sees the break.
var newlineMark = strings.NewReplacer("\r\n", " ⏎ ", "\n", " ⏎ ", "\r", " ⏎ ")

// MarkNewlines replaces each line break (\r\n, \n or a lone \r) with " ⏎ ";
// other whitespace is kept as it is.
func MarkNewlines(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return newlineMark.Replace(s)
}

// Visible drops what a terminal or a model acts on but a reader cannot see:
// C0 controls but tab and newline (a CR, alone or before a newline, and a
// NEL become one newline; a vertical tab or form feed a space, so words stay
// apart), DEL, C1 controls, and format characters (Unicode Cf: zero-width
// spaces and joiners, bidi overrides, the BOM, tag characters). An escape
// sequence then reads as its printable rest ("[31m") and cannot recolour or
// clear a terminal, and a word with an invisible character inside reads and
// matches as the word. Invalid UTF-8 bytes are kept as they are.
func Visible(s string) string {
	i := strings.IndexFunc(s, invisible)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// the newline that follows is written next
		case r == '\r' || r == '\u0085':
			b.WriteByte('\n')
		case r == '\v' || r == '\f':
			b.WriteByte(' ')
		case r == utf8.RuneError && size == 1:
			b.WriteByte(s[i])
		case !invisible(r):
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// invisible reports a rune Visible drops or replaces.
func invisible(r rune) bool {
	if r < 0x80 {
		return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f
	}
	return r < 0xa0 || r != utf8.RuneError && unicode.Is(unicode.Cf, r)
}
