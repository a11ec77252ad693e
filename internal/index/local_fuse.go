package index

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// USE-lite reads English only: its SentencePiece vocabulary has no Han
// characters, so a Chinese text becomes a run of unknown pieces and any two
// Chinese texts embed identically (cosine 1.00 on the Chinese calibration
// pairs, related or not). The local USE-lite embedder therefore fuses two
// representations, each used for the script it can read:
//
//	v = [ wl·USE(latin part) ; wc·cjk(CJK part) ]
//
// The latin part is the text with its CJK runs blanked out; cjk() is the
// hash embedder's CJK 1–3-gram feature vector of the CJK runs (hashVector);
// wl² and wc² are the text's shares of Latin and CJK content (wl²+wc² = 1,
// so v stays unit length). Cosines decompose by script:
//
//	cos(a, b) = wl_a·wl_b·cosUSE + wc_a·wc_b·cosCJK
//
// An English pair is scored by USE-lite alone, exactly as before; a Chinese
// pair by its shared n-grams; an English text against a Chinese one scores 0
// instead of noise. USE-lite's calibration (floor 0.44, from unrelated
// English pairs) is kept: n-gram cosines of unrelated Chinese pairs sit near
// 0.09 (p90 of the Chinese calibration pairs), so only Chinese texts that
// share much of their wording clear the floor and the rest is left to the
// keyword ranker. Lifting CJK cosines onto USE-lite's scale with a constant
// shared coordinate (so the two floors coincide) was tried and rejected on
// the tuning half of the eval: generic-tier hit@1 fell from 0.90 to 0.70,
// because n-gram overlap between unrelated Chinese notes then reads as
// meaning.
const (
	// localFuseVersion is part of the embedder ID: bump it whenever the
	// fused representation or its constants change.
	localFuseVersion = "cjk1"
	// localCJKUnitRunes is how many CJK characters count as one unit of
	// content against one Latin word: written Chinese averages about two
	// characters per word.
	localCJKUnitRunes = 2.0
)

// localScriptParts splits text into what USE-lite can read (the text with
// CJK runs replaced by spaces) and the CJK runs (space-joined, so n-grams
// never bridge two runs), with their content units: Latin words of two or
// more characters, and CJK characters / localCJKUnitRunes.
func localScriptParts(text string) (latin, cjk string, latinUnits, cjkUnits float64) {
	var cj []string
	for _, r := range splitRuns(text) {
		if isCJKScript(r.script) {
			cj = append(cj, r.text)
			cjkUnits += float64(len([]rune(r.text))) / localCJKUnitRunes
		} else if len([]rune(r.text)) >= 2 {
			latinUnits++
		}
	}
	if len(cj) == 0 {
		return text, "", latinUnits, 0
	}
	var b strings.Builder
	for _, r := range text {
		if isCJKScript(scriptOf(r)) {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String(), strings.Join(cj, " "), latinUnits, cjkUnits
}

// useLiteDim is the USE-lite model's output size.
const useLiteDim = 512

// localFuseDim is the fused vector's length for a USE-lite output of dim.
func localFuseDim(dim int) int { return dim + HashDim }

// localFusedEmbed embeds texts as described above; use embeds the Latin parts
// (only texts that have Latin content are sent to it) into dim-sized unit
// vectors. Texts with neither Latin words nor CJK n-gram features
// (punctuation, a single letter) get the zero vector: nothing in them is
// worth matching on.
func localFusedEmbed(ctx context.Context, texts []string, dim int, use func(context.Context, []string) ([][]float32, error)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var latinTexts []string
	var latinOf []int
	var latinW []float32
	for i, t := range texts {
		out[i] = make([]float32, localFuseDim(dim))
		latin, cjk, lu, cu := localScriptParts(t)
		var h []float32
		if cu > 0 {
			if h = hashVector(cjk); localNorm2(h) == 0 {
				cu = 0 // only stopword characters: no CJK content after all
			}
		}
		if lu+cu == 0 {
			continue
		}
		if lu > 0 {
			latinTexts = append(latinTexts, latin)
			latinOf = append(latinOf, i)
			latinW = append(latinW, float32(math.Sqrt(lu/(lu+cu))))
		}
		if cu > 0 {
			wc := float32(math.Sqrt(cu / (lu + cu)))
			for d, x := range h {
				out[i][dim+d] = wc * x
			}
		}
	}
	if len(latinTexts) > 0 {
		vecs, err := use(ctx, latinTexts)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(latinTexts) {
			return nil, fmt.Errorf("index: fused embed: got %d vectors for %d texts", len(vecs), len(latinTexts))
		}
		for k, i := range latinOf {
			if len(vecs[k]) != dim {
				return nil, fmt.Errorf("index: fused embed: vector of %d dims, want %d", len(vecs[k]), dim)
			}
			for d, x := range vecs[k] {
				out[i][d] = latinW[k] * x
			}
		}
	}
	for _, v := range out {
		normalize(v) // unit already up to rounding; this keeps the contract exact
	}
	return out, nil
}

// localNorm2 is the squared length of v.
func localNorm2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}
