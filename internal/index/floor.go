package index

import (
	"os"
	"strconv"

	"github.com/somni-dev/somni/internal/textseg"
)

// The BM25 floor: the ranking every query gets is a weighted reciprocal
// rank fusion (Cormack, Clarke & Büttcher 2009) of the hybrid's ranking
// and plain BM25's (package bm25, the language's standard analyzer,
// exactly make eval's baseline), so an entry the textbook keyword search
// puts first cannot fall far whatever the other signals say.
const (
	// rrfK is the fusion's rank offset, the paper's 60: a rank's weight
	// falls slowly, so agreement between the two lists counts more than
	// either list's first place.
	rrfK = 60
)

// plainShare is plain BM25's share of the fusion for a query in CJK
// script and for one in words; the hybrid has the rest.
var plainShareCJK, plainShareWords = envShare("SOMNI_FUSE_CJK"), envShare("SOMNI_FUSE_WORDS")

func envShare(k string) float64 {
	v, _ := strconv.ParseFloat(os.Getenv(k), 64)
	return v
}

// plainText is what plain BM25 indexes of an entry: its name, description
// and body as one field, as the baseline does.
func plainText(d Doc) string { return d.Name + "\n" + d.Description + "\n" + d.Body }

// PlainText is plainText for make eval's baseline, so the floor and the
// baseline read the same text.
func PlainText(d Doc) string { return plainText(d) }

// plain admits plain BM25's best n entries passing the query's filters as
// candidates, with their rank in its list (cand.plainRank).
func (r *ranking) plain(n int) {
	if r.share() == 0 {
		return
	}
	keep := func(s int32) bool { e := r.c.slots[s]; return e != nil && passes(r.q, &e.doc) }
	for i, x := range r.c.plain.Search(r.q.Text, n, keep) {
		r.admit(x.Doc).plainRank = int32(i + 1)
	}
}

// share is plain BM25's share of this query's fusion.
func (r *ranking) share() float64 {
	if textseg.MostlyCJK(r.q.Text) {
		return plainShareCJK
	}
	return plainShareWords
}

// fuse returns the best k of list in fused order: each candidate scores
// (1-share)/(rrfK + its hybrid rank) + share/(rrfK + its plain rank), the
// second term only for plain BM25's best (plain); pinned entries stay
// first. The order is kept in cand.order, which better reads before the
// hybrid, so spread neighbours and later phases keep to it.
func (r *ranking) fuse(list []*cand, k int) []*cand {
	top := topK(r.c, list, k)
	share := r.share()
	if share == 0 {
		return top
	}
	in := make(map[int32]bool, len(top))
	for i, cd := range top {
		in[cd.slot] = true
		cd.order = (1 - share) / float64(rrfK+i+1)
	}
	union := top
	for _, cd := range list {
		if cd.plainRank > 0 && !in[cd.slot] {
			cd.order = (1 - share) / float64(rrfK+r.hybridRank(list, cd))
			union = append(union, cd)
		}
	}
	for _, cd := range union {
		if cd.plainRank > 0 {
			cd.order += share / float64(rrfK+cd.plainRank)
		}
	}
	sortCands(r.c, union)
	return union[:min(k, len(union))]
}

// hybridRank is cd's place in list by the hybrid alone, counting from 1.
func (r *ranking) hybridRank(list []*cand, cd *cand) int {
	n := 1
	for _, o := range list {
		if o != cd && (o.pinned && !cd.pinned || o.pinned == cd.pinned && o.hybrid > cd.hybrid) {
			n++
		}
	}
	return n
}

// orderOf is the fused order a candidate with hybrid h and no plain rank
// would have among list (a spread neighbour): 0 when nothing was fused.
func (r *ranking) orderOf(list []*cand, h float64) float64 {
	share := r.share()
	if share == 0 {
		return 0
	}
	n := 1
	for _, o := range list {
		if o.pinned || o.hybrid > h {
			n++
		}
	}
	return (1 - share) / float64(rrfK+n)
}
