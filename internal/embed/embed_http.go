package embed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

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

// NewHTTP builds the OpenAI-compatible embedder; the key may be empty for
// local servers.
func NewHTTP(cfg Config) (Embedder, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("http embedder: base URL and model are required (SOMNI_EMBED_BASE_URL, SOMNI_EMBED_MODEL)")
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &httpEmbedder{client: openai.NewClientWithConfig(oc), model: cfg.Model, batch: httpBatch,
		timeout: httpTimeout}, nil
}

func (h *httpEmbedder) ID() string   { return "http:" + h.model }
func (h *httpEmbedder) Close() error { return nil }
func (h *httpEmbedder) Describe() string {
	return "http (" + h.model + ", OpenAI-compatible)"
}

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
