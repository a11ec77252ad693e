// Package bm25 is keyword search over an inverted index, in two forms.
//
// Index is keyword search as the textbook ranks it, the floor somni's
// recall is held to: Okapi BM25 (k1 1.2, b 0.75) over one field, with the
// language's standard analyzer (Tokens): lowercase words for alphabetic
// scripts, overlapping character bigrams for CJK runs (Lucene's
// CJKAnalyzer), no stop words, no stems, no folding. One type serves both
// sides of the comparison: the recall index keeps an Index beside its
// weighted one and holds its first result in a Chinese question's first
// places (package index), and make eval's
// baseline is the same Index, so the floor is exactly the baseline it is
// measured against.
//
// Weighted is the keyword evidence of somni's own hybrid scorer (package
// index): the same BM25 constants over terms the caller analysed (package
// textseg: stems, CJK windows and single characters) with its field
// weights folded into each term's frequency. A query's CJK runs are
// scored by their best segmentation into the windows a document holds,
// and every score is divided by the query's ideal, so it lies in [0, 1]
// and says how much of the query a document answers. It also tells the
// index how rare a word is (TermWeight), which weighs a query's words in
// a feature-sum embedding.
//
// Map:
//   - bm25.go      Index: Add, Remove, Search over dense document ids.
//   - tokens.go    Tokens, the standard analyzer.
//   - weighted.go  Weighted: postings of weighted term frequencies (Post,
//     Remove, Compact), their statistics, TermWeight.
//   - query.go     Query, a query's lexical view with its CJK runs, and
//     Weighted.Score: normalised BM25 and the evidence besides it (Scores).
package bm25

import (
	"math"
	"sort"
)

// Okapi BM25's constants as Lucene sets them, for Index and Weighted alike.
const (
	k1 = 1.2
	b  = 0.75
)

// Index is an inverted index over documents named by small dense ids
// (the recall index's slots, the baseline's entry numbers). It is not
// safe for concurrent writes; the caller's lock guards it as it guards
// the documents.
type Index struct {
	post  map[string][]Count
	lens  []int32 // by id: the document's token count; -1 = no document
	live  int
	total int64 // summed lengths of the live documents
}

// Count is how often a term occurs in a document: one posting of an
// Index.
type Count struct{ Doc, TF int32 }

func (p Count) docID() int32 { return p.Doc }

// dropDoc is list without doc's posting, the last posting moved into its
// place: a list's order means nothing.
func dropDoc[P interface{ docID() int32 }](list []P, doc int32) []P {
	for i, p := range list {
		if p.docID() == doc {
			list[i] = list[len(list)-1]
			return list[:len(list)-1]
		}
	}
	return list
}

// Scored is a document and its BM25 score for one query.
type Scored struct {
	Doc   int32
	Score float64
}

// New returns an empty Index.
func New() *Index { return &Index{post: map[string][]Count{}} }

// Len is the number of documents in the index.
func (x *Index) Len() int { return x.live }

// Add indexes text as document doc, which must not be in the index.
func (x *Index) Add(doc int32, text string) {
	tf := map[string]int32{}
	n := int32(0)
	for _, t := range Tokens(text) {
		tf[t]++
		n++
	}
	for t, c := range tf {
		x.post[t] = append(x.post[t], Count{doc, c})
	}
	for int(doc) >= len(x.lens) {
		x.lens = append(x.lens, -1)
	}
	x.lens[doc] = n
	x.live++
	x.total += int64(n)
}

// Each calls f with every term and its postings, then Lens is every
// document's length: what RestoreIndex takes back (a snapshot of the
// index; f must not keep or change the list, nor the caller Lens).
func (x *Index) Each(f func(term string, list []Count)) {
	for t, l := range x.post {
		f(t, l)
	}
}

// Lens is the token count of every document by id, -1 where there is none.
func (x *Index) Lens() []int32 { return x.lens }

// RestoreIndex is an Index holding post and documents of lengths lens
// (-1: no document), Each's and Lens' output put back without
// tokenizing anything. It takes ownership of both.
func RestoreIndex(post map[string][]Count, lens []int32) *Index {
	x := &Index{post: post, lens: lens}
	for _, n := range lens {
		if n >= 0 {
			x.live++
			x.total += int64(n)
		}
	}
	return x
}

// Remove drops document doc, whose text was text when it was added.
func (x *Index) Remove(doc int32, text string) {
	if int(doc) >= len(x.lens) || x.lens[doc] < 0 {
		return
	}
	seen := map[string]bool{}
	for _, t := range Tokens(text) {
		if seen[t] {
			continue
		}
		seen[t] = true
		list := dropDoc(x.post[t], doc)
		if len(list) == 0 {
			delete(x.post, t)
		} else {
			x.post[t] = list
		}
	}
	x.live--
	x.total -= int64(x.lens[doc])
	x.lens[doc] = -1
}

// Search returns the k documents with the highest BM25 score for query
// among those keep accepts (nil: all), best first; ties go to the lower
// id, as a stable sort over the documents in order would give.
func (x *Index) Search(query string, k int, keep func(doc int32) bool) []Scored {
	if x.live == 0 || k <= 0 {
		return nil
	}
	n := float64(x.live)
	avg := float64(x.total) / n
	// dense over ids, with the ones touched listed: a map here made a
	// Chinese question over a large store (its bigrams in most notes) slow
	// (measured in docs/ARCHITECTURE.md, Measurements)
	scores := make([]float64, len(x.lens))
	var touched []int32
	seen := map[string]bool{}
	for _, t := range Tokens(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		list := x.post[t]
		df := float64(len(list))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range list {
			tf := float64(p.TF)
			if scores[p.Doc] == 0 {
				touched = append(touched, p.Doc)
			}
			scores[p.Doc] += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(x.lens[p.Doc])/avg))
		}
	}
	better := func(a, b Scored) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Doc < b.Doc
	}
	var out []Scored
	for _, d := range touched {
		c := Scored{d, scores[d]}
		if len(out) == k && !better(c, out[k-1]) || keep != nil && !keep(d) {
			continue
		}
		i := sort.Search(len(out), func(i int) bool { return better(c, out[i]) })
		out = append(out, Scored{})
		copy(out[i+1:], out[i:])
		out[i] = c
		out = out[:min(len(out), k)]
	}
	return out
}
