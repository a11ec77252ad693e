package index

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/bm25"
	"github.com/somni-dev/somni/internal/change"
	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/textcut"
	"github.com/somni-dev/somni/internal/textseg"
)

// Hybrid weights, as the design set them (make eval measures any change):
// 0.6 semantic + 0.4 lexical + 0.2 literal bonus; a spread neighbour
// inherits 0.6 of its seed.
const (
	weightCos     = 0.6
	weightKeyword = 0.4
	literalBonus  = 0.2
	spreadFactor  = 0.6
	// symbolBonus is the exact-symbol evidence: it is added to the hybrid
	// of an entry holding a specific symbol of the query verbatim
	// (textseg.Specific: a host, port, identifier or multi-component path,
	// not a flag, a short number or a plain file name). Tool arguments are
	// symbol-rich and prose-poor, so before it `psql -h pg-stage-7 -p 6543`
	// scored 0.10–0.38 against the note naming that host and port and no
	// touching tool call reached the hint threshold on its symbols. A
	// symbol found in several entries lifts them all alike, so the gate's
	// gap rule still withholds an ambiguous one. Tuning half of
	// testdata/recall (tool-calls.json): 0.3/0.35/0.4/0.45/0.52 hinted
	// 12/12/16/18/19 of 21 touching calls with hash, 0 of 61 ordinary calls
	// at each, notes hint precision 1.00 throughout; at 0.52 one specific
	// symbol alone reaches the default threshold (the held-out numbers are
	// in testdata/recall/README.md).
	symbolBonus = 0.52
	// dateBonus is the evidence of being about a day the query asks
	// about ("what did Maya do in March 2024?", "去年五月", "two weeks
	// ago"): the entry's date or a date its text names falls in the
	// query's span (entryDays, dates.QueryDays). Such entries also become
	// candidates without sharing a word. Tuning half of the dialogue
	// eval, temporal R@5 keyword-only / local: none 0.53 / 0.40; 0.1
	// 0.60 / 0.49; 0.2 0.60 / 0.51 (0.67 / 0.61 once "early/mid/late"
	// and 初/中旬/底 narrowed months); 0.3–0.6 the same as 0.2, the dated
	// entries then lead and words order them. Counting an entry's own
	// date as covering the 3 or 7 days before it (talk comes after the
	// event) lost 0.06 and was dropped.
	//
	// What counts as being about the day, and what the date's own words
	// count for, was measured step by step (dates.Question has the
	// numbers); with all of it, dateBonus 0.1 scored 0.86 / 0.87 on
	// LifeBench but lost 0.02–0.08 temporal R@5 on three dialogue sets.
	dateBonus = 0.2
	// outsideBoundDamp scales the hybrid (before the bonuses) of an entry
	// placed wholly outside a bound the query sets ("before March 2026",
	// "7月22日为止"): a question limited to a period may still ask what
	// came after it, its evidence on both sides, so the bound weighs and
	// does not remove. Dropping such entries lost every question of that
	// kind on a held-out Traditional-Chinese set; of LifeBench zh's 585
	// questions one sets a bound, so the real pools cannot tune it: 0.5
	// lets an entry outside the bound above one inside only on twice its
	// evidence.
	outsideBoundDamp = 0.5
	spreadSeeds      = 3
	// agreeK is how many entries the words' and the vectors' top lists
	// are compared over when an embedder distrusts its CJK vectors
	// (embed.ScriptTrusted, ranking.agreement): their overlap is then the
	// semantic part's share within CJK, so glosses count where they agree
	// with the words and fall silent where they do not. Tuning halves,
	// local embedder, CJK characters at 0.25; MADial zh hit@5, Chinese
	// dialogues R@5 as entries / as turns, notes generic hit@1,
	// conversation hit@1, keyword-only beside: off 0.79 / 0.49 / 0.53 /
	// 0.65 / 0.47; the full weight (before) 0.75 / 0.45 / 0.46 / 0.73 /
	// 0.60; none 0.79 / 0.49 / 0.53 / 0.65 / 0.45; k = 3 0.78 / 0.51 /
	// 0.53 / 0.69 / 0.57; k = 5 0.78 / 0.51 / 0.54 / 0.69 / 0.53; k = 10
	// 0.78 / 0.51 / 0.55 / 0.73 / 0.51. Rule stated before choosing: the
	// highest lowest ratio to keyword-only over the five, then the next
	// lowest; every k ties at 0.99 (one MADial dialogue), and k = 10 wins
	// the next (1.04 against 1.00 and 1.02).
	agreeK       = 10
	defaultLimit = 10
	// contextLend is how much of a question's cosine the reply to it
	// borrows (contextCos). On the tuning half of the conversation eval
	// (hash, with answeredDamp 0.8) hit@1 was 0.57 at 0.9, 0.59 at 0.95
	// and 0.61 at 1.0; 1.0 is also the unbiased value: the reply is
	// exactly as relevant as what it answers.
	contextLend = 1.0
	// answeredDamp scales the hybrid (before the literal bonus) of an
	// entry that asks a question some other entry answers: the question
	// names the topic, the answer holds the content, so a question-like
	// query should land on the answer. Tuning half, hash: 0.9 → 0.59,
	// 0.8 → 0.61, 0.7 → 0.61 with hit@5 down one; 0.8 is kept.
	answeredDamp = 0.8
	// askingDamp scales the hybrid of an entry that ends asking a question
	// and has no context to tell whether anything answers it: a memory
	// file holding one conversation turn ("How long do you usually hold
	// that pose?"). It names the topic and holds no answer, so a question
	// -shaped query must not land on it above the turn that replies.
	// Tuning half of the dialogue eval (R@5 ×BM25, keyword-only / local):
	// 1.0 → 1.20 / 1.17, 0.8 → 1.26 / 1.26, 0.6 → 1.33 / 1.31, 0.5 →
	// 1.33 / 1.31, 0.4 → 1.33 / 1.33; 0.5 is kept, the gain having
	// flattened. Damping only entries that do nothing but ask (no
	// sentence ending otherwise) lost 0.05–0.07: a reaction before the
	// question ("Haha, great! Did she like it?") holds no answer either.
	askingDamp = 0.5
	// unexplainedDamp scales the hybrid of a semantic candidate whose
	// only words in common with the query are ones nearly every entry
	// holds (weighing under weakTerm on bm25.Weighted.TermWeight's
	// scale, which bm25.Scores.Telling reports: a speaker's name on all
	// their turns): the cosine brought it in and the words cannot say
	// why. A candidate sharing no word at all is left alone, since that
	// is how a question finds a memory in the other language (cross-
	// lingual hit@1 fell from 0.60 to 0.10 on the tuning half of the
	// notes when it was damped too). Tuning half of the dialogue eval,
	// local R@5 ×BM25 / R@10: no rule 1.34 / 0.56; 0.3 1.37 / 0.59; 0.5
	// 1.36 / 0.59; 0.7 1.35 / 0.59; weakTerm 0.2, 0.3 and 0.4 alike
	// (swept before bm25's weightShare; with it the chosen pair scores
	// the same).
	unexplainedDamp = 0.3
	weakTerm        = 0.3
	// maxQueryRunes bounds the query text the Scorer tokenizes and
	// embeds. Real queries are a sentence or a pasted error line, assoc
	// cues are already cut at 600 runes and an embedder reads about 512
	// tokens, so 4 Ki runes keeps every real query whole, while a 10 MB
	// paste (5 s and 385 MB before) now costs what 4 Ki runes cost. The
	// rest is dropped with a warning in the log and no marker: a marker
	// would be searched for.
	maxQueryRunes = 4 << 10
)

