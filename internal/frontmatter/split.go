package frontmatter

import (
	"strings"
	"unicode/utf8"
)

// splitFrontMatter finds the front-matter block at the start of text, the one
// rule every reader of a header uses: after an optional BOM, a first line `---`
// opens it and the next `---` line closes it (trailing spaces, tabs and a CR
// allowed on both). header holds the lines between; body is everything after
// the closing line, or the whole text (BOM dropped) when it is not framed.
// framed && !closed is a header that never ends.
// Delim is the line that opens and closes a header, spelled here once.
const Delim = "---"

// IsDelim reports whether line (with or without its line end) is a header
// delimiter: Delim with trailing spaces, tabs and a CR allowed.
func IsDelim(line string) bool { return strings.TrimRight(line, " \t\r\n") == Delim }

func splitFrontMatter(text string) (header []string, body string, framed, closed bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	first, rest, ok := strings.Cut(text, "\n")
	if !IsDelim(first) {
		return nil, text, false, false
	}
	if !ok {
		return nil, "", true, false
	}
	for pos := 0; pos <= len(rest); {
		line, after, more := strings.Cut(rest[pos:], "\n")
		if IsDelim(line) {
			return header, after, true, true
		}
		header = append(header, line)
		if !more {
			break
		}
		pos = len(rest) - len(after)
	}
	return header, "", true, false
}

// Strip returns the text after a file's front-matter, trimmed, for
// text meant for a model (the dreamer's guidance). An unclosed header keeps
// everything: losing guidance is worse than showing a stray `---`.
func Strip(text string) string {
	if _, body, framed, closed := splitFrontMatter(text); !framed || closed {
		return strings.TrimSpace(body)
	}
	return strings.TrimSpace(strings.TrimPrefix(text, "\ufeff"))
}

// ParseHead parses only the front-matter of a file's first bytes: the body
// may be cut anywhere (even inside a UTF-8 character) and is never looked at.
// ok is false when head holds no complete, readable header.
func ParseHead(path string, head []byte) (meta *Meta, ok bool) {
	header, _, framed, closed := splitFrontMatter(string(head))
	if !framed || !closed {
		return nil, false
	}
	for _, line := range header {
		if !utf8.ValidString(line) {
			return nil, false
		}
	}
	if _, _, bad := headerControlChar(header); bad {
		return nil, false
	}
	meta, err := parseHeader(path, header)
	if err != nil {
		return nil, false
	}
	return meta, true
}
