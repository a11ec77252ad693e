package rank

import (
	"github.com/somni-dev/somni/internal/bm25"
	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/embed"
)

// ranking is one query's state while rank runs its phases over a corpus:
// the query's lexical view, and the candidates found so far.
type ranking struct {
	c    *Corpus
	q    *Query
	qvec []float32
	cal  embed.Calibration
	lq   *bm25.Query
	lex  *bm25.Scores
	lit  string
	// scratch holds lex, idx and pool's arrays, back in scratchPool once
	// the hits are out
	scratch *scratch
	// idx is dense over slots: -1 = not a candidate, else index into pool
	idx  []int32
	pool []cand
	own  []float64 // every slot's own cosine, when some entry has a context
	syms []string  // the query's exact symbols, in order (cand.pinnedBy)
	// bounds are the stretches the query limits itself to ("before March
	// 2026"): entries placed outside them weigh less (dated, score)
	bounds []dates.Days
	// dateSyms are the symbols the query's dates are written with ("2025"
	// and "10" of 2025年5月10日), lowercased (dates.Question.Syms)
	dateSyms []string
	// cjkTrust is the share of the semantic weight a mostly-CJK entry's
	// cosine keeps for a mostly-CJK query (semWeight): 1, or for an
	// embedder that distrusts its CJK vectors the larger of its CJKTrust
	// and the query's agreement.
	cjkTrust float64
}

// newRanking starts q's ranking; words is the query text its keyword
// evidence is read from (dates.Question.Words).
func newRanking(c *Corpus, q *Query, words string, qvec []float32, cal embed.Calibration) *ranking {
	r := &ranking{c: c, q: q, qvec: qvec, cal: cal, lq: bm25.NewQuery(words), lit: literalForm(q.Text), cjkTrust: 1}
	r.scratch = scratchPool.Get().(*scratch)
	r.lex = &r.scratch.lex
	c.words.Score(r.lq, weakTerm, r.lex)
	if cap(r.scratch.idx) < len(c.slots) {
		r.scratch.idx = make([]int32, len(c.slots))
	}
	r.idx = r.scratch.idx[:len(c.slots)]
	for i := range r.idx {
		r.idx[i] = -1
	}
	r.pool = r.scratch.pool[:0]
	return r
}

// cand is a scored slot during ranking. It holds no pointers, so a query
// with thousands of candidates gives the garbage collector nothing to
// scan; Hits are built for the returned few only.
type cand struct {
	slot       int32
	spreadFrom int32 // seed slot for a spread neighbour, else -1
	pinnedBy   int16 // index into the query's symbols, else -1
	pinned     bool
	specific   bool // holds a specific query symbol (symbolBonus)
	dated      bool // about a day the query asks about (dateBonus)
	literal    bool
	maybeLit   bool  // holds every query term: the literal check may still pay
	litDue     bool  // its literal check was due but skipped: it could not reach the top (settleLiterals)
	newer      int32 // slot+1 of the entry that replaced this one (supersede); 0: none
	plainFirst bool  // plain BM25 ranks it first (floor)
	cos        float64
	ctxCos     float64 // the context's cosine, discounted (contextCos)
	keyword    float64
	hybrid     float64
	// shared: a team pool's entry, not the user's own (index.Options.Shared);
	// its evidence (hybrid, what a Hit reports and the hint gate weighs)
	// stands, its place in the order is taken at sharedPrior (key)
	shared bool
}

// prior is what c's evidence counts for in the order beside the user's
// own entries.
func (cd *cand) prior() float64 {
	if cd.shared {
		return sharedPrior
	}
	return 1
}

// key is what the ranking orders by: the evidence at its prior.
func (cd *cand) key() float64 { return cd.hybrid * cd.prior() }

// get returns s's candidate, making it one. The pointer is valid until
// the next get: pool may grow.
func (r *ranking) get(s int32) *cand {
	if r.idx[s] < 0 {
		r.idx[s] = int32(len(r.pool))
		r.pool = append(r.pool, cand{slot: s, spreadFrom: -1, pinnedBy: -1})
	}
	return &r.pool[r.idx[s]]
}
