package rank

import (
	"runtime"
	"sort"
	"sync"

	"github.com/somni-dev/somni/internal/embed"
)

// semantic admits the semantic candidates: cosine above the embedder's
// noise floor, the entry's own or, discounted, its context's (see
// contextCos); and gives the lexical ones their cosines.
func (r *ranking) semantic() {
	c, qvec := r.c, r.qvec
	if qvec == nil {
		return
	}
	if len(c.ctxRefs) > 0 || len(c.slots) >= parallelScan {
		r.ownCosines()
	}
	own, ctxs := r.own, len(c.ctxRefs) > 0
	for s, v := range c.vecs.bySlot {
		if v == nil {
			continue
		}
		var cos, ctx float64
		if own == nil { // no contexts: the plain scan, kept free of calls
			cos = embed.Dot(qvec, v)
		} else if cos = own[s]; ctxs {
			ctx = contextCos(c, c.slots[s], own)
		}
		if r.idx[s] >= 0 {
			r.pool[r.idx[s]].cos, r.pool[r.idx[s]].ctxCos = cos, ctx
		} else if max(cos, ctx) > r.cal.Floor && r.semWeight(c.slots[s]) > 0 {
			cd := r.get(int32(s))
			cd.cos, cd.ctxCos = cos, ctx
			cd.keyword = r.lex.Score[s]
		}
	}
}

// parallelScan is the corpus size from which a query's cosines are
// computed on every core: at 100k entries the scan reads every stored
// vector, 100 MB at 256 dimensions, and was most of a vector search
// (BenchmarkSearch, vector/100000). Below it one core scans, in the loop
// semantic keeps free of calls.
const parallelScan = 16384

// ownCosines fills r.own, every slot's own cosine with the query (0 for a
// slot without a vector), once per ranking; from parallelScan slots on,
// the scan is split over the cores, each value computed as one core would.
func (r *ranking) ownCosines() {
	if r.own != nil {
		return
	}
	n, vecs, qvec := len(r.c.slots), r.c.vecs.bySlot, r.qvec
	if cap(r.scratch.own) < n {
		r.scratch.own = make([]float64, n)
	}
	own := r.scratch.own[:n]
	clear(own[len(vecs):])
	fill := func(lo, hi int) {
		for s, v := range vecs[lo:hi] {
			if v != nil {
				own[lo+s] = embed.Dot(qvec, v)
			} else {
				own[lo+s] = 0
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(vecs) < parallelScan || workers < 2 {
		fill(0, len(vecs))
	} else {
		var wg sync.WaitGroup
		step := (len(vecs) + workers - 1) / workers
		for lo := 0; lo < len(vecs); lo += step {
			wg.Add(1)
			go func(lo, hi int) {
				defer wg.Done()
				fill(lo, hi)
			}(lo, min(lo+step, len(vecs)))
		}
		wg.Wait()
	}
	r.own = own
}

// cosines is slot s's own and context cosine (see semantic).
func (r *ranking) cosines(s int32, e *Entry) (cos, ctx float64) {
	if r.own == nil {
		return embed.Dot(r.qvec, e.vec), 0
	}
	return r.own[s], contextCos(r.c, e, r.own)
}

// contextCos is the semantic evidence an entry borrows from its context
// when that context is a question: the question's own cosine with the
// query, times contextLend. A reply is found through the question it
// answers ("几点开门" reaches "上午九点到下午五点十五" only via "几点开门？"), so
// it is as relevant as that question; a context that does not ask lends
// nothing, since a turn after a statement need not be about it. The
// question's vector is its own entry's, so this costs no embedding.
func contextCos(c *Corpus, e *Entry, own []float64) float64 {
	s := c.contextSlot(e)
	if s < 0 || !c.slots[s].asks {
		return 0
	}
	return contextLend * own[s]
}

// semWeight is the weight of e's cosine in its hybrid: weightCos, times the
// embedder's CJKTrust when a mostly-CJK query meets a mostly-CJK entry (its
// words can be matched, so the weaker vectors only add noise to them).
func (r *ranking) semWeight(e *Entry) float64 {
	if r.cjkTrust < 1 && e.cjk {
		return weightCos * r.cjkTrust
	}
	return weightCos
}

// agreement is how far the words and the vectors agree on this query:
// the share of the agreeK mostly-CJK entries the words rank highest that
// the vectors also rank among their agreeK highest above their noise
// floor (so a pool of fewer than agreeK entries agrees only where the
// vectors see relevance); 1 when no such entry shares a word with the
// query (the vectors are then all there is). It fills r.own, every
// slot's own cosine, which semantic reuses.
func (r *ranking) agreement() float64 {
	var lex []scored
	for _, s := range r.lex.Touched {
		if r.c.slots[s].cjk && r.lex.Score[s] > 0 {
			lex = keepBest(lex, scored{s, r.lex.Score[s]}, agreeK)
		}
	}
	if len(lex) == 0 {
		return 1
	}
	r.ownCosines()
	var sem []scored
	for s, e := range r.c.slots {
		if e != nil && e.cjk && e.vec != nil && r.own[s] > r.cal.Floor {
			sem = keepBest(sem, scored{int32(s), r.own[s]}, agreeK)
		}
	}
	n := 0
	for _, x := range lex {
		for _, y := range sem {
			if x.slot == y.slot {
				n++
			}
		}
	}
	return float64(n) / float64(len(lex))
}

// scored is a slot with one signal's value.
type scored struct {
	slot int32
	v    float64
}

// keepBest adds x to best, the k highest so far in descending order.
func keepBest(best []scored, x scored, k int) []scored {
	if len(best) == k && x.v <= best[k-1].v {
		return best
	}
	i := sort.Search(len(best), func(i int) bool { return best[i].v < x.v })
	best = append(best, scored{})
	copy(best[i+1:], best[i:])
	best[i] = x
	return best[:min(len(best), k)]
}
