package index

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/somni-dev/somni/internal/textseg"
)

// offEmbedder is the "off" provider: no vectors, keyword recall only.
type offEmbedder struct{}

// Off returns the embedder that produces no vectors.
func Off() Embedder { return offEmbedder{} }

func (offEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return make([][]float32, len(texts)), nil
}
func (offEmbedder) ID() string   { return "off" }
func (offEmbedder) Close() error { return nil }

// IsOff reports whether e produces no vectors.
func IsOff(e Embedder) bool {
	if e == nil {
		return true
	}
	_, ok := e.(offEmbedder)
	return ok
}

// HashDim is the hash embedder's vector size.
const HashDim = 256

// hashEmbedder is the always-available pure-Go fallback: signed feature
// hashing of words, character trigrams of words, and CJK 1–3-grams.
type hashEmbedder struct{}

// Hash returns the feature-hashing embedder.
func Hash() Embedder { return hashEmbedder{} }

func (hashEmbedder) ID() string   { return fmt.Sprintf("hash-v1-%d", HashDim) }
func (hashEmbedder) Close() error { return nil }

// Calibration of the hash embedder, measured with
// `go run ./cmd/somni-eval -calibrate` on testdata/recall. Unrelated pairs
// are absent-topic cues × every note plus conversation questions × turns of
// other conversations (27,794 pairs); gold pairs are each query × its gold
// entries (194). Hashed features are nearly orthogonal unless texts share
// words or n-grams: at 256 dims unrelated mean 0.005, p99 0.178, p99.5
// 0.210, p99.9 0.284; gold p50 0.196, p90 0.515. Floor = the first 0.05
// step above unrelated p99.5, so well under 0.5% of unrelated entries
// become semantic candidates; span 0.40 (floor+span ≈ gold p90 + 0.15) was
// the best of {0.25, 0.35, 0.40, 0.50, 0.60} on hit@3 and hint precision.
// Both are tuned on the eval set itself: a sane default, not a
// generalisation claim. 256 dims rather than 512: same eval quality once
// recalibrated, half the vector-scan time at 10k entries.
var hashCalibration = Calibration{Floor: 0.25, Span: 0.40}

func (hashEmbedder) Calibration() Calibration { return hashCalibration }

func (h hashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("hash embed: %w", err)
			}
		}
		out[i] = hashVector(t)
	}
	return out, nil
}

// hashVector builds one L2-normalised signed feature-hash vector. Word
// features weigh 1; char trigrams of longer words 0.35 (they tie morphology
// together: "deploy"/"deployment"); CJK bigrams and trigrams 1, unigrams
// 0.25 (a single Han character is ambiguous). Term counts are damped with
// 1+ln(tf) so one repeated word cannot dominate.
func hashVector(text string) []float32 {
	feats := map[string]float32{}
	for _, r := range textseg.Runs(text) {
		if r.CJK {
			rs := []rune(r.Text)
			for n := 1; n <= 3; n++ {
				w := float32(1)
				if n == 1 {
					w = 0.25
				}
				for i := 0; i+n <= len(rs); i++ {
					g := string(rs[i : i+n])
					if n == 1 && textseg.IsStopword(g) {
						continue
					}
					feats["c:"+g] += w
				}
			}
			continue
		}
		if textseg.IsStopword(r.Text) || len(r.Text) < 2 {
			continue
		}
		feats["w:"+r.Text]++
		if rs := []rune("<" + r.Text + ">"); len(rs) >= 6 {
			for i := 0; i+3 <= len(rs); i++ {
				feats["g:"+string(rs[i:i+3])] += 0.35
			}
		}
	}
	v := make([]float32, HashDim)
	for f, tf := range feats {
		h := fnv.New64a()
		h.Write([]byte(f))
		x := h.Sum64()
		w := float32(1 + math.Log(float64(tf)))
		if tf < 1 {
			w = tf
		}
		if x>>63 == 1 {
			w = -w
		}
		v[x%HashDim] += w
	}
	normalize(v)
	return v
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

// httpEmbedder calls an OpenAI-compatible /embeddings endpoint.
type httpEmbedder struct {
	client  *openai.Client
	model   string
	batch   int
	timeout time.Duration // per request
}

// httpBatch bounds texts per request; most servers accept far more, but
// small batches keep one failure cheap.
const httpBatch = 64

// httpTimeout bounds one embeddings request: the client has no timeout of
// its own, so a server that accepts and never answers would otherwise hold
// a search (whose caller set no deadline) or a sync forever.
const httpTimeout = 30 * time.Second

// NewHTTP builds the OpenAI-compatible embedder; the key is read from the
// env var cfg.APIKeyEnv (default SOMNI_EMBED_API_KEY) and may be empty for
// local servers.
func NewHTTP(cfg EmbedConfig) (Embedder, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("http embedder: base URL and model are required (SOMNI_EMBED_BASE_URL, SOMNI_EMBED_MODEL)")
	}
	keyEnv := cfg.APIKeyEnv
	if keyEnv == "" {
		keyEnv = "SOMNI_EMBED_API_KEY"
	}
	oc := openai.DefaultConfig(os.Getenv(keyEnv))
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &httpEmbedder{client: openai.NewClientWithConfig(oc), model: cfg.Model, batch: httpBatch,
		timeout: httpTimeout}, nil
}