// boundQuery cuts a query to maxQueryRunes. The Scorer applies it wherever
// query text comes in (EmbedQuery, ScoreDocs, rank), which every recall
// path goes through: the index, conversation turns and assoc cues.
func boundQuery(text string) (string, bool) {
	return textcut.Prefix(text, maxQueryRunes)
}

// cutQuery is boundQuery for the text a ranking searches, saying in the log
// that the rest was dropped (EmbedQuery cuts silently: the ranking that
// follows it says so once).
func (sc *Scorer) cutQuery(text string) string {
	cut, clipped := boundQuery(text)
	if clipped {
		sc.log.Warn("query too long; ranking by its start only", "bytes", len(text), "runes_kept", maxQueryRunes)
	}
	return cut
}

// Scorer is THE hybrid ranking used by every recall path: the index,
// ad-hoc doc sets (conversation turns) and associative hints.
type Scorer struct {
	// guard embeds queries and ad-hoc docs, checks the vectors and backs
	// off after a failure; it holds the calibration too (embed.Guard)
	guard *embed.Guard
	log   *slog.Logger
	now   func() time.Time
}

// NewScorer binds the ranking math to an embedder (nil ⇒ off) and its
// calibration (nil ⇒ the embedder's own, read at every search).
func NewScorer(emb embed.Embedder, cal *embed.Calibration) *Scorer {
	sc := &Scorer{log: slog.Default(), now: time.Now}
	// the guard reads the clock through sc, so a clock set after this
	// (Open's Options.Now, a test's) times the backoff as well as the dates
	sc.guard = embed.NewGuard(emb, cal, func() time.Time { return sc.now() })
	return sc
}

