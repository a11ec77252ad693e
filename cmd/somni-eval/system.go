package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/index/rank"
)

// system is one ranking method under evaluation.
type system struct {
	name   string
	search func(ctx context.Context, q string, k int) ([]string, error)
	hits   func(ctx context.Context, q string, k int) ([]rank.Hit, error) // nil for the baseline
	gate   *assoc.Gate                                                    // nil for the baseline
	quiet  bool                                                           // hints withheld in production with this embedder
	// grow adds entries to the pool and sets the day later questions are
	// asked on: a pool that grows as a user's memory does (stream.go).
	grow  func(ctx context.Context, docs []rank.Doc, now time.Time) error
	close func()
}

// indexSystem builds a real index (SQLite cache in a temp dir) over docs.
// now is the index's clock (zero: the real one): a dialogue's questions
// are asked on its own day, so "last May" means what the asker meant.
// cfg gives the gate's threshold and any calibration override.
func indexSystem(ctx context.Context, cfg config, name string, emb embed.Embedder, docs []rank.Doc, logger *slog.Logger, now time.Time) (*system, error) {
	tmp, err := os.MkdirTemp("", "somni-eval-")
	if err != nil {
		return nil, err
	}
	var cal *embed.Calibration
	if cfg.span > 0 {
		cal = &embed.Calibration{Floor: cfg.floor, Span: cfg.span}
	}
	src := index.NewMemSource(docs...)
	// the index's clock; grow moves it while the index's own goroutines may read it
	var clock atomic.Pointer[time.Time]
	clock.Store(&now)
	opts := index.Options{Path: filepath.Join(tmp, "index.sqlite"), Source: src,
		Embedder: emb, Logger: logger, ScanInterval: -1, Calibration: cal, Shared: cfg.shared()}
	opts.Now = func() time.Time {
		if t := *clock.Load(); !t.IsZero() {
			return t
		}
		return time.Now()
	}
	ix, err := index.Open(ctx, opts)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	sync := func(ctx context.Context) error {
		if _, err := ix.Sync(ctx); err != nil {
			return err
		}
		if err := ix.WaitEmbedded(ctx); err != nil {
			return fmt.Errorf("embed %s: %w", name, err)
		}
		return nil
	}
	if err := sync(ctx); err != nil {
		ix.Close()
		os.RemoveAll(tmp)
		return nil, err
	}
	g := assoc.New(ix, assoc.Config{Threshold: cfg.threshold, AllowNoisy: true, Kinds: []string{rank.KindKnowledge, rank.KindSkill, rank.KindEpisode, rank.KindConversation}}, logger)
	return &system{
		name: name,
		search: func(ctx context.Context, q string, k int) ([]string, error) {
			hits, err := ix.Search(ctx, rank.Query{Text: q, Limit: k})
			if err != nil {
				return nil, err
			}
			out := make([]string, len(hits))
			for i, h := range hits {
				out[i] = h.Doc.Path
			}
			return out, nil
		},
		hits: func(ctx context.Context, q string, k int) ([]rank.Hit, error) {
			return ix.Search(ctx, rank.Query{Text: q, Limit: k})
		},
		gate:  g,
		quiet: embed.IsNoisy(emb),
		grow: func(ctx context.Context, docs []rank.Doc, now time.Time) error {
			for _, d := range docs {
				src.Put(d)
			}
			clock.Store(&now)
			return sync(ctx)
		},
		close: func() { ix.Close(); os.RemoveAll(tmp) },
	}, nil
}

// systemsFor is every system over docs: the baseline, the baseline with
// the previous turn when docs carry one, and the index per embedder.
func systemsFor(ctx context.Context, cfg config, logger *slog.Logger, docs []rank.Doc, embs []embed.Embedder, now time.Time) ([]*system, error) {
	return systemsOver(ctx, cfg, logger, docs, embs, now, docs[len(docs)-1].Context != "")
}

// systemsOver is systemsFor with the choice made by the caller: a pool
// that starts empty and grows (stream.go) says whether its turns will
// carry context.
func systemsOver(ctx context.Context, cfg config, logger *slog.Logger, docs []rank.Doc, embs []embed.Embedder, now time.Time, withContext bool) ([]*system, error) {
	systems := []*system{bm25System(docs, false)}
	if withContext {
		systems = append(systems, bm25System(docs, true))
	}
	for _, e := range embs {
		s, err := indexSystem(ctx, cfg, "hybrid/"+e.ID(), e, docs, logger, now)
		if err != nil {
			for _, s := range systems {
				s.close()
			}
			return nil, fmt.Errorf("%s: %w", e.ID(), err)
		}
		systems = append(systems, s)
	}
	return systems, nil
}

// embedders lists the embedders this machine can run: off and hash
// always, http when SOMNI_EMBED_BASE_URL/MODEL are set, local when it
// loads; and otherwise the line the report says so with, since a table
// without its local column reads like one where local lost nothing.
func embedders(logger *slog.Logger, cfg config) ([]embed.Embedder, string) {
	out := []embed.Embedder{embed.Off(), embed.Hash()}
	if cfg.httpBaseURL != "" && cfg.httpModel != "" {
		e, err := embed.New(embed.Config{Provider: "http", BaseURL: cfg.httpBaseURL,
			Model: cfg.httpModel, APIKey: cfg.httpKey}, logger)
		if err == nil {
			out = append(out, e)
		} else {
			logger.Warn("http embedder not usable", "err", err)
		}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	modelDir := cfg.modelDir
	if modelDir == "" {
		modelDir = "models/use-lite"
	}
	// only the model itself loads files: the hash fallback New returns when
	// it cannot load is already in the list
	if e, err := embed.New(embed.Config{Provider: "local", ModelDir: modelDir}, quiet); err == nil {
		if _, model := e.(embed.FileBacked); model {
			return append(out, e), ""
		}
		e.Close()
	}
	return out, "_The local embedder is left out: its model did not load (`make models` installs it; -embed-model-dir names another folder)._\n\n"
}
