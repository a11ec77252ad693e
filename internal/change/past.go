package change

import (
	"github.com/somni-dev/somni/internal/lazyre"
	"github.com/somni-dev/somni/internal/textseg"
)

// pastRe asks how things were before a change: "originally", "used to",
// "the old port", "what was it before?", 原来, 之前, 以前, 舊的 (read
// folded to Simplified). "before", 之前 and 以前 also bound a date ("before
// March 2026", "3 月以前"); pastBoundRe is what is left of the cues when
// the question sets such a bound.
var (
	pastRe = lazyre.New(`(?i)\b(originally|previously|formerly|used to|at first|initially|in the beginning|at the start|` +
		`before (it|that|this|the|our)\b|` +
		`(the|my|our|its|their) (old|previous|original|former|earlier|first) \w+|what was it)\b|\bbefore\s*[?.!]*$|` +
		`原来|原本|本来|起初|最初|一开始|当初|先前|早先|以前|之前|旧的|过去的|改之前|换之前|没改|改前`)
	pastBoundRe = lazyre.New(`(?i)\b(originally|previously|formerly|used to|at first|initially|in the beginning|` +
		`(the|my|our|its|their) (old|previous|original|former) \w+)\b|原来|原本|本来|起初|最初|一开始|当初|旧的|改之前|换之前`)
)

// AsksPast reports whether a question asks about how something was before
// it changed. bounded says the question also limits itself to a period
// (dates.Question.Bounds): "before" and 以前 then belong to the bound.
func AsksPast(question string, bounded bool) bool {
	q := textseg.FoldString(question)
	if bounded {
		return pastBoundRe().MatchString(q)
	}
	return pastRe().MatchString(q)
}
