package embed

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"
)

// Backoff is how long a failed embedding call (e.g. an http server
// that is down) is not retried; entries stay keyword-searchable meanwhile.
const Backoff = 30 * time.Second

// Guard is an Embedder as the ranking uses it: queries in the form the
// embedder wants them, vectors checked before anything ranks by them, and
// after a failure a Backoff during which nothing is embedded for queries,
// so keyword recall answers at once instead of every search waiting on a
// server that is down. It also holds the calibration the ranking maps
// cosines with. Safe for concurrent use.
type Guard struct {
	emb      Embedder
	override *Calibration // fixed floor/span from config; nil ⇒ ask emb per search
	now      func() time.Time
	// downNS: until this time (unix ns) nothing is embedded for queries
	// or ad-hoc docs, after an embedding failure (see MarkDown)
	downNS atomic.Int64
}

// NewGuard guards emb (nil ⇒ off) with its calibration (nil ⇒ the
// embedder's own, read at every search), timing the backoff by now.
func NewGuard(emb Embedder, cal *Calibration, now func() time.Time) *Guard {
	if emb == nil {
		emb = Off()
	}
	g := &Guard{emb: emb, now: now}
	if cal != nil && cal.Span > 0 {
		c := *cal
		g.override = &c
	}
	return g
}

// Embedder is the embedder the guard embeds with, for what it can do
// (IsOff, QueryEmbedder, CJKTrust …) and its ID.
func (g *Guard) Embedder() Embedder { return g.emb }

// Calibration is the floor/span cosines are mapped with now. It is
// read per search, not fixed at construction, because a local BERT model
// measures its own floor and span only after its background load.
func (g *Guard) Calibration() Calibration {
	if g.override != nil {
		return *g.override
	}
	return CalibrationOf(g.emb)
}

// Query embeds one query text with its words weighted by w (nil: not
// weighted) when the embedder can (TermWeighted), else in the embedder's
// query form (QueryEmbedder). It returns nil (no error) when vectors are
// off, the text is blank or the guard is backing off after a failure. A
// failure of the embedder, not the caller's ctx ending, starts the
// backoff, and the error says for how long recall is keyword-only.
func (g *Guard) Query(ctx context.Context, text string, w TermWeights) ([]float32, error) {
	if IsOff(g.emb) || strings.TrimSpace(text) == "" || g.Down() {
		return nil, nil
	}
	var v [][]float32
	var err error
	if tw, ok := g.emb.(TermWeighted); ok && w != nil {
		var one []float32
		one, err = tw.EmbedQueryWeighted(ctx, text, w)
		v = [][]float32{one}
	} else {
		v, err = g.queries(ctx, []string{text})
	}
	if err == nil {
		err = checkVectors(v, 1)
	}
	if err != nil {
		if ctx.Err() == nil { // the embedder failed, not the caller
			g.MarkDown()
			return nil, fmt.Errorf("embed query (keyword-only for %s): %w", Backoff, err)
		}
		return nil, fmt.Errorf("embed query: %w", err)
	}
	return v[0], nil
}

// queries embeds query texts, through EmbedQueries when the embedder
// treats queries differently from stored texts.
func (g *Guard) queries(ctx context.Context, qs []string) ([][]float32, error) {
	if qe, ok := g.emb.(QueryEmbedder); ok {
		return qe.EmbedQueries(ctx, qs)
	}
	return g.emb.Embed(ctx, qs)
}

// Texts embeds texts as stored texts (Embed) and checks the answer
// (checkVectors). It neither asks nor starts the backoff: the caller
// knows whether the ctx that ended was its own and what a failure leaves
// keyword-only, so it calls MarkDown and says so in its log. The error is
// the embedder's or the check's as it came, for the caller to wrap.
func (g *Guard) Texts(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := g.emb.Embed(ctx, texts)
	if err == nil {
		err = checkVectors(vecs, len(texts))
	}
	if err != nil {
		return nil, err
	}
	return vecs, nil
}

// Down reports whether embedding is backing off after a failure.
func (g *Guard) Down() bool { return g.now().UnixNano() < g.downNS.Load() }

// MarkDown starts the Backoff during which queries and ad-hoc docs
// are not embedded: a server that is down or hangs until its timeout
// would otherwise make every search pay for it again, while keyword
// recall can answer at once.
func (g *Guard) MarkDown() { g.downNS.Store(g.now().Add(Backoff).UnixNano()) }

// checkVectors rejects an embedder's answer the ranking cannot use: the
// wrong count, or a NaN or infinite component (its cosine would be NaN,
// which no ordering survives).
func checkVectors(vecs [][]float32, n int) error {
	if len(vecs) != n {
		return fmt.Errorf("got %d vectors for %d texts", len(vecs), n)
	}
	for i, v := range vecs {
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("vector %d has a non-finite component", i)
			}
		}
	}
	return nil
}
