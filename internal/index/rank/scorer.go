package rank

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

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
	// sharedPrior is what a shared entry's evidence (a team pool's,
	// index.Options.Shared) counts for in the order beside the user's own: a
	// teammate's entry ranks above the user's own on twice the evidence.
	// Its hybrid, what a hit reports and the hint gate weighs, is left as
	// it is. Tuning half of make eval's team tables (MADial-Bench, the
	// dialogues, RealMem, notes; a pool of unrelated entries as large as
	// the user's), hit@5 with the pool minus without, pooled, off / hash /
	// local: 1 (ranked as one pool) −7.4 / −7.6 / −4.4 points; 0.75 −2.5 /
	// −2.3 / −2.3; 0.5 +1.2 / +0.8 / +0.2. What it costs, the same tables
	// with the roles turned (the gold a teammate's, the unrelated entries
	// the user's own): 1 −9.5 / −9.7 / −6.7; 0.75 −17.3 / −16.6 / −11.0;
	// 0.5 −30.9 / −28.1 / −23.5. A prior only moves the loss from one
	// side to the other: the prior on shared entries without a telling
	// term only (bm25.Scores.Telling) left both sides where 1 did (off
	// −7.4 / −9.5), the crowding entries hold telling terms too. The rule
	// chosen is the issue's: the user's own memory does not lose to a
	// pool's noise. The turned tables ask questions about a person's own
	// life of a teammate's pool, which a pool of shared knowledge would
	// not hold; a teammate's entry that holds a host, a port or a name of
	// the question verbatim is pinned above the user's own, one that says
	// it twice as strongly comes first, and its hybrid still reaches the
	// hint gate.
	sharedPrior = 0.5
	spreadSeeds = 3
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
	// (index.Open's Options.Now, a test's) times the backoff as well as the dates
	sc.guard = embed.NewGuard(emb, cal, func() time.Time { return sc.now() })
	return sc
}

// SetLog sets the logger and the clock the scorer reads (the index's
// Options.Logger and Options.Now); the guard's backoff is timed by the
// same clock.
func (sc *Scorer) SetLog(log *slog.Logger, now func() time.Time) { sc.log, sc.now = log, now }

// Guard is the guard the scorer embeds through, for the index's
// background embedder: it embeds entries through the same one, so a
// failure there backs off queries too, and recall falls back to keywords.
func (sc *Scorer) Guard() *embed.Guard { return sc.guard }

// Calibration is the floor/span this scorer maps cosines with now, read
// per search (embed.Guard.Calibration).
func (sc *Scorer) Calibration() embed.Calibration { return sc.guard.Calibration() }

// Embedder is the embedder the scorer embeds queries with.
func (sc *Scorer) Embedder() embed.Embedder { return sc.guard.Embedder() }

// EmbedQuery embeds one query text; nil (no error) when vectors are off
// or the embedder is backing off after a failure (see embed.Guard).
func (sc *Scorer) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return sc.EmbedQueryWeighted(ctx, text, nil)
}

// EmbedQueryWeighted is EmbedQuery with the query's words weighted by w
// (nil: not weighted) when the embedder can (embed.TermWeighted); the
// index passes its corpus' idf (Corpus.TermWeight).
func (sc *Scorer) EmbedQueryWeighted(ctx context.Context, text string, w embed.TermWeights) ([]float32, error) {
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
		c.Put(NewEntry(d), nil)
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
			for s := range c.slots {
				c.setVec(int32(s), nil)
			}
			qvec = q.Vector
		}
	}
	return sc.Rank(c, q, qvec, 1), nil
}

// embedDocs embeds c's docs in one Embed call, with the query in front
// unless it is given or needs the embedder's query form, and returns the
// query vector.
func (sc *Scorer) embedDocs(ctx context.Context, q Query, qvec []float32, c *Corpus) ([]float32, error) {
	_, ownQueryForm := sc.guard.Embedder().(embed.QueryEmbedder)
	_, weighted := sc.guard.Embedder().(embed.TermWeighted)
	if qvec == nil && (ownQueryForm || weighted) {
		v, err := sc.EmbedQueryWeighted(ctx, q.Text, c.words.TermWeight)
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
		texts = append(texts, EmbedText(s.Doc))
	}
	vecs, err := sc.guard.Texts(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if first == 1 {
		qvec = vecs[0]
	}
	for s := range c.slots {
		c.setVec(int32(s), vecs[first+s])
	}
	return qvec, nil
}

// Rank is the one ranking routine: candidates, hybrid score, pinning,
// ordering and link spreading over corpus c; spread > 0 spreads one hop.
// Callers hold whatever keeps c still (the index's read lock); each phase
// below reads c only.
func (sc *Scorer) Rank(c *Corpus, q Query, qvec []float32, spread int) []Hit {
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
