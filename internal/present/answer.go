package present

import (
	"fmt"

	"github.com/somni-dev/somni/internal/textcut"
)

// ClipAnswer bounds one tool answer to maxRunes, saying so at the cut in
// words the model can act on: which tool, how big the answer was, how much
// is shown. Controls and invisible format characters in the memory or log
// it shows are dropped first (textcut.Visible): the dreaming model reads
// what a person reading the file would see.
func ClipAnswer(tool, s string, maxRunes int) string {
	s = textcut.Visible(s)
	clipped := textcut.Clip(s, maxRunes, "…")
	if len(clipped) == len(s) {
		return s
	}
	return fmt.Sprintf("%s\n\n(clipped: this %s answer is %d bytes; only the first %d characters are shown — 内容过长，已截断)",
		clipped, tool, len(s), maxRunes)
}
