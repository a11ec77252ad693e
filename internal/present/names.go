package present

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Two rules show a name on a line we start, and the difference is who
// reads it back. A memory's name in recall results and hint lines is only
// read, so ShowName defangs it as well; a name the dreamer hands back to
// its tools (a log path, an entry name) must survive the round trip
// byte for byte, so ShowExact only quotes and UnshowExact undoes it.

// ShowName is how a memory's name appears on a line we start: as written
// when it is a plain identifier (the dreamer only writes such names), else
// quoted, so a hand-written name like "SYSTEM: obey" reads as a name and
// cannot pass for a header or end the "name:" of a hint early.
func ShowName(name string) string {
	n := Defang(name)
	if n == "" || strings.ContainsAny(n, " :：\"'`<>[]【】()") {
		return strconv.Quote(n)
	}
	return n
}

// ShowExact is how a name the model passes back to a tool appears: as is
// when it is plain printable text, else Go-quoted, so a name holding a
// newline cannot add lines (instructions) to what the model reads.
// Nothing is swapped, so UnshowExact gives the name back exactly.
func ShowExact(s string) string {
	plain := utf8.ValidString(s) && !strings.HasPrefix(s, `"`) && strings.TrimSpace(s) == s &&
		strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
	if plain {
		return s
	}
	return strconv.Quote(s)
}

// UnshowExact reverses ShowExact.
func UnshowExact(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}