func (h *httpEmbedder) ID() string   { return "http:" + h.model }
func (h *httpEmbedder) Close() error { return nil }

func (h *httpEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	dim := 0 // every vector of one call must share it, or cosines mean nothing
	for start := 0; start < len(texts); start += h.batch {
		end := min(start+h.batch, len(texts))
		chunk := make([]string, end-start)
		for i, t := range texts[start:end] {
			if strings.TrimSpace(t) == "" {
				t = " " // most servers reject empty input
			}
			chunk[i] = t
		}
		vecs, err := h.request(ctx, chunk)
		if err != nil {
			return nil, err
		}
		for _, v := range vecs {
			if dim == 0 {
				dim = len(v)
			}
			if len(v) == 0 || len(v) != dim {
				return nil, fmt.Errorf("http embed %s: vector dimension %d in a response of dimension %d", h.model, len(v), dim)
			}
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// request embeds one batch within the per-request timeout.
func (h *httpEmbedder) request(ctx context.Context, chunk []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	resp, err := h.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
		Input: chunk, Model: openai.EmbeddingModel(h.model)})
	if err != nil {
		return nil, fmt.Errorf("http embed %s: %w", h.model, err)
	}
	if len(resp.Data) != len(chunk) {
		return nil, fmt.Errorf("http embed %s: got %d vectors for %d texts", h.model, len(resp.Data), len(chunk))
	}
	vecs := make([][]float32, len(chunk))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(chunk) || vecs[d.Index] != nil {
			return nil, fmt.Errorf("http embed %s: bad index %d in response", h.model, d.Index)
		}
		v := append([]float32(nil), d.Embedding...)
		normalize(v)
		vecs[d.Index] = v
	}
	return vecs, nil
}

// NewEmbedder builds the embedder cfg selects. "local" uses the ONNX
// factory when this build has one; when it is missing or fails, one clear
// log line is written and the hash embedder is returned instead, so recall
// never goes down for want of a model. "" selects local.
func NewEmbedder(cfg EmbedConfig, logger *slog.Logger) (Embedder, error) {
	if logger == nil {
		logger = slog.Default()
	}
	switch strings.ToLower(strings.TrimSpace(cfg.Provider)) {
	case "off", "none":
		return Off(), nil
	case "hash":
		return Hash(), nil
	case "http":
		return NewHTTP(cfg)
	case "local", "":
		e, err := localFactory(cfg)
		if err != nil {
			logger.Warn("local embedder failed to load; using hash embedder", "err", err, "model_dir", cfg.ModelDir)
			return fallback{Embedder: Hash(), reason: "local embedder unavailable, using hash: " + err.Error()}, nil
		}
		return e, nil
	}
	return nil, fmt.Errorf("index: unknown embed provider %q (want local, http, hash or off)", cfg.Provider)
}
