package bm25

import (
	"math"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/textseg"
)

// cjkCharWeight is the share of its BM25 value a single CJK character
// of the query counts for (textseg.IndexTerms). Tuning halves, keyword-only,
// 0 / 0.25 / 0.5 / 1.0: MADial zh hit@5 0.78 / 0.79 / 0.75 / 0.72;
// Chinese dialogues R@5 as entries 0.47 / 0.49 / 0.49 / 0.50, as turns
// 0.50 / 0.53 / 0.55 / 0.55; notes generic hit@1 0.62 / 0.65 / 0.65 /
// 0.65; conversation hit@1 0.49 / 0.47 / 0.43 / 0.40. 0.25 is the one
// weight that loses nothing but one conversation question.
const cjkCharWeight = 0.25

// Query is a query's lexical view for Weighted: its distinct terms and,
// for each CJK run, which term each 1–4-char window is.
//
// A CJK run is matched through its overlapping windows, so summing every
// matched window would count one long match many times: "宠物医院" found
// whole matches six windows (宠物 物医 医院 宠物医 物医院 宠物医院) while two
// separate words ("周末", "营业") match two. Instead each run is scored by
// its best segmentation into non-overlapping windows the doc holds (a
// small dynamic programme, like a word segmenter whose dictionary is the
// doc): a doc holding "宠物医院" scores it once, as one piece or as 宠物 +
// 医院, whichever BM25 values more.
type Query struct {
	terms []string
	runs  [][][4]int16 // per CJK run, per start: term index of its 1-, 2-, 3-, 4-char window, -1 if none
	inRun []bool       // terms[i] is a window of some CJK run, scored by segmentation
	char  []bool       // terms[i] is a single character of a CJK run (textseg.IndexTerms' back-off)
}

// NewQuery builds the lexical view of query text q.
func NewQuery(q string) *Query {
	lq := &Query{terms: queryTerms(q)}
	if len(lq.terms) > math.MaxInt16 {
		lq.terms = lq.terms[:math.MaxInt16] // a query this long is not a question
	}
	pos := make(map[string]int16, len(lq.terms))
	for i, t := range lq.terms {
		pos[t] = int16(i)
	}
	lq.inRun = make([]bool, len(lq.terms))
	lq.char = make([]bool, len(lq.terms))
	for _, r := range textseg.Runs(q) {
		rs := []rune(r.Text)
		if !r.CJK || len(rs) < 2 {
			continue // a 1-char CJK run is one whole token, scored like a word
		}
		run := make([][4]int16, len(rs))
		for p := range rs {
			for n := 1; n <= 4; n++ {
				run[p][n-1] = -1
				if p+n > len(rs) {
					continue
				}
				if i, ok := pos[string(rs[p:p+n])]; ok { // stopwords are not terms
					run[p][n-1] = i
					lq.inRun[i] = true
					lq.char[i] = lq.char[i] || n == 1
				}
			}
		}
		lq.runs = append(lq.runs, run)
	}
	return lq
}

// Terms are the query's distinct terms (textseg.IndexTerms), in order;
// the caller must not change them.
func (lq *Query) Terms() []string { return lq.terms }

// queryTerms returns the distinct lexical terms of a query.
func queryTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range textseg.IndexTerms(q) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Scores is one query's keyword result, dense over document ids. Its
// arrays are reused by the next Score into the same Scores: at 10k
// documents they are about 0.5 MB a query, which a caller ranking often
// keeps (a sync.Pool) rather than leaving to the collector.
type Scores struct {
	Score   []float64 // normalised BM25 in [0, 1], 0 when no term matched
	Strong  []bool    // a matched term is strong evidence on its own (textseg.StrongTerm)
	Matched []uint16  // number of distinct query terms matched
	Telling []bool    // a matched term is not near-universal (its weight reaches Score's telling)
	Touched []int32   // documents with a matched term, in the order first matched
	wins    []winHit
}

// winHit is one doc's BM25 value of one windowed CJK term.
type winHit struct {
	doc  int32
	term int16
	v    float32
}

