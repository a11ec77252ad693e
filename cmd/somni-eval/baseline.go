package main

import (
	"context"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/somni-dev/somni/internal/index"
)

// plainTokens is the baseline's textbook analyzer: lowercase, split on
// anything that is not a letter or digit, CJK runs as overlapping bigrams
// (Lucene's CJK analyzer), no stopwords, no stemming.
func plainTokens(s string) []string {
	var out []string
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) > 0 {
			out = append(out, string(word))
			word = word[:0]
		}
	}
	flushCJK := func() {
		switch {
		case len(cjk) == 1:
			out = append(out, string(cjk))
		case len(cjk) > 1:
			for i := 0; i+2 <= len(cjk); i++ {
				out = append(out, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushCJK()
			word = append(word, r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	return out
}

// bm25System is the textbook baseline: Okapi BM25 (k1 1.2, b 0.75) over
// name+description+body as one field with plainTokens; no field weights,
// no pinning, no literal bonus, no candidate rules, no vectors.
//
// withContext appends each doc's Context (the previous turn) to that one
// field: the baseline given the same turn representation as the index.
// The system grows like an index does (system.grow): statistics are
// recomputed from the entries present at each search, as Lucene's are.
func bm25System(docs []index.Doc, withContext bool) *system {
	b := &bm25{withContext: withContext, post: map[string][]bm25Posting{}}
	b.add(docs)
	name := "bm25 baseline"
	if withContext {
		name += " (+ previous turn)"
	}
	return &system{name: name, search: b.search,
		grow: func(_ context.Context, docs []index.Doc, _ time.Time) error {
			b.add(docs)
			return nil
		}, close: func() {}}
}

// bm25 is the baseline's inverted index: per term the entries holding it
// with their counts (its document frequency is their number), per entry
// its path and length.
type bm25 struct {
	withContext bool
	paths       []string
	lens        []int
	post        map[string][]bm25Posting
	total       int // summed lengths, for the average
}

type bm25Posting struct{ doc, tf int }

// add tokenizes docs into the index; growing pools only add, so a path is
// never replaced.
func (b *bm25) add(docs []index.Doc) {
	for _, d := range docs {
		text := d.Name + "\n" + d.Description + "\n" + d.Body
		if b.withContext {
			text += "\n" + d.Context
		}
		tf := map[string]int{}
		dl := 0
		for _, t := range plainTokens(text) {
			tf[t]++
			dl++
		}
		id := len(b.paths)
		for t, n := range tf {
			b.post[t] = append(b.post[t], bm25Posting{id, n})
		}
		b.paths = append(b.paths, d.Path)
		b.lens = append(b.lens, dl)
		b.total += dl
	}
}

// search ranks every entry holding a query term by BM25, best first.
func (b *bm25) search(_ context.Context, q string, k int) ([]string, error) {
	if len(b.paths) == 0 {
		return nil, nil
	}
	n := float64(len(b.paths))
	avg := float64(b.total) / n
	seen := map[string]bool{}
	scores := map[int]float64{}
	for _, t := range plainTokens(q) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := b.post[t]
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			scores[p.doc] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(b.lens[p.doc])/avg))
		}
	}
	type scored struct {
		doc   int
		score float64
	}
	res := make([]scored, 0, len(scores))
	for d, s := range scores {
		res = append(res, scored{d, s})
	}
	// ties in entry order, as a stable sort over the entries would give
	sort.Slice(res, func(i, j int) bool {
		if res[i].score != res[j].score {
			return res[i].score > res[j].score
		}
		return res[i].doc < res[j].doc
	})
	var out []string
	for i := 0; i < len(res) && i < k; i++ {
		out = append(out, b.paths[res[i].doc])
	}
	return out, nil
}
