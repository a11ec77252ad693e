package rank

import (
	"slices"
	"strings"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/textseg"
)

// admit makes s a candidate for evidence other than its words or cosine
// (a date, a symbol), with the signals it has besides.
func (r *ranking) admit(s int32) *cand {
	fresh := r.idx[s] < 0
	cd := r.get(s)
	if fresh {
		cd.keyword = r.lex.Score[s]
		cd.maybeLit = r.maybeLit(s)
		if e := r.c.slots[s]; r.qvec != nil && e.vec != nil {
			cd.cos, cd.ctxCos = r.cosines(s, e)
		}
	}
	return cd
}

// dated admits the date evidence: entries about a day the query asks
// about, one of their days inside the days asked (dates.AnyWithin).
func (r *ranking) dated(qt dates.Question) {
	r.bounds, r.dateSyms = qt.Bounds, qt.Syms
	if len(qt.Days) == 0 {
		return
	}
	for s, e := range r.c.slots {
		if e != nil && dates.AnyWithin(e.days, qt.Days) {
			r.admit(int32(s)).dated = true
		}
	}
}

// symbols pins the entries holding one of the query's exact symbols.
func (r *ranking) symbols() {
	for _, sym := range textseg.Symbols(r.q.Text) {
		if !slices.Contains(r.dateSyms, strings.ToLower(sym)) {
			r.syms = append(r.syms, sym)
		}
	}
	for si, sym := range r.syms {
		lsym := strings.ToLower(sym)
		specific := textseg.Specific(sym)
		for _, s := range symbolCandidates(r.c, lsym) {
			if !r.c.slots[s].holds(lsym, textseg.ContainsSymbol) {
				continue
			}
			cd := r.admit(s)
			if !cd.pinned {
				cd.pinned, cd.pinnedBy = true, int16(si)
			}
			cd.specific = cd.specific || specific
		}
	}
}

// symbolCandidates narrows the docs that may hold sym verbatim to those
// containing its rarest indexed word part; a symbol with no such part
// (e.g. "1.2") falls back to every live doc.
func symbolCandidates(c *Corpus, lsym string) []int32 {
	parts := textseg.Tokenize(lsym) // the indexed (stemmed) forms of its word parts
	if len(parts) == 0 {
		all := make([]int32, 0, c.live)
		for s, e := range c.slots {
			if e != nil {
				all = append(all, int32(s))
			}
		}
		return all
	}
	best := parts[0]
	for _, p := range parts[1:] {
		if len(c.words.Postings(p)) < len(c.words.Postings(best)) {
			best = p
		}
	}
	out := make([]int32, len(c.words.Postings(best)))
	for i, p := range c.words.Postings(best) {
		out[i] = p.Doc
	}
	return out
}
