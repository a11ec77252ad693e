package textseg

import (
	"strings"

	"github.com/somni-dev/somni/internal/lazyre"
)

// sentenceEnd splits after a sentence mark: '.', '!' or '?' followed by a
// space or the end (so "v1.2", "example.com" and "6.5" stay whole), any
// full-width mark, a semicolon and a newline.
var sentenceEnd = lazyre.New(`[.!?]+(\s+|$)|[。！？；;]+|\n+`)

// Sentences cuts a text into sentences, marks kept, blanks dropped.
func Sentences(text string) []string {
	var out []string
	last := 0
	for _, m := range sentenceEnd().FindAllStringIndex(text, -1) {
		if s := strings.TrimSpace(text[last:m[1]]); s != "" {
			out = append(out, s)
		}
		last = m[1]
	}
	if s := strings.TrimSpace(text[last:]); s != "" {
		out = append(out, s)
	}
	return out
}
