package worktools

import "github.com/somni-dev/somni/internal/index/rank"

// The index ranks; what is worth showing a person or a model of its hits
// is decided here, where the recall tools and the CLI answer.

// meaningFloor is the score a hit found by meaning alone needs to be shown.
// The embedders' noise floors let about one unrelated entry in a hundred
// through as a semantic candidate (the ranking wants them: a memory in the
// other language shares no word with the question), so a query about
// nothing stored still listed a few entries "close in meaning" at
// 0.02–0.13. 0.15 is a quarter of the way from an embedder's noise floor
// to a typical paraphrase, above 99.5% of unrelated pairs for every
// calibrated embedder (above p99.9 for hash and the fused USE-lite).
// Over the top 8 of every make eval query (somni-eval -explain '*') it
// drops, with the local embedder, 1,367 meaning-only hits of which 10 are
// gold (one first: a dialogue question whose best evidence was 0.13), with
// hash 50, none gold. Ranking is untouched, so are the eval's numbers:
// only what is shown is cut.
const meaningFloor = 0.15

// Evident keeps the hits a reader can tell from noise: every hit with a
// word, exact symbol, date or link of the query, and the hits found by
// meaning alone that score at least meaningFloor. A hit linked from one it
// drops goes too. A listing (no query, no cosine) keeps everything.
func Evident(hits []rank.Hit) []rank.Hit {
	out := make([]rank.Hit, 0, len(hits))
	dropped := map[string]bool{}
	for _, h := range hits {
		meaningOnly := !h.Literal && !h.Pinned && h.Keyword == 0 && len(h.Words) == 0 && h.SpreadFrom == "" &&
			(h.Cos > 0 || h.ContextCos > 0)
		// a date the query asks about adds the index's date bonus (0.2), above the floor
		if meaningOnly && h.Hybrid < meaningFloor || h.SpreadFrom != "" && dropped[h.SpreadFrom] {
			dropped[h.Doc.Name] = true
			continue
		}
		out = append(out, h)
	}
	return out
}
