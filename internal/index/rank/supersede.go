package rank

import (
	"strings"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/bm25"
	"github.com/somni-dev/somni/internal/change"
	"github.com/somni-dev/somni/internal/textseg"
)

// supersede orders what changed (change.Order) in the ranked list and
// marks each replaced entry; the entry moved up scores at least what the
// one it was placed above scores. Nothing is sorted after this.
func (r *ranking) supersede(list []*cand, limit int, past bool) []*cand {
	ids := make([]int32, len(list))
	bySlot := make(map[int32]*cand, len(list))
	for i, cd := range list {
		ids[i], bySlot[cd.slot] = cd.slot, cd
	}
	order, newer := change.Order(ids, limit, past, changePool{r})
	if len(newer) == 0 {
		return list
	}
	out := make([]*cand, len(order))
	for i, s := range order {
		cd := bySlot[s]
		if cd == nil { // named or found by the second hop
			cd = &cand{slot: s, spreadFrom: -1, pinnedBy: -1}
			if p := r.idx[s]; p >= 0 && int(p) < len(r.pool) && r.pool[p].slot == s {
				if cd = &r.pool[p]; cd.litDue {
					r.settleLiteral(cd)
				}
			}
			bySlot[s] = cd
		}
		out[i] = cd
	}
	for old, n := range newer {
		bySlot[old].newer = n + 1
		up, below := bySlot[n], bySlot[old]
		if past {
			up, below = below, up
		}
		up.hybrid = max(up.hybrid, below.hybrid)
	}
	return out
}

// changePool is a ranking as change.Order reads it: slots as ids.
type changePool struct{ r *ranking }

func (p changePool) Entry(s int32) change.Entry {
	d := &p.r.c.slots[s].Doc
	text := d.Body
	if d.Description != "" {
		text = d.Description + "\n" + d.Body
	}
	return change.Entry{Keys: linkKeys(*d), When: d.When, Text: text, Supersedes: d.Supersedes, SupersededBy: d.SupersededBy}
}

func (p changePool) Named(name string) []int32 {
	return p.r.c.byName[strings.ToLower(strings.TrimSpace(name))]
}

func (p changePool) About(terms []string) []int32 {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	lex := &sc.lex
	p.r.c.words.Score(bm25.NewQuery(strings.Join(terms, " ")), weakTerm, lex)
	var out []int32
	for _, s := range lex.Touched {
		if lex.Strong[s] {
			out = append(out, s)
		}
	}
	return out
}

func (p changePool) Matched(s int32) []string { return matchedTerms(p.r.c.slots[s], p.r.lq.Terms()) }

// Holds looks into the text for CJK windows only: a spaced-script term is
// a stem, which the text need not hold as written.
func (p changePool) Holds(s int32, term string) bool {
	r, _ := utf8.DecodeRuneInString(term)
	return textseg.IsCJK(r) && p.r.c.slots[s].holds(term, strings.Contains)
}

func (p changePool) Admits(s int32) bool {
	e := p.r.c.slots[s]
	return e != nil && passes(p.r.q, &e.Doc)
}
