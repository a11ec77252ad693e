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
	hs, he, bs, framed, closed := frameOf(text)
	if !framed || !closed {
		return nil, text[bs:], framed, false
	}
	if he > hs {
		header = strings.Split(strings.TrimSuffix(text[hs:he], "\n"), "\n")
	}
	return header, text[bs:], true, true
}

// frameOf is splitFrontMatter's rule as byte offsets, for a writer that
// puts changed header lines back between the very bytes around them: the
// header lines are text[hs:he] (each with its line end) and what follows the
// closing line is text[bs:]. Not framed: bs is past the BOM; never closed:
// the rest of the text is header and the body is empty.
func frameOf(text string) (hs, he, bs int, framed, closed bool) {
	start := len(text) - len(strings.TrimPrefix(text, "\ufeff"))
	first, _, more := strings.Cut(text[start:], "\n")
	if !IsDelim(first) {
		return 0, 0, start, false, false
	}
	if !more {
		return len(text), len(text), len(text), true, false
	}
	hs = start + len(first) + 1
	for pos := hs; ; {
		line, _, more := strings.Cut(text[pos:], "\n")
		if IsDelim(line) {
			bs = pos + len(line)
			if more {
				bs++
			}
			return hs, pos, bs, true, true
		}
		if !more {
			return hs, len(text), len(text), true, false
		}
		pos += len(line) + 1
	}
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
