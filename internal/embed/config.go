package embed

import (
	"fmt"
	"log/slog"
	"strings"
)

// Config selects and configures an embedder; it mirrors the sidecar's
// --embed/--embed-model-dir flags and the SOMNI_EMBED_* environment.
type Config struct {
	Provider string // "local" | "http" | "hash" | "off"
	ModelDir string // local: a models/<name>/ folder (BERT-family or USE-lite)
	ORTLib   string // local: path to libonnxruntime.so; "" ⇒ search the usual places
	Pooling  string // local BERT-family: "cls" | "mean" ("" ⇒ model default)
	Threads  int    // local: ONNX Runtime intra-op threads (SOMNI_ORT_THREADS; 0 ⇒ 1)
	BaseURL  string // http: OpenAI-compatible base URL (SOMNI_EMBED_BASE_URL)
	Model    string // http: model name (SOMNI_EMBED_MODEL)
	APIKey   string // http: the key (SOMNI_EMBED_API_KEY, read by main); empty for local servers
}

// localFactory builds the ONNX-backed "local" embedder; tests swap it.
var localFactory = newLocal

// New builds the embedder cfg selects. "local" uses the ONNX
// factory when this build has one; when it is missing or fails, one clear
// log line is written and the hash embedder is returned instead, so recall
// never goes down for want of a model. "" selects local.
func New(cfg Config, logger *slog.Logger) (Embedder, error) {
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
	return nil, fmt.Errorf("embed: unknown provider %q (want local, http, hash or off)", cfg.Provider)
}

// fallback is the hash embedder standing in for a local model that could not
// load; it carries the reason so ping and doctor can say it.
type fallback struct {
	Embedder
	reason string
}

func (f fallback) Degradation() string { return f.reason }
func (f fallback) Describe() string {
	return Describe(f.Embedder) + " standing in for the local model"
}
