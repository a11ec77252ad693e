// Package textcut is the one place text is cut to a budget or flattened
// onto one line: prompts and tool answers, session-log records, file names,
// protocol and error messages. Each caller keeps its own marker ("…", " …",
// none) as an argument, so output stays what it was while the cutting rule
// lives here once. It is not presentation to the model (package present
// owns that, and cuts through here like every other caller): most of its
// callers bound what is stored, logged or sent to a peer.
package textcut

import (
	"strings"
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
