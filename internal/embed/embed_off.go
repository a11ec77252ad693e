package embed

import "context"

// offEmbedder is the "off" provider: no vectors, keyword recall only.
type offEmbedder struct{}

// Off returns the embedder that produces no vectors.
func Off() Embedder { return offEmbedder{} }

func (offEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return make([][]float32, len(texts)), nil
}
func (offEmbedder) ID() string       { return "off" }
func (offEmbedder) Close() error     { return nil }
func (offEmbedder) Describe() string { return "off (keywords only)" }

// IsOff reports whether e produces no vectors.
func IsOff(e Embedder) bool {
	if e == nil {
		return true
	}
	_, ok := e.(offEmbedder)
	return ok
}
