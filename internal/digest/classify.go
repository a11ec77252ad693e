package digest

import (
	"strings"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/change"
	"github.com/somni-dev/somni/internal/lazyre"
	"github.com/somni-dev/somni/internal/textseg"
)

// Kind is what a sentence the user said reads as.
type Kind int

// The kinds, weakest first: a budget keeps the strongest. A correction
// outranks everything because it is what a summary most often loses (it
// folds the old and the new value into one, or keeps the old).
const (
	None Kind = iota
	Fact
	Preference
	Decision
	Correction
)

// String is the label the digest shows.
func (k Kind) String() string {
	switch k {
	case Fact:
		return "fact"
	case Preference:
		return "preference"
	case Decision:
		return "decision"
	case Correction:
		return "correction"
	}
	return ""
}

// Bounds of what is classified. Sentences shorter than minSentenceRunes are
// acknowledgements ("ok", "yes do it"); longer than maxSentenceRunes they
// are pasted material, not something the user stated.
const (
	minSentenceRunes = 8
	maxSentenceRunes = 600
)

// Patterns, English and Chinese, compiled on first use (only a compaction
// reads them; compiled at package initialisation they held every start 0.45
// ms). Each is written for what people type to an agent, so they favour recall over precision only where a wrong line costs
// little: a fact line the summary did not need is a few dozen characters.
var (
	correctionRe = lazyre.New(`(?i)(^\s*(no|nope|wrong|actually|correction|wait|sorry)\b)|` +
		`\b(i meant|that'?s (wrong|not right|incorrect)|that is (wrong|not right|incorrect)|you'?re wrong|not correct|incorrect|instead of|rather than|should be|should have been|change (it|that|this) to|i was wrong|scratch that|let me correct|to correct|not \S+( \S+){0,3},? but)\b|` +
		`不是.{1,24}(而是|是)|其实|不对|错了|更正|纠正|应该是|改成|改为|我说错|搞错|说反了|并不是|` +
		// A change is a correction of what was true before (change.Pattern:
		// "X, not Y", "moved to", "… 6433 now", "换成").
		change.Pattern)
	preferenceRe = lazyre.New(`(?i)\b(i (really )?(prefer|like|love|hate|dislike|want|don'?t want|do not want|don'?t like|do not like|'d rather|would rather|always|never)|my favou?rite|please (always|never|don'?t)|don'?t ever|from now on|going forward|in future|in the future)\b|` +
		`我(更|比较|很|最)?(喜欢|讨厌|不喜欢|偏好|习惯|想要|不想)|偏好|请(总是|始终|不要|别)|永远不要|别再|不要再|以后都|以后请|从现在(起|开始)|每次都`)
	decisionRe = lazyre.New(`(?i)\b((we|i) (have |'ve )?(decided|agreed|chose|chosen|settled on|picked)|(we|i)('ll| will| are going to|'re going to) (go with|use|switch to|keep|stick with)|let'?s (use|go with|keep|switch to|stick with|do)|the plan is|decision)\b|` +
		`决定|定了|就用|就这么办|我们(用|选|采用|改用)|选定|方案是`)
	factRe = lazyre.New(`(?i)\b((my|our) [\p{L}\p{N} _'-]{1,40}\b(is|are|was|were|lives?|runs?|sits?|has|have|uses?|called|named)|i('m| am| work| live| have| use|'ve got| own| was born)|we (use|run|have|deploy|host|keep|ship)|(remember|note|fyi|keep in mind|for the record)\b|\b(is|are|runs) (on|at) (port|host)\b|\bdeadline\b|\bdue (on|by)\b)|` +
		`我(是|叫|在|住|有|用|的|们的|家|今年)|我们(的|在|有)|记住|注意|请记得|别忘了|截止|端口|地址是|密码不要`)
	// A plain statement of something specific: a copula and a number
	// ("The deploy window is Friday at 18:00", "周五 18 点是发布窗口").
	specificRe = lazyre.New(`(?i)(\b(is|are|was|were|will be|starts?|ends?)\b.*\d|\d.*\b(is|are|was|were)\b)|是.*\d|\d.*是`)
	// A question asks; it does not state, unless it also corrects ("isn't it 6543?").
	questionEnd = lazyre.New(`[?？]\s*$`)
)

// Classify reads one sentence.
func Classify(sentence string) Kind {
	// Traditional Chinese is matched by the Simplified patterns (不對 as 不对)
	s := textseg.FoldString(strings.TrimSpace(sentence))
	n := utf8.RuneCountInString(s)
	if n < minSentenceRunes || n > maxSentenceRunes {
		return None
	}
	switch {
	case correctionRe().MatchString(s):
		return Correction
	case questionEnd().MatchString(s):
		return None
	case decisionRe().MatchString(s):
		return Decision
	case preferenceRe().MatchString(s):
		return Preference
	case factRe().MatchString(s), specificRe().MatchString(s), statesValue(s):
		return Fact
	}
	return None
}
