// Command somni-eval measures recall quality on the bilingual eval sets in
// testdata/recall: hit@k per query tier, associative-hint precision and
// false hints, for every available embedder beside a plain BM25 baseline
// computed in the same run; on a public benchmark it did not write
// (MADial-Bench, English and Chinese) first; the Chinese sets are measured
// again in Traditional characters; a summary table of the held-out half
// ends the report. `make eval` runs it.
//
// Files by layer, each reading only what the one before hands it:
//
//	main.go           flags and environment, read once into a config
//	run.go            the run: sets → systems → scores → tables, per set
//	load.go           the notes, tool-call and conversation sets, their gold paths and halves
//	load_dialogue.go  the dated multi-session dialogue set
//	load_bench.go     the public benchmarks: MADial-Bench's per-user memory pools, queries and hint cues
//	system.go         a system under evaluation: the real index per embedder, the embedders available
//	baseline.go       the textbook BM25 baseline and its analyzer
//	score.go          hit@k, hint and R@k tallies per system and half
//	report.go         the markdown tables and their cells
//	bench.go          the public benchmarks' hit@5, hit@10, R@5, ×BM25 and hints, scored and reported
//	hant.go           the Chinese sets again in Traditional characters (OpenCC s2twp)
//	summary.go        the closing table: every set × language × embedder, held-out, beside BM25
//	diagnose.go       -explain, -margins and -calibrate listings for tuning
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/somni-dev/somni/internal/assoc"
)

// config is everything the flags and the environment decide; nothing
// below main reads either.
type config struct {
	dataDir  string // -data
	modelDir string // -embed-model-dir, default SOMNI_EMBED_MODEL_PATH
	// httpBaseURL and httpModel (SOMNI_EMBED_BASE_URL, SOMNI_EMBED_MODEL)
	// add the http embedder when both are set.
	httpBaseURL, httpModel string
	httpKey                string  // SOMNI_EMBED_API_KEY
	calibrate              bool    // -calibrate
	verbose                bool    // -v: list misses
	half                   string  // -half: keep one half, so tuning never looks at held-out misses
	explain                string  // -explain
	ranks                  bool    // -ranks
	margins                bool    // -margins: where each cue's gold entry lands against the threshold
	threshold              float64 // -threshold, the gate's hint threshold
	floor, span            float64 // -floor/-span override embedder calibrations when span is set
	turnContext            string  // -turn-context: "none" strips index.TurnDocs' context
	sets                   string  // -sets: which eval sets run
}

func main() {
	cfg := config{httpBaseURL: os.Getenv("SOMNI_EMBED_BASE_URL"), httpModel: os.Getenv("SOMNI_EMBED_MODEL"),
		httpKey: os.Getenv("SOMNI_EMBED_API_KEY")}
	flag.StringVar(&cfg.dataDir, "data", "testdata/recall", "directory holding notes.json and conversation.txt")
	flag.BoolVar(&cfg.calibrate, "calibrate", false, "print cosine distributions of unrelated and gold pairs per embedder")
	flag.StringVar(&cfg.modelDir, "embed-model-dir", os.Getenv("SOMNI_EMBED_MODEL_PATH"), "local embedder model folder")
	flag.BoolVar(&cfg.verbose, "v", false, "list misses")
	flag.StringVar(&cfg.half, "half", "all", "all | tune | heldout: evaluate and list only this half of the queries (the halves are fixed per tier by a hash of the query text)")
	flag.StringVar(&cfg.explain, "explain", "", "print the ranking signals of queries containing this text (* = every query)")
	flag.BoolVar(&cfg.ranks, "ranks", false, "print each query's rank of its first gold entry per system")
	flag.Float64Var(&cfg.threshold, "threshold", assoc.DefaultThreshold, "hint threshold of the gate (sweeps)")
	flag.BoolVar(&cfg.margins, "margins", false, "print each hinted-for cue's best gold and other hybrid score against the threshold")
	flag.StringVar(&cfg.turnContext, "turn-context", "prev", "prev | none: whether a turn carries the previous turn as context (index.TurnDocs), or not (ablation)")
	flag.Float64Var(&cfg.floor, "floor", 0, "override every vector embedder's cosine floor (tuning)")
	flag.Float64Var(&cfg.span, "span", 0, "override every vector embedder's cosine span (tuning)")
	flag.StringVar(&cfg.sets, "sets", "bench,notes,dialogues", "comma list of the sets to run: bench (public benchmarks: MADial-Bench en and zh), notes (curated notes, tool calls and short conversations), dialogues")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := run(context.Background(), os.Stdout, logger, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "somni-eval:", err)
		os.Exit(1)
	}
}