// Calibration is the floor/span this scorer maps cosines with now, read
// per search (embed.Guard.Calibration).
func (sc *Scorer) Calibration() embed.Calibration { return sc.guard.Calibration() }

// Embedder is the embedder the scorer embeds queries with.
func (sc *Scorer) Embedder() embed.Embedder { return sc.guard.Embedder() }

// EmbedQuery embeds one query text; nil (no error) when vectors are off
// or the embedder is backing off after a failure (see embed.Guard).
func (sc *Scorer) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return sc.embedQuery(ctx, text, nil)
}

// embedQuery is EmbedQuery with the query's words weighted by w (nil: not
// weighted) when the embedder can (embed.TermWeighted); the index passes
// its corpus' idf (bm25.Weighted.TermWeight).
func (sc *Scorer) embedQuery(ctx context.Context, text string, w embed.TermWeights) ([]float32, error) {
	text, _ = boundQuery(text)
	v, err := sc.guard.Query(ctx, text, w)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return v, nil
}

// ScoreDocs ranks an ad-hoc doc set (e.g. conversation turns parsed from
// session logs) with exactly the math the index uses. Docs are embedded
// on the fly; with many docs prefer the index.
func (sc *Scorer) ScoreDocs(ctx context.Context, q Query, docs []Doc) ([]Hit, error) {
	q.Text = sc.cutQuery(q.Text) // before embedDocs sends it along with the docs
	c := newCorpus()
	for i, d := range docs {
		if d.Path == "" {
			d.Path = fmt.Sprintf("#%d", i)
		}
		c.put(newEntry(d), nil)
	}
	qvec := q.Vector
	if !embed.IsOff(sc.guard.Embedder()) && len(docs) > 0 && strings.TrimSpace(q.Text) != "" && !sc.guard.Down() {
		var err error
		qvec, err = sc.embedDocs(ctx, q, qvec, c)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("index: score docs: %w", err)
			}
			// the embedder failed: rank by keyword, as the index does
			sc.guard.MarkDown()
			sc.log.Warn("embedding failed; ranking by keyword only", "embedder", sc.guard.Embedder().ID(),
				"err", err, "retry_in", embed.Backoff)
			for _, s := range c.slots {
				s.vec = nil
			}
			qvec = q.Vector
		}
	}
	return sc.rank(c, q, qvec, 1), nil
}

