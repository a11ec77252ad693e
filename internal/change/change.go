// Package change reads what a text says about change over time, so recall
// can tell the newest statement of a thing from the one it replaced: a
// sentence that replaces what was true before ("staging kafka is on 9094
// now", "From now on, start variable names with 'm_'", "端口改成 9094 了")
// is a Claim about a subject (the words it shares with the statement it
// replaces, without the change's own words and the new value), and a
// question can ask about the past ("what was it before?", "原来是多少").
//
// Map:
//
//	change.go  Pattern (shared with the compaction digest's corrections), Claims, Claim.Covers
//	order.go   Order: a ranked list with the newest statement of a thing above the one it replaced (or, asked about the past, below it), read through a Pool
//	past.go    AsksPast: a question about how things were before a change
package change

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/lazyre"
	"github.com/somni-dev/somni/internal/textseg"
)

// Pattern is a change of what was true before, as people say it: "X, not
// Y", "moved to", "no longer", "… 6433 now", "换成", "迁到", "不再". The
// compaction digest counts such a sentence as a correction; it is written
// here once, for both. "now" counts only after a value or before one, so
// "run the tests now" stays a request.
const Pattern = `,\s*(and\s+)?not\s+[\p{L}\p{N}]|\b(changed|moved|switched|migrated|renamed|updated|bumped)\s+((it|them|this|that)\s+)?(over\s+)?to\b|\bno longer\b|\banymore\b|` +
	`\d\S*\s+now\b|\b(is|are)\s+now\s+\S*\d|` +
	`,\s*(而)?不是|换成|换到|变成|变为|迁到|迁移到|改到|不再`

// announce is what a claim may say besides Pattern: an instruction or a
// setting replaced from a moment on ("From now on, …", "I want to update
// our naming convention", "change it to", "以后都…", "从现在起…"). The
// digest reads "from now on" as a preference, so it is not in Pattern.
const announce = `\b(from now on|going forward|from today on|starting (today|now)|instead of|rather than|change (it|that|this) to|` +
	`(an? |one )?(small |quick )?(update|change)s? (to|on|of|in|for|about|regarding)\b|update (you|a previous|the|our|my)\b|replaced? (it |them )?with|is now|are now|now (is|are|uses?|runs?|listens?)\b)|` +
	`改成|改为|改用|更新|从现在(起|开始)|以后(都|请|一律|改)|今后|现在改|已经改|换了`

var (
	cueRe = lazyre.New(`(?i)(` + Pattern + `)|(` + announce + `)`)
	// quoted is a value given in quotes ('vr_', "6543", “m_”, 「…」): the new
	// value, never the subject
	quoted = lazyre.New("'[^'\\s]{1,40}'|\"[^\"]{1,60}\"|`[^`]{1,60}`|“[^”]{1,60}”|「[^」]{1,60}」")
)

// Bounds of what is read. A sentence longer than maxSentenceRunes is pasted
// material, not a statement; a text with more than maxSentences sentences
// is read that far (a change is stated near where it is said, and a long
// paste must not cost recall more than a paragraph's worth).
const (
	maxSentenceRunes = 600
	maxSentences     = 64
	// A claim covers an older sentence that shares at least minShared
	// subject terms with it, and shareTenths/10 of the shorter one's: "start your variable names
	// with 'x_'" is covered by "From now on, start all your variable names
	// with 'vr_'" (start, variable, name), "our staging kafka port is 9092"
	// by "staging kafka 端口改成 9094" (staging, kafka, 端口). One shared
	// word is a topic, not a subject.
	minShared   = 2
	shareTenths = 6
)

// requestWords are what an instruction says around its subject ("I'd like
// you to make sure you always …"); they name no subject.
var requestWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`like want please make sure always never need let ask follow remember keep
	i'd you'd we'd just also new old value set setting from now on going forward today changed change update updated instead rather
	请 一律 以后 今后 现在 从现 已经 改成 改为 改用 更新`) {
		m[w] = true
	}
	return m
}()

// Claim is one sentence that replaces what was true before.
type Claim struct {
	// Subject is the terms the sentence shares with what it replaces:
	// its words (stemmed, as textseg.Tokenize gives them) and CJK
	// bigrams, without the change's own words and the values.
	Subject []string
}

// Claims are the sentences of text that announce a change, each with its
// subject; nil when none does or none names a subject of minShared terms.
func Claims(text string) []Claim {
	var out []Claim
	for i, s := range textseg.Sentences(text) {
		if i == maxSentences {
			break
		}
		if utf8.RuneCountInString(s) > maxSentenceRunes {
			continue
		}
		folded := textseg.FoldString(s)
		loc := cueRe().FindStringIndex(folded)
		if loc == nil {
			continue
		}
		rest := folded[:loc[0]] + " " + folded[loc[1]:]
		if subj := subjectTerms(rest); len(subj) >= minShared {
			out = append(out, Claim{Subject: subj})
		}
	}
	return out
}

// Covers reports whether some sentence of older states the claim's
// subject: the statement the claim replaces.
func (c Claim) Covers(older string) bool { return c.coversAny(sentenceTerms(older)) }

// coversAny is Covers over the subject terms of each sentence of a text
// (sentenceTerms), read once however many claims are held against it.
func (c Claim) coversAny(sentences [][]string) bool {
	for _, terms := range sentences {
		if covers(c.Subject, terms) {
			return true
		}
	}
	return false
}

// sentenceTerms are the subject terms of each of text's first maxSentences
// sentences.
func sentenceTerms(text string) [][]string {
	var out [][]string
	for i, s := range textseg.Sentences(text) {
		if i == maxSentences {
			break
		}
		out = append(out, subjectTerms(textseg.FoldString(s)))
	}
	return out
}

func covers(subject, terms []string) bool {
	n := 0
	for _, t := range subject {
		for _, u := range terms {
			if t == u {
				n++
				break
			}
		}
	}
	return n >= minShared && n*10 >= min(len(subject), len(terms))*shareTenths
}

// subjectTerms are the distinct subject terms of one sentence: words of
// spaced scripts as textseg.Tokenize stems them and CJK bigrams, without
// quoted values, numbers and requestWords.
func subjectTerms(s string) []string {
	s = quoted().ReplaceAllString(s, " ")
	var out []string
	add := func(t string) {
		if requestWords[t] || hasDigit(t) {
			return
		}
		for _, u := range out {
			if u == t {
				return
			}
		}
		out = append(out, t)
	}
	for _, r := range textseg.Runs(s) {
		if !r.CJK {
			if !requestWords[r.Text] {
				for _, t := range textseg.Tokenize(r.Text) {
					add(t)
				}
			}
			continue
		}
		rs := []rune(r.Text)
		for i := 0; i+2 <= len(rs); i++ {
			if w := string(rs[i : i+2]); !textseg.IsStopword(w) && !cueChar(rs[i]) && !cueChar(rs[i+1]) {
				add(w)
			}
		}
	}
	return out
}

// cueChar is a character of the Chinese change words (改成, 换成, 变为, 更新
// …): a bigram holding one is the change, not its subject.
func cueChar(r rune) bool { return strings.ContainsRune("改换变为成用更新迁到再了", r) }

func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
}
