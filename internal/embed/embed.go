package embed

import (
	"context"
	"math"
)

// Embedder turns texts into L2-normalised vectors; every embedder (hash, http,
// local ONNX, off) sits behind this one narrow interface.
type Embedder interface {
	// Embed returns one vector per text, in order. Implementations batch
	// internally as they see fit and honour ctx cancellation.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// ID names the embedder and its model, e.g. "hash-v2-256", "http:bge-m3",
	// "local:use-lite". A changed ID makes the index re-embed everything.
	ID() string
	// Close releases native resources (ONNX sessions). Safe to call twice.
	Close() error
}

// Calibration is an embedder's cosine noise floor and useful span: the
// hybrid scorer maps cos to clip((cos-Floor)/Span, 0, 1).
type Calibration struct {
	Floor float64
	Span  float64
}

// Calibrated is implemented by embedders that know their own noise floor.
type Calibrated interface {
	Calibration() Calibration
}

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

// QueryEmbedder is implemented by embedders that embed search queries
// differently from stored texts, e.g. a BERT retrieval model that wants an
// instruction in front of queries. The scorer embeds every query through
// it when the embedder has it, and stored texts through Embed.
type QueryEmbedder interface {
	EmbedQueries(ctx context.Context, queries []string) ([][]float32, error)
}

// TermWeights says how much a query word (lowercase, as written) or CJK
// gram should count, in [0, 1]: the index answers from its corpus, so a word
// nearly every entry holds (a speaker's name on each of their turns) counts
// for little, as idf makes it count in BM25.
type TermWeights func(word string) float64

// TermWeighted is implemented by embedders whose vectors are sums of word
// features (hash, and the lexical half of local): EmbedQueryWeighted embeds
// a query with each word's features scaled by w. Without idf the hash
// embedder let a speaker's name outweigh the content words and ranked
// below keyword-only on multi-session dialogue (measured from outside:
// 0.91× BM25 against keyword-only's 1.05×).
type TermWeighted interface {
	EmbedQueryWeighted(ctx context.Context, query string, w TermWeights) ([]float32, error)
}

// ScriptTrusted is implemented by embedders whose vectors of CJK text are a
// weaker reading than their vectors of the scripts they were trained on
// (the local embedder reads Chinese through dictionary glosses).
type ScriptTrusted interface {
	// CJKTrust is the least weight, in [0, 1], of the semantic part of
	// the ranking when a mostly-CJK query meets a mostly-CJK entry; the
	// scorer raises it to how far the vectors agree with the words on the
	// query. Between scripts the vectors are the only bridge and keep
	// their whole weight.
	CJKTrust() float64
}

// CJKTrust is e's trust in its vectors of CJK text: 1 for embedders that
// do not say.
func CJKTrust(e Embedder) float64 {
	if t, ok := e.(ScriptTrusted); ok {
		return max(0, min(1, t.CJKTrust()))
	}
	return 1
}

// Degraded is implemented by embedders that are not what was asked for, or
// no longer work: the reason, or "" while all is well. It never blocks.
type Degraded interface {
	Degradation() string
}

// Degradation reports why e is not the embedder its config asked for ("" if
// it is, or if it cannot tell).
func Degradation(e Embedder) string {
	if d, ok := e.(Degraded); ok {
		return d.Degradation()
	}
	return ""
}

// FileBacked is implemented by embedders that load files: the model folder
// and the ONNX Runtime library in use.
type FileBacked interface {
	Files() (modelDir, runtimeLib string)
}

// Files names the files e loaded ("" for embedders that load none).
func Files(e Embedder) (modelDir, runtimeLib string) {
	if f, ok := e.(FileBacked); ok {
		return f.Files()
	}
	return "", ""
}

// Readier is implemented by embedders that load in the background (local
// ONNX): WaitReady blocks until the model can embed, or returns why it
// cannot. Embed waits by itself; this is for callers that want the load
// error up front (the embed command, doctor).
type Readier interface {
	WaitReady(ctx context.Context) error
}

// WaitReady waits for e's background load, if it has one.
func WaitReady(ctx context.Context, e Embedder) error {
	if r, ok := e.(Readier); ok {
		return r.WaitReady(ctx)
	}
	return nil
}

// Noisy is implemented by embedders that know whether their scores are
// good enough for unprompted suggestions: assoc withholds hints while a
// noisy embedder is live. Recall is unaffected; a hint nobody asked for
// costs attention, so an embedder has to earn hints on the eval.
type Noisy interface {
	Noisy() bool
}

// IsNoisy reports whether e says its scores are too noisy for hints
// (false for embedders that do not say: hash, http, off).
func IsNoisy(e Embedder) bool {
	n, ok := e.(Noisy)
	return ok && n.Noisy()
}

// Described is implemented by embedders that can say what they are in a
// person's words ("local (USE-lite + CC-CEDICT)"); the ID stays the precise
// name vectors are stored under, and reads like a hash fallback to anyone
// who has not seen the code.
type Described interface {
	Describe() string
}

// Describe says what e is in words, its ID when it cannot.
func Describe(e Embedder) string {
	if d, ok := e.(Described); ok {
		return d.Describe()
	}
	return e.ID()
}

// Dot is the cosine of two L2-normalised vectors (0 when their lengths
// differ): the one the index ranks with, unrolled by four.
func Dot(a, b []float32) float64 {
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

// normalize scales v to unit length in place (zero stays zero).
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}
