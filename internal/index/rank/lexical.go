package rank

import (
	"strings"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/textseg"
)

// lexical admits the lexical candidates: strong evidence or a literal hit.
func (r *ranking) lexical() {
	for _, s := range r.lex.Touched {
		if !r.lex.Strong[s] {
			if !r.literal(s) {
				continue
			}
			cd := r.get(s)
			cd.keyword, cd.literal = r.lex.Score[s], true
			continue
		}
		cd := r.get(s)
		cd.keyword = r.lex.Score[s]
		cd.maybeLit = r.maybeLit(s)
	}
}

// The literal check is a substring scan, so only docs holding every
// query term can contain the whole query; for strong candidates it is
// deferred until their score could reach the returned top.
func (r *ranking) maybeLit(s int32) bool {
	return r.lit != "" && int(r.lex.Matched[s]) == len(r.lq.Terms())
}

func (r *ranking) literal(s int32) bool {
	return r.maybeLit(s) && r.c.slots[s].holds(r.lit, strings.Contains)
}

// literalForm is the query as it must occur literally for the bonus, or
// "" when it is too short to mean anything (under 3 runes, 2 for CJK).
func literalForm(q string) string {
	l := strings.ToLower(strings.Join(strings.Fields(q), " "))
	n := utf8.RuneCountInString(l)
	r, _ := utf8.DecodeRuneInString(l)
	if n >= 3 || n == 2 && textseg.IsCJK(r) {
		return l
	}
	return ""
}