// zeroed is s with length n, every element zero, reusing its array when it can.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Score scores every document that shares a term with lq into ls: BM25
// over the weighted term frequency, CJK runs by their best segmentation
// (see Query), divided by the query's ideal score. A document that holds
// one of several query words, or one word once, therefore cannot reach 1.
// A document holding a term whose weight (TermWeight's scale) is at
// least telling is marked Telling.
func (w *Weighted) Score(lq *Query, telling float64, ls *Scores) {
	n := len(w.lens)
	ls.Score, ls.Strong, ls.Matched = zeroed(ls.Score, n), zeroed(ls.Strong, n), zeroed(ls.Matched, n)
	ls.Telling, ls.Touched = zeroed(ls.Telling, n), ls.Touched[:0]
	if w.live == 0 || len(lq.terms) == 0 {
		return
	}
	avg := w.total / float64(w.live)
	if avg <= 0 {
		avg = 1
	}
	wins := ls.wins[:0]
	defer func() { ls.wins = wins[:0] }()
	for i, t := range lq.terms {
		idf := w.idf(t)
		isStrong := textseg.StrongTerm(t)
		tells := w.weightOf(t) >= telling
		for _, p := range w.Postings(t) {
			tf := float64(p.TF)
			v := idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(w.lens[p.Doc])/avg))
			if lq.char[i] {
				v *= cjkCharWeight
			}
			if ls.Matched[p.Doc] == 0 {
				ls.Touched = append(ls.Touched, p.Doc)
			}
			ls.Matched[p.Doc]++
			if isStrong {
				ls.Strong[p.Doc] = true
			}
			if tells {
				ls.Telling[p.Doc] = true
			}
			if lq.inRun[i] {
				wins = append(wins, winHit{p.Doc, int16(i), float32(v)})
			} else {
				ls.Score[p.Doc] += v
			}
		}
	}
	maxRun := 0
	for _, run := range lq.runs {
		maxRun = max(maxRun, len(run))
	}
	best := make([]float64, maxRun+1)
	if len(wins) > 0 {
		w.segmentDocs(lq, ls, wins, best)
	}
	ideal := w.ideal(lq, best, false)
	if ideal == 0 {
		ideal = w.ideal(lq, best, true)
	}
	if ideal > 0 {
		for _, s := range ls.Touched {
			// characters are outside the ideal, so a doc holding every
			// window and more characters could pass it
			ls.Score[s] = min(1, ls.Score[s]/ideal)
		}
	}
}

// segmentDocs adds to each doc's score the best segmentation of every
// query CJK run over the windows the doc holds.
func (w *Weighted) segmentDocs(lq *Query, ls *Scores, wins []winHit, best []float64) {
	// group wins by document (counting sort over the documents that have any)
	start := make([]int32, len(w.lens)+1)
	for _, h := range wins {
		start[h.doc+1]++
	}
	for s := 1; s < len(start); s++ {
		start[s] += start[s-1]
	}
	grouped := make([]winHit, len(wins))
	fill := append([]int32(nil), start[:len(w.lens)]...)
	for _, h := range wins {
		grouped[fill[h.doc]] = h
		fill[h.doc]++
	}
	vals := make([]float64, len(lq.terms))
	val := func(i int16) float64 { return vals[i] }
	for _, s := range ls.Touched {
		ws := grouped[start[s]:start[s+1]]
		if len(ws) == 0 {
			continue
		}
		for _, h := range ws {
			vals[h.term] = float64(h.v)
		}
		for _, run := range lq.runs {
			ls.Score[s] += textseg.Segment(run, val, best)
		}
		for _, h := range ws {
			vals[h.term] = 0
		}
	}
}

// ideal is the query's best possible BM25 sum, Σ idf·(k1+1): every term
// outside CJK runs, plus each run's best segmentation into windows some
// document holds. Windows no document holds (segmentation artefacts such
// as "后不该喝") stay out of it, so they neither help nor dilute, and no
// doc can exceed it: its own segmentation is one the ideal considered.
//
// Single characters (textseg.IndexTerms' back-off) count only when nothing else
// could be held (chars): then they are all the query can be matched by,
// at their own weight.
func (w *Weighted) ideal(lq *Query, best []float64, chars bool) float64 {
	var sum float64
	for i, t := range lq.terms {
		if !lq.inRun[i] && (!isCJKTerm(t) || len(w.Postings(t)) > 0) {
			sum += w.idf(t) * (k1 + 1)
		}
	}
	val := func(i int16) float64 {
		t := lq.terms[i]
		if len(w.Postings(t)) == 0 {
			return 0
		}
		switch {
		case !lq.char[i]:
			return w.idf(t) * (k1 + 1)
		case chars:
			return cjkCharWeight * w.idf(t) * (k1 + 1)
		}
		return 0
	}
	for _, run := range lq.runs {
		sum += textseg.Segment(run, val, best)
	}
	return sum
}

// isCJKTerm reports whether t is a CJK, kana or Hangul window.
func isCJKTerm(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return textseg.IsCJK(r)
}
