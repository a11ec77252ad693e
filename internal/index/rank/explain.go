package rank

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/textseg"
)

// finish cuts the ordered list to limit and builds the Hits with the
// evidence that put each there.
func (r *ranking) finish(list []*cand, limit int) []Hit {
	c := r.c
	if len(list) > limit {
		list = list[:limit]
	}
	hits := make([]Hit, len(list))
	words := textseg.NewSurface(r.q.Text)
	for i, cd := range list {
		e := c.slots[cd.slot]
		h := Hit{Doc: e.Doc, Hybrid: cd.hybrid, Cos: cd.cos, ContextCos: cd.ctxCos, Keyword: cd.keyword, Literal: cd.literal,
			Pinned: cd.pinned}
		if cd.pinnedBy >= 0 {
			h.PinnedBy = r.syms[cd.pinnedBy]
		}
		if cd.newer != 0 {
			h.SupersededBy = c.slots[cd.newer-1].Doc.Name
		}
		if cd.spreadFrom >= 0 {
			h.SpreadFrom = c.slots[cd.spreadFrom].Doc.Name // came by the link: no terms to show
		} else {
			h.Terms = matchedTerms(e, r.lq.Terms())
			h.Words = words.Words(h.Terms)
		}
		hits[i] = h
	}
	return hits
}

// matchedTerms lists the query terms an entry holds, longest first, for
// the "why it matched" line.
func matchedTerms(e *Entry, terms []string) []string {
	var out []string
	have := docTerms(e.Doc)
	for _, t := range terms {
		if have[t] {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return utf8.RuneCountInString(out[i]) > utf8.RuneCountInString(out[j])
	})
	// drop CJK windows already covered by a longer matched window
	var kept []string
	for _, t := range out {
		covered := false
		for _, k := range kept {
			if strings.Contains(k, t) {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, t)
		}
		if len(kept) == 6 {
			break
		}
	}
	return kept
}