// embedDocs embeds c's docs in one Embed call, with the query in front
// unless it is given or needs the embedder's query form, and returns the
// query vector.
func (sc *Scorer) embedDocs(ctx context.Context, q Query, qvec []float32, c *corpus) ([]float32, error) {
	_, ownQueryForm := sc.guard.Embedder().(embed.QueryEmbedder)
	_, weighted := sc.guard.Embedder().(embed.TermWeighted)
	if qvec == nil && (ownQueryForm || weighted) {
		v, err := sc.embedQuery(ctx, q.Text, c.words.TermWeight)
		if err != nil || v == nil {
			return nil, err
		}
		qvec = v
	}
	texts := make([]string, 0, len(c.slots)+1)
	if qvec == nil {
		texts = append(texts, q.Text)
	}
	first := len(texts)
	for _, s := range c.slots {
		texts = append(texts, EmbedText(s.doc))
	}
	vecs, err := sc.guard.Texts(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if first == 1 {
		qvec = vecs[0]
	}
	for i, s := range c.slots {
		s.vec = vecs[first+i]
	}
	return qvec, nil
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

// passes applies the query's filters to a doc.
func passes(q *Query, d *Doc) bool {
	if len(q.Kinds) > 0 {
		ok := false
		for _, k := range q.Kinds {
			if strings.EqualFold(k, d.Kind) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if q.EntryType != "" && !strings.EqualFold(q.EntryType, d.Type) {
		return false
	}
	if !q.Since.IsZero() && (d.When.IsZero() || d.When.Before(q.Since)) {
		return false
	}
	if !q.Until.IsZero() && (d.When.IsZero() || d.When.After(q.Until)) {
		return false
	}
	if len(q.Tags) > 0 {
		ok := false
		for _, want := range q.Tags {
			for _, have := range d.Tags {
				if strings.EqualFold(strings.TrimSpace(want), strings.TrimSpace(have)) {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
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
	newer      int32 // slot+1 of the entry that replaced this one (supersede); 0: none
	plainFirst bool  // plain BM25 ranks it first (floor)
	cos        float64
	ctxCos     float64 // the context's cosine, discounted (contextCos)
	keyword    float64
	hybrid     float64
}

// rank is the one ranking routine: candidates, hybrid score, pinning,
// ordering and link spreading over corpus c. Callers hold whatever keeps
// c still (the index's read lock); each phase below reads c only.
func (sc *Scorer) rank(c *corpus, q Query, qvec []float32, spread int) []Hit {
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	q.Text = sc.cutQuery(q.Text)
	if strings.TrimSpace(q.Text) == "" {
		return listRecent(c, &q, limit)
	}
	qt := dates.ReadQuestion(q.Text, sc.now())
	r := newRanking(c, &q, qt.Words, qvec, sc.Calibration())
	if qvec != nil && textseg.MostlyCJK(q.Text) {
		r.cjkTrust = embed.CJKTrust(sc.guard.Embedder())
	}
	r.lexical()
	if r.cjkTrust < 1 {
		r.cjkTrust = max(r.cjkTrust, r.agreement())
	}
	r.semantic()
	r.dated(qt)
	r.symbols()
	n := max(limit+spreadSeeds, change.Window*limit)
	r.plain()
	list := r.score(n)
	if spread > 0 && !q.NoSpread {
		list = r.spread(list)
	}
	list = r.floor(list)
	list = r.supersede(list, limit, change.AsksPast(qt.Words, len(qt.Bounds) > 0))
	hits := r.finish(list, limit) // copies what it keeps: the arrays can go
	r.scratch.pool = r.pool[:0]
	scratchPool.Put(r.scratch)
	return hits
}

// ranking is one query's state while rank runs its phases over a corpus:
// the query's lexical view, and the candidates found so far.
type ranking struct {
	c    *corpus
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
func newRanking(c *corpus, q *Query, words string, qvec []float32, cal embed.Calibration) *ranking {
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

// get returns s's candidate, making it one. The pointer is valid until
// the next get: pool may grow.
func (r *ranking) get(s int32) *cand {
	if r.idx[s] < 0 {
		r.idx[s] = int32(len(r.pool))
		r.pool = append(r.pool, cand{slot: s, spreadFrom: -1, pinnedBy: -1})
	}
	return &r.pool[r.idx[s]]
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
	if r.own == nil {
		r.own = make([]float64, len(r.c.slots))
		for s, e := range r.c.slots {
			if e != nil && e.vec != nil {
				r.own[s] = embed.Dot(r.qvec, e.vec)
			}
		}
	}
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

// semantic admits the semantic candidates: cosine above the embedder's
// noise floor, the entry's own or, discounted, its context's (see
// contextCos); and gives the lexical ones their cosines.
func (r *ranking) semantic() {
	c, qvec := r.c, r.qvec
	if qvec == nil {
		return
	}
	if r.own == nil && len(c.ctxRefs) > 0 {
		r.own = make([]float64, len(c.slots))
		for s, e := range c.slots {
			if e != nil && e.vec != nil {
				r.own[s] = embed.Dot(qvec, e.vec)
			}
		}
	}
	own := r.own
	for s, e := range c.slots {
		if e == nil || e.vec == nil {
			continue
		}
		var cos, ctx float64
		if own == nil { // no contexts: the plain scan, kept free of calls
			cos = embed.Dot(qvec, e.vec)
		} else {
			cos, ctx = own[s], contextCos(c, e, own)
		}
		if r.idx[s] >= 0 {
			r.pool[r.idx[s]].cos, r.pool[r.idx[s]].ctxCos = cos, ctx
		} else if max(cos, ctx) > r.cal.Floor && r.semWeight(e) > 0 {
			cd := r.get(int32(s))
			cd.cos, cd.ctxCos = cos, ctx
			cd.keyword = r.lex.Score[s]
		}
	}
}

// cosines is slot s's own and context cosine (see semantic).
func (r *ranking) cosines(s int32, e *entry) (cos, ctx float64) {
	if r.own == nil {
		return embed.Dot(r.qvec, e.vec), 0
	}
	return r.own[s], contextCos(r.c, e, r.own)
}

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
		if !passes(q, &e.doc) {
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
		list = append(list, cd)
	}
	bar := kthBest(list, k) // an unpinned entry below this cannot be returned
	for _, cd := range list {
		if cd.maybeLit && (cd.pinned || cd.hybrid+literalBonus >= bar) &&
			c.slots[cd.slot].holds(r.lit, strings.Contains) {
			cd.literal = true
			cd.hybrid += literalBonus
		}
	}
	// only the top of the list is returned (plus spread seeds): select it
	// before sorting so a 10k-candidate query does not sort everything
	return topK(c, list, k)
}

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
		h := Hit{Doc: e.doc, Hybrid: cd.hybrid, Cos: cd.cos, ContextCos: cd.ctxCos, Keyword: cd.keyword, Literal: cd.literal,
			Pinned: cd.pinned}
		if cd.pinnedBy >= 0 {
			h.PinnedBy = r.syms[cd.pinnedBy]
		}
		if cd.newer != 0 {
			h.SupersededBy = c.slots[cd.newer-1].doc.Name
		}
		if cd.spreadFrom >= 0 {
			h.SpreadFrom = c.slots[cd.spreadFrom].doc.Name // came by the link: no terms to show
		} else {
			h.Terms = matchedTerms(e, r.lq.Terms())
			h.Words = words.Words(h.Terms)
		}
		hits[i] = h
	}
	return hits
}

// listRecent answers an empty query (a listing, or search_episodes with
// only filters): every entry passing the filters, episodes newest first,
// then strongest.
func listRecent(c *corpus, q *Query, limit int) []Hit {
	var es []*entry
	for _, e := range c.slots {
		if e != nil && passes(q, &e.doc) {
			es = append(es, e)
		}
	}
	sort.Slice(es, func(i, j int) bool {
		a, b := &es[i].doc, &es[j].doc
		// episodes list newest first; knowledge and skills carry a date
		// too (when they were recorded) but list strongest first
		if a.Kind == KindEpisode && b.Kind == KindEpisode && !a.When.Equal(b.When) {
			return a.When.After(b.When)
		}
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Path < b.Path
	})
	hits := make([]Hit, 0, min(limit, len(es)))
	for _, e := range es[:min(limit, len(es))] {
		hits = append(hits, Hit{Doc: e.doc})
	}
	return hits
}

// semWeight is the weight of e's cosine in its hybrid: weightCos, times the
// embedder's CJKTrust when a mostly-CJK query meets a mostly-CJK entry (its
// words can be matched, so the weaker vectors only add noise to them).
func (r *ranking) semWeight(e *entry) float64 {
	if r.cjkTrust < 1 && e.cjk {
		return weightCos * r.cjkTrust
	}
	return weightCos
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

// spread adds one hop of linked neighbours of the top seeds at seed×0.6,
// leaving entries that already scored on their own untouched.
func (r *ranking) spread(list []*cand) []*cand {
	c, q, idx := r.c, r.q, r.idx
	n := min(spreadSeeds, len(list))
	added := false
	for _, seed := range list[:n] {
		for _, nb := range c.neighbours(seed.slot) {
			if idx[nb] >= 0 {
				continue
			}
			e := c.slots[nb]
			if e == nil || !passes(q, &e.doc) {
				continue
			}
			idx[nb] = 0 // marks it scored so a second seed does not add it again
			cd := &cand{slot: nb, spreadFrom: seed.slot, pinnedBy: -1, hybrid: seed.hybrid * spreadFactor}
			list = append(list, cd)
			added = true
		}
	}
	if added {
		sortCands(c, list)
	}
	return list
}

// kthBest is the k-th highest hybrid among unpinned candidates (-Inf
// when there are fewer), computed with a size-k min-heap.
func kthBest(list []*cand, k int) float64 {
	h := make([]float64, 0, k)
	for _, cd := range list {
		if cd.pinned {
			continue
		}
		v := cd.hybrid
		switch {
		case len(h) < k:
			h = append(h, v)
			for i := len(h) - 1; i > 0 && h[(i-1)/2] > h[i]; i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
		case v > h[0]:
			h[0] = v
			for i := 0; ; {
				l, r, m := 2*i+1, 2*i+2, i
				if l < len(h) && h[l] < h[m] {
					m = l
				}
				if r < len(h) && h[r] < h[m] {
					m = r
				}
				if m == i {
					break
				}
				h[i], h[m] = h[m], h[i]
				i = m
			}
		}
	}
	if len(h) < k {
		return math.Inf(-1)
	}
	return h[0]
}

// topK returns the k best candidates in order (all of them when fewer).
func topK(c *corpus, list []*cand, k int) []*cand {
	if len(list) <= 4*k {
		sortCands(c, list)
		return list[:min(k, len(list))]
	}
	// partial selection: keep a sorted window of the best k seen so far
	best := make([]*cand, 0, k+1)
	for _, cd := range list {
		if len(best) == k && !better(c, cd, best[k-1]) {
			continue
		}
		i := sort.Search(len(best), func(i int) bool { return better(c, cd, best[i]) })
		best = append(best, nil)
		copy(best[i+1:], best[i:])
		best[i] = cd
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// better is the ranking order: pinned first, then hybrid; stored memory
// strength only breaks ties, then name and path keep the order stable.
func better(c *corpus, x, y *cand) bool {
	if x.pinned != y.pinned {
		return x.pinned
	}
	if x.hybrid != y.hybrid {
		return x.hybrid > y.hybrid
	}
	a, b := &c.slots[x.slot].doc, &c.slots[y.slot].doc
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.Path < b.Path
}

// sortCands orders pinned before unpinned, then by hybrid; stored memory
// strength only breaks ties, then name and path keep the order stable.
func sortCands(c *corpus, list []*cand) {
	sort.Slice(list, func(i, j int) bool { return better(c, list[i], list[j]) })
}

// symbolCandidates narrows the docs that may hold sym verbatim to those
// containing its rarest indexed word part; a symbol with no such part
// (e.g. "1.2") falls back to every live doc.
func symbolCandidates(c *corpus, lsym string) []int32 {
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

// matchedTerms lists the query terms an entry holds, longest first, for
// the "why it matched" line.
func matchedTerms(e *entry, terms []string) []string {
	var out []string
	have := docTerms(e.doc)
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

// contextCos is the semantic evidence an entry borrows from its context
// when that context is a question: the question's own cosine with the
// query, times contextLend. A reply is found through the question it
// answers ("几点开门" reaches "上午九点到下午五点十五" only via "几点开门？"), so
// it is as relevant as that question; a context that does not ask lends
// nothing, since a turn after a statement need not be about it. The
// question's vector is its own entry's, so this costs no embedding.
func contextCos(c *corpus, e *entry, own []float64) float64 {
	s := c.contextSlot(e)
	if s < 0 || !c.slots[s].asks {
		return 0
	}
	return contextLend * own[s]
}
