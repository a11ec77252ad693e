package main

import (
	"context"
	"math"
	"sort"
	"strings"
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
func bm25System(docs []index.Doc, withContext bool) *system {
	type doc struct {
		path string
		tf   map[string]int
		dl   int
	}
	var ds []doc
	df := map[string]int{}
	total := 0
	for _, d := range docs {
		x := doc{path: d.Path, tf: map[string]int{}}
		text := d.Name + "\n" + d.Description + "\n" + d.Body
		if withContext {
			text += "\n" + d.Context
		}
		for _, t := range plainTokens(text) {
			x.tf[t]++
			x.dl++
		}
		for t := range x.tf {
			df[t]++
		}
		total += x.dl
		ds = append(ds, x)
	}
	avg := float64(total) / float64(len(ds))
	n := float64(len(ds))
	name := "bm25 baseline"
	if withContext {
		name += " (+ previous turn)"
	}
	return &system{name: name, search: func(_ context.Context, q string, k int) ([]string, error) {
		seen := map[string]bool{}
		type scored struct {
			path  string
			score float64
		}
		var res []scored
		scores := make([]float64, len(ds))
		for _, t := range plainTokens(q) {
			if seen[t] {
				continue
			}
			seen[t] = true
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			for i, d := range ds {
				if tf := float64(d.tf[t]); tf > 0 {
					scores[i] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(d.dl)/avg))
				}
			}
		}
		for i, s := range scores {
			if s > 0 {
				res = append(res, scored{ds[i].path, s})
			}
		}
		sort.SliceStable(res, func(i, j int) bool { return res[i].score > res[j].score })
		var out []string
		for i := 0; i < len(res) && i < k; i++ {
			out = append(out, res[i].path)
		}
		return out, nil
	}, close: func() {}}
}
