package rank

import (
	"container/heap"
	"strings"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/embed"
)

// score filters the candidates, gives each its hybrid score with the
// damps and bonuses, runs the deferred literal checks that could still
// pay, and returns the best k in order. No get may follow: the list
// points into pool.
func (r *ranking) score(k int) []*cand {
	c, q, qvec, lex := r.c, r.q, r.qvec, r.lex
	list := make([]*cand, 0, len(r.pool))
	for i := range r.pool {
		cd := &r.pool[i]
		e := c.slots[cd.slot]
		if !passes(q, &e.Doc) {
			continue
		}
		wCos := r.semWeight(e)
		if qvec != nil && e.vec == nil {
			// not embedded yet (the background embedder is behind): its
			// keyword evidence stands in for the cosine it will have, so a
			// backlog costs it no place against embedded entries with the
			// same words
			cd.hybrid = (wCos + weightKeyword) * cd.keyword
		} else {
			cd.hybrid = hybridScore(r.cal, wCos, max(cd.cos, cd.ctxCos), cd.keyword)
		}
		switch {
		case e.asks && c.answered(e):
			cd.hybrid *= answeredDamp
		case e.asks && e.ctxKey == 0:
			cd.hybrid *= askingDamp
		}
		if qvec != nil && wCos > 0 && cd.keyword > 0 && !cd.literal && !cd.pinned && !cd.dated && !lex.Telling[cd.slot] {
			cd.hybrid *= unexplainedDamp
		}
		if len(r.bounds) > 0 && !dates.InBounds(e.days, r.bounds) {
			cd.hybrid *= outsideBoundDamp
		}
		if cd.literal {
			cd.hybrid += literalBonus
		}
		if cd.specific {
			cd.hybrid += symbolBonus
		}
		if cd.dated {
			cd.hybrid += dateBonus
		}
		cd.shared = e.shared
		list = append(list, cd)
	}
	r.settleLiterals(list, k)
	// only the top of the list is returned (plus spread seeds): select it
	// before sorting, so a query with thousands of candidates does not
	// sort them all
	return topK(c, list, k)
}

// settleLiterals runs the deferred literal checks that could still pay:
// a candidate whose key with literalBonus could reach the k-th best key
// before any bonus (bar), pinned or not. Checked best first, they stop
// once k entries are sure to rank above the next: the pinned ones and
// those a bonus already lifted strictly above what the next could reach.
// A skipped candidate cannot be returned, so the top k are those checking
// every one gave; it keeps litDue, and the phases that may still take it
// from the pool (supersede) settle it then. At 100k synthetic notes
// nearly every candidate of "redis cache failover replica" holds the
// whole query: checking them all cost 87 ms a search (BenchmarkSearch's
// profile, 2026-12-07).
func (r *ranking) settleLiterals(list []*cand, k int) {
	bar := kthBest(list, k) // an unpinned entry below this cannot be returned
	var due reachHeap
	above := 0
	for _, cd := range list {
		if cd.pinned {
			above++
		}
		if !cd.maybeLit || !cd.pinned && cd.key()+literalBonus*cd.prior() < bar {
			continue
		}
		if cd.pinned || cd.plainFirst { // the floor may take it from anywhere
			r.settleLiteral(cd)
			continue
		}
		cd.litDue = true
		// its key with the bonus: how high it could reach
		due = append(due, reached{(cd.hybrid + literalBonus) * cd.prior(), cd})
	}
	// taken best first from a heap, not sorted: the loop most often stops
	// after a few, and sorting every due candidate of a 100k search was a
	// third of the check's time
	heap.Init(&due)
	var lifted []float64 // keys lifted by a bonus, best first
	j := 0
	for due.Len() > 0 {
		x := heap.Pop(&due).(reached)
		for j < len(lifted) && lifted[j] > x.most {
			j++
		}
		if above+j >= k {
			return
		}
		if r.settleLiteral(x.cd) {
			lifted = append(lifted, x.cd.key())
		}
	}
}

// reached is a due candidate with the key it could reach.
type reached struct {
	most float64
	cd   *cand
}

// reachHeap is due candidates, the one that could reach highest first
// (container/heap).
type reachHeap []reached

func (h reachHeap) Len() int           { return len(h) }
func (h reachHeap) Less(i, j int) bool { return h[i].most > h[j].most }
func (h reachHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *reachHeap) Push(x any)        { *h = append(*h, x.(reached)) }
func (h *reachHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// settleLiteral runs a candidate's literal check: true when the whole
// query occurs in it, which earns literalBonus.
func (r *ranking) settleLiteral(cd *cand) bool {
	cd.litDue = false
	if !r.c.slots[cd.slot].holds(r.lit, strings.Contains) {
		return false
	}
	cd.literal = true
	cd.hybrid += literalBonus
	return true
}

// hybridScore combines the semantic and lexical signals, the cosine
// weighted by wCos (semWeight); cos only counts above the floor.
func hybridScore(cal embed.Calibration, wCos, cos, keyword float64) float64 {
	sem := 0.0
	if cos != 0 {
		sem = (cos - cal.Floor) / cal.Span
		sem = max(0, min(1, sem))
	}
	return wCos*sem + weightKeyword*keyword
}
