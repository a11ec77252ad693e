package index

import "context"

// Embedder turns texts into L2-normalised vectors; every embedder (hash, http,
// local ONNX, off) sits behind this one narrow interface.
type Embedder interface {
	// Embed returns one vector per text, in order. Implementations batch
	// internally as they see fit and honour ctx cancellation.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// ID names the embedder and its model, e.g. "hash-v1", "http:bge-m3",
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
