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

// EmbedConfig selects and configures an embedder; it mirrors the sidecar's
// --embed/--embed-model-dir flags and the SOMNI_EMBED_* environment.
type EmbedConfig struct {
	Provider  string // "local" | "http" | "hash" | "off"
	ModelDir  string // local: a models/<name>/ folder (BERT-family or USE-lite)
	ORTLib    string // local: path to libonnxruntime.so; "" ⇒ search the usual places
	Pooling   string // local BERT-family: "cls" | "mean" ("" ⇒ model default)
	BaseURL   string // http: OpenAI-compatible base URL (SOMNI_EMBED_BASE_URL)
	Model     string // http: model name (SOMNI_EMBED_MODEL)
	APIKeyEnv string // http: name of the env var holding the key (default SOMNI_EMBED_API_KEY)
}

// localFactory builds the ONNX-backed "local" embedder; tests swap it.
var localFactory = newLocalEmbedder

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

// EmbedderFiles names the files e loaded ("" for embedders that load none).
func EmbedderFiles(e Embedder) (modelDir, runtimeLib string) {
	if f, ok := e.(FileBacked); ok {
		return f.Files()
	}
	return "", ""
}

// fallback is the hash embedder standing in for a local model that could not
// load; it carries the reason so ping and doctor can say it.
type fallback struct {
	Embedder
	reason string
}

func (f fallback) Degradation() string { return f.reason }
