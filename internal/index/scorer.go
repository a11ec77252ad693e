package index

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Hybrid weights (issue 3): 0.6 semantic + 0.4 lexical + 0.2 literal bonus;
// a spread neighbour inherits 0.6 of its seed.
const (
	weightCos     = 0.6
	weightKeyword = 0.4
	literalBonus  = 0.2
	spreadFactor  = 0.6
	spreadSeeds   = 3
	defaultLimit  = 10
)

// DefaultCalibration is the compat floor/span (SOMNI_COS_FLOOR 0.40,
// SOMNI_COS_SPAN 0.30) for embedders that do not know their own.
var DefaultCalibration = Calibration{Floor: 0.40, Span: 0.30}

// CalibrationOf returns e's own calibration, else DefaultCalibration.
func CalibrationOf(e Embedder) Calibration {
	if c, ok := e.(Calibrated); ok {
		if cal := c.Calibration(); cal.Span > 0 {
			return cal
		}
	}
	return DefaultCalibration
}

// Scorer is THE hybrid ranking used by every recall path: the index,
// ad-hoc doc sets (conversation turns) and associative hints.
type Scorer struct {
	emb Embedder
	cal Calibration
}

// NewScorer binds the ranking math to an embedder (nil ⇒ off) and its
// calibration (nil ⇒ the embedder's own).
func NewScorer(emb Embedder, cal *Calibration) *Scorer {
	if emb == nil {
		emb = Off()
	}
	c := CalibrationOf(emb)
	if cal != nil && cal.Span > 0 {
		c = *cal
	}
	return &Scorer{emb: emb, cal: c}
}

// Calibration is the floor/span this scorer maps cosines with.
func (sc *Scorer) Calibration() Calibration { return sc.cal }

// Embedder is the embedder the scorer embeds queries with.
func (sc *Scorer) Embedder() Embedder { return sc.emb }

// EmbedQuery embeds one query text; nil (no error) when vectors are off.
func (sc *Scorer) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if IsOff(sc.emb) || strings.TrimSpace(text) == "" {
		return nil, nil
	}
	v, err := sc.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("index: embed query: %w", err)
	}
	if len(v) != 1 {
		return nil, fmt.Errorf("index: embed query: got %d vectors for 1 text", len(v))
	}
	return v[0], nil
}

// ScoreDocs ranks an ad-hoc doc set (e.g. conversation turns parsed from
// session logs) with exactly the math the index uses. Docs are embedded
// on the fly; with many docs prefer the index.
func (sc *Scorer) ScoreDocs(ctx context.Context, q Query, docs []Doc) ([]Hit, error) {
	c := newCorpus()
	for i, d := range docs {
		if d.Path == "" {
			d.Path = fmt.Sprintf("#%d", i)
		}
		c.put(newEntry(d))
	}
	qvec := q.Vector
	if qvec == nil && !IsOff(sc.emb) && len(docs) > 0 {
		texts := make([]string, 0, len(docs)+1)
		texts = append(texts, q.Text)
		for _, s := range c.slots {
			texts = append(texts, EmbedText(s.doc))
		}
		vecs, err := sc.emb.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("index: score docs: embed: %w", err)
		}
		if len(vecs) != len(texts) {
			return nil, fmt.Errorf("index: score docs: got %d vectors for %d texts", len(vecs), len(texts))
		}
		qvec = vecs[0]
		for i, s := range c.slots {
			s.vec = vecs[i+1]
		}
	} else if qvec != nil && len(docs) > 0 {
		texts := make([]string, len(c.slots))
		for i, s := range c.slots {
			texts[i] = EmbedText(s.doc)
		}
		vecs, err := sc.emb.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("index: score docs: embed: %w", err)
		}
		for i, s := range c.slots {
			if i < len(vecs) {
				s.vec = vecs[i]
			}
		}
	}
	return sc.rank(c, q, qvec, 1), nil
}

