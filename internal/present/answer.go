package present

import (
	"fmt"

	"github.com/somni-dev/somni/internal/textcut"
)

// ClipAnswer bounds one tool answer to maxRunes, saying so at the cut in
// words the model can act on: which tool, how big the answer was, how much
// is shown.
func ClipAnswer(tool, s string, maxRunes int) string {
	clipped := textcut.Clip(s, maxRunes, "…")
	if len(clipped) == len(s) {
		return s
	}
	return fmt.Sprintf("%s\n\n(clipped: this %s answer is %d bytes; only the first %d characters are shown — 内容过长，已截断)",
		clipped, tool, len(s), maxRunes)
}
