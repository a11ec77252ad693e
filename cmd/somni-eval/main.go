// Command somni-eval measures recall quality beside a plain BM25
// baseline computed in the same run on the same entries, for every
// available embedder: first on public sets with pools as large as the
// sets make them (RealMem, LifeBench zh, MemoryCode, read from
// ../shared/bench, each pool growing as the memory did and asked along
// the way); then on MADial-Bench's small archives, on the synthetic long
// dialogues, and on the bilingual hand-written sets in testdata/recall
// (hit@k per query tier, associative-hint precision and false hints).
// The Chinese sets of testdata/recall are measured again in Traditional
// characters. Then the sets with per-user pools are asked again with a
// team pool of unrelated entries mounted beside each. Every
// set is split into a tuning and a held-out half fixed by hashes, not by
// results; summary tables end the report, the real pools apart from the
// rest. `make eval` runs it.
//
// Files by layer, each reading only what the one before hands it:
//
//	main.go             flags and environment, read once into a config
//	run.go              the run: sets → systems → scores → tables, per set
//	load.go             the notes, tool-call and conversation sets, their gold paths and halves
//	load_dialogue.go    the dated multi-session dialogue set
//	load_bench.go       MADial-Bench's per-user memory pools, queries and hint cues
//	load_realmem.go     RealMem: a persona's session log, questions on the turns their answers drew on
//	load_lifebench.go   LifeBench zh: a user's phone records month by month, questions on the records they name
//	load_memorycode.go  MemoryCode: a dialogue's sessions, coding tasks on the latest version of their instructions
//	real.go             the real-pool sets: how much of each a run takes (-size), loading, skipping
//	stream.go           a pool that grows and is asked along the way: replay, hit@k, latest-version order, tables
//	system.go           a system under evaluation: the real index per embedder, the embedders available
//	baseline.go         the textbook BM25 baseline and its analyzer
//	score.go            hit@k, hint and R@k tallies per system and half
//	report.go           the markdown tables and their cells
//	bench.go            MADial-Bench's hit@5, hit@10, R@5, ×BM25 and hints, scored and reported
//	hant.go             the Chinese sets again in Traditional characters (OpenCC s2twp)
//	summary.go          the closing tables: every set × language × embedder beside BM25, real pools apart
//	team.go             a team pool: its unrelated entries' sources, paths outside the data dir, never gold
//	team_sets.go        the pools the team measurement asks again, each with its team pool
//	team_run.go         each pool without and with its team pool: hit@5, the change in points, the verdict
//	diagnose.go         -explain, -margins and -calibrate listings for tuning
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

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
	httpKey                string    // SOMNI_EMBED_API_KEY
	calibrate              bool      // -calibrate
	verbose                bool      // -v: list misses
	half                   string    // -half: keep one half, so tuning never looks at held-out misses
	explain                string    // -explain
	ranks                  bool      // -ranks
	margins                bool      // -margins: where each cue's gold entry lands against the threshold
	threshold              float64   // -threshold, the gate's hint threshold
	floor, span            float64   // -floor/-span override embedder calibrations when span is set
	turnContext            string    // -turn-context: "none" strips rank.TurnDocs' context
	sets                   string    // -sets: which eval sets run
	benchDir               string    // -bench-dir, default SOMNI_BENCH_DIR or ../shared/bench
	size                   realSize  // -size, -quick: how much of the real-pool sets runs
	teamPool               string    // -team-pool: on, all, or off ("" in tests: off)
	teamGold               bool      // the sets' own entries are the team's (cfg.shared; runTeamPools sets it)
	progress               io.Writer // a line per real-pool set as it ends, with its time; nil in tests
}

func main() {
	cfg := config{progress: os.Stderr, httpBaseURL: os.Getenv("SOMNI_EMBED_BASE_URL"), httpModel: os.Getenv("SOMNI_EMBED_MODEL"),
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
	flag.StringVar(&cfg.turnContext, "turn-context", "prev", "prev | none: whether a turn carries the previous turn as context (rank.TurnDocs), or not (ablation)")
	flag.Float64Var(&cfg.floor, "floor", 0, "override every vector embedder's cosine floor (tuning)")
	flag.Float64Var(&cfg.span, "span", 0, "override every vector embedder's cosine span (tuning)")
	flag.StringVar(&cfg.sets, "sets", "realmem,lifebench,memorycode,bench,dialogues,notes", "comma list of the sets to run: realmem, lifebench, memorycode (public sets with real pools, read from -bench-dir), bench (MADial-Bench en and zh), dialogues (synthetic long dialogues), notes (curated notes, tool calls and short conversations)")
	benchDir := os.Getenv("SOMNI_BENCH_DIR")
	if benchDir == "" {
		benchDir = filepath.Join("..", "shared", "bench")
	}
	flag.StringVar(&cfg.benchDir, "bench-dir", benchDir, "folder holding realmem/, lifebench-zh/ and memorycode/ (SOMNI_BENCH_DIR); a set whose folder is missing is skipped with a line")
	size := flag.String("size", "default", "how much of the real-pool sets runs, whole pools always: default (the outside run's 3 RealMem personas × 10 asking sessions and 3 LifeBench users; every third MemoryCode dialogue of ≥ 10 sessions), outside (all 210 of those), full (every persona, user and dialogue), quick (one pool of each; -embed-model-dir none leaves the slow local embedder out)")
	quick := flag.Bool("quick", false, "-size quick")
	flag.StringVar(&cfg.teamPool, "team-pool", "on", "on | all | off: ask the sets with per-user pools again with a team pool of unrelated entries mounted beside each pool (on: MADial-Bench, notes, dialogues, RealMem; all: LifeBench and MemoryCode too, at -size: about 40 minutes more on two cores; off: none); each is asked twice, the gold the user's own, then the gold a teammate's with the unrelated entries the user's")
	flag.Parse()
	if *quick {
		*size = "quick"
	}
	sz, ok := realSizes[*size]
	if !ok {
		fmt.Fprintf(os.Stderr, "somni-eval: -size %q: want default, outside, full or quick\n", *size)
		os.Exit(2)
	}
	cfg.size = sz
	if cfg.teamPool != "on" && cfg.teamPool != "all" && cfg.teamPool != "off" {
		fmt.Fprintf(os.Stderr, "somni-eval: -team-pool %q: want on, all or off\n", cfg.teamPool)
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := run(context.Background(), os.Stdout, logger, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "somni-eval:", err)
		os.Exit(1)
	}
}
