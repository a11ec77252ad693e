package textseg

import (
	"strings"
)

// Surface remembers a text's words as written, to show the evidence of a
// match in the user's words rather than as index terms ("Postgres", not
// "postgr").
type Surface struct {
	runs []queryRun
}

type queryRun struct {
	word string // as written, where lowercasing kept the byte offsets
	cjk  bool   // matched by windows: shown as the stretches they cover
	term string // a word's index term ("postgr" for "Postgres"), "" if none
	lr   []rune // the lowercased, folded run (CJK), which terms are found in
	wr   []rune // the run as written, rune for rune beside lr, which is shown
}

// NewSurface reads q once, for all the matches shown against it.
func NewSurface(q string) *Surface {
	qw := &Surface{}
	lower := FoldString(strings.ToLower(q))
	sameOffsets := len(lower) == len(q)
	at := 0
	for _, r := range Runs(q) {
		word := r.Text
		if i := strings.Index(lower[at:], r.Text); i >= 0 {
			if sameOffsets {
				word = q[at+i : at+i+len(r.Text)]
			}
			at += i + len(r.Text)
		}
		run := queryRun{word: word, cjk: r.CJK}
		if r.CJK {
			run.lr, run.wr = []rune(r.Text), []rune(word)
			if len(run.wr) != len(run.lr) {
				run.wr = run.lr
			}
		} else if ts := Tokenize(r.Text); len(ts) == 1 {
			run.term = ts[0]
		}
		qw.runs = append(qw.runs, run)
	}
	return qw
}

// Words turns matched terms back into the text's words, in text order
// and once each: a word whose term matched, and for CJK the stretches of
// the query the matched windows cover ("忽略之前的指令", not its four
// overlapping windows).
func (qw *Surface) Words(terms []string) []string {
	if len(terms) == 0 {
		return nil
	}
	matched := make(map[string]bool, len(terms))
	for _, t := range terms {
		matched[t] = true
	}
	var out []string
	seen, said := map[string]bool{}, map[string]bool{} // words shown, terms shown
	add := func(w string) {
		if !seen[strings.ToLower(w)] {
			seen[strings.ToLower(w)] = true
			out = append(out, w)
		}
	}
	for _, r := range qw.runs {
		if !r.cjk {
			if r.term != "" && matched[r.term] && !said[r.term] {
				said[r.term] = true // "deploys deployed": the first says it
				add(r.word)
			}
			continue
		}
		covered := make([]bool, len(r.lr))
		for t := range matched {
			w := []rune(t)
			for i := 0; i+len(w) <= len(r.lr); i++ {
				if string(r.lr[i:i+len(w)]) == t {
					for j := i; j < i+len(w); j++ {
						covered[j] = true
					}
				}
			}
		}
		for i := 0; i < len(covered); {
			if !covered[i] {
				i++
				continue
			}
			j := i
			for j < len(covered) && covered[j] {
				j++
			}
			add(string(r.wr[i:j]))
			i = j
		}
	}
	return out
}