// queryTerms returns the distinct lexical terms of a query.
func queryTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range Tokenize(q) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// literalForm is the query as it must occur literally for the bonus, or
// "" when it is too short to mean anything (under 3 runes, 2 for CJK).
func literalForm(q string) string {
	l := strings.ToLower(strings.Join(strings.Fields(q), " "))
	n := utf8.RuneCountInString(l)
	r, _ := utf8.DecodeRuneInString(l)
	if n >= 3 || n == 2 && isCJKScript(scriptOf(r)) {
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

// dot is the cosine of two L2-normalised vectors.
func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}

// cand is a scored slot during ranking.
type cand struct {
	slot int32
	hit  Hit
}

// rank is the one ranking routine: candidates, hybrid score, pinning,
// ordering and link spreading over corpus c.
func (sc *Scorer) rank(c *corpus, q Query, qvec []float32, spread int) []Hit {
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	terms := queryTerms(q.Text)
	kw, strong := c.keyword(terms)
	lit := literalForm(q.Text)
	cands := map[int32]*cand{}
	get := func(s int32) *cand {
		cd := cands[s]
		if cd == nil {
			cd = &cand{slot: s}
			cands[s] = cd
		}
		return cd
	}
	// lexical candidates: strong evidence or a literal hit
	for s, k := range kw {
		e := c.slots[s]
		isLit := lit != "" && strings.Contains(e.lower, lit)
		if !strong[s] && !isLit {
			continue
		}
		cd := get(s)
		cd.hit.Keyword = k
		cd.hit.Literal = isLit
	}
	// semantic candidates: cosine above the embedder's noise floor
	if qvec != nil {
		for s, e := range c.slots {
			if e == nil || e.vec == nil {
				continue
			}
			cos := dot(qvec, e.vec)
			if cd := cands[int32(s)]; cd != nil {
				cd.hit.Cos = cos
			} else if cos > sc.cal.Floor {
				cd := get(int32(s))
				cd.hit.Cos = cos
				cd.hit.Keyword = kw[int32(s)]
			}
		}
	}
	// exact-symbol pinning
	for _, sym := range Symbols(q.Text) {
		lsym := strings.ToLower(sym)
		for _, s := range symbolCandidates(c, lsym) {
			e := c.slots[s]
			if !containsSymbol(e.lower, lsym) {
				continue
			}
			cd := get(s)
			if !cd.hit.Pinned {
				cd.hit.Pinned, cd.hit.PinnedBy = true, sym
				cd.hit.Keyword = kw[s]
				cd.hit.Literal = lit != "" && strings.Contains(e.lower, lit)
				if qvec != nil && e.vec != nil {
					cd.hit.Cos = dot(qvec, e.vec)
				}
			}
		}
	}
	list := make([]*cand, 0, len(cands))
	for s, cd := range cands {
		e := c.slots[s]
		if !passes(&q, &e.doc) {
			continue
		}
		cd.hit.Doc = e.doc
		cd.hit.Hybrid = sc.hybrid(cd.hit.Cos, cd.hit.Keyword, cd.hit.Literal)
		list = append(list, cd)
	}
	sortCands(list)
	if spread > 0 && !q.NoSpread {
		list = sc.spread(c, &q, list, cands)
	}
	if len(list) > limit {
		list = list[:limit]
	}
	hits := make([]Hit, len(list))
	for i, cd := range list {
		cd.hit.Terms = matchedTerms(c.slots[cd.slot], terms)
		hits[i] = cd.hit
	}
	return hits
}

// hybrid combines the three signals; cos only counts above the floor.
func (sc *Scorer) hybrid(cos, keyword float64, literal bool) float64 {
	sem := 0.0
	if cos != 0 {
		sem = (cos - sc.cal.Floor) / sc.cal.Span
		sem = max(0, min(1, sem))
	}
	h := weightCos*sem + weightKeyword*keyword
	if literal {
		h += literalBonus
	}
	return h
}

// spread adds one hop of linked neighbours of the top seeds at seed×0.6,
// leaving entries that already scored on their own untouched.
func (sc *Scorer) spread(c *corpus, q *Query, list []*cand, scored map[int32]*cand) []*cand {
	n := min(spreadSeeds, len(list))
	added := false
	for _, seed := range list[:n] {
		for _, nb := range c.neighbours(seed.slot) {
			if _, ok := scored[nb]; ok {
				continue
			}
			e := c.slots[nb]
			if e == nil || !passes(q, &e.doc) {
				continue
			}
			cd := &cand{slot: nb, hit: Hit{Doc: e.doc, Hybrid: seed.hit.Hybrid * spreadFactor,
				SpreadFrom: seed.hit.Doc.Name}}
			scored[nb] = cd
			list = append(list, cd)
			added = true
		}
	}
	if added {
		sortCands(list)
	}
	return list
}

// sortCands orders pinned before unpinned, then by hybrid; stored memory
// strength only breaks ties, then name and path keep the order stable.
func sortCands(list []*cand) {
	sort.Slice(list, func(i, j int) bool {
		a, b := &list[i].hit, &list[j].hit
		if a.Pinned != b.Pinned {
			return a.Pinned
		}
		if a.Hybrid != b.Hybrid {
			return a.Hybrid > b.Hybrid
		}
		if a.Doc.Score != b.Doc.Score {
			return a.Doc.Score > b.Doc.Score
		}
		if a.Doc.Name != b.Doc.Name {
			return a.Doc.Name < b.Doc.Name
		}
		return a.Doc.Path < b.Doc.Path
	})
}

// symbolCandidates narrows the docs that may hold sym verbatim to those
// containing all of its ≥ 2-char word parts; a symbol with no such part
// (e.g. "1.2") falls back to every live doc.
func symbolCandidates(c *corpus, lsym string) []int32 {
	var parts []string
	for _, r := range splitRuns(lsym) {
		if utf8.RuneCountInString(r.text) >= 2 && !isCJKScript(r.script) {
			parts = append(parts, r.text)
		}
	}
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
		if len(c.postings[p]) < len(c.postings[best]) {
			best = p
		}
	}
	return c.postings[best]
}

// matchedTerms lists the query terms an entry holds, longest first, for
// the "why it matched" line.
func matchedTerms(e *entry, terms []string) []string {
	var out []string
	for _, t := range terms {
		if e.tf[t] > 0 {
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
