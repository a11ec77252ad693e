// Command somni-sidecar is the somni memory sidecar: it speaks
// newline-delimited JSON-RPC 2.0 on stdin/stdout for the dsh-somni host, a
// drop-in for the Python `somni_memory` sidecar. For people who edit memory
// by hand it also has subcommands: recall, doctor and stats.
//
//	somni-sidecar [flags]                 serve stdio until shutdown, EOF or SIGTERM
//	somni-sidecar [flags] recall "query"  ranked recall results
//	somni-sidecar [flags] doctor          report broken files and links (exit 1 if any)
//	somni-sidecar [flags] stats           counts and index state
//	somni-sidecar mcp [flags]             serve the memory to an MCP client on stdio
//
// Files, by job:
//
//	main.go                          argv and environment, serving stdio
//	cli.go                           the recall, doctor, stats and embed subcommands
//	mcp.go                           the mcp subcommand
//	stdout_unix.go, stdout_other.go  keeping stdout for protocol frames only
//	memprofile_unix.go, memprofile_other.go  SOMNI_MEMPROFILE: a heap profile on SIGUSR1
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	// Zone data inside the binary: Windows and slim containers have no
	// zoneinfo, and --timezone must work there too.
	_ "time/tzdata"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/sidecar"
)

// gcPercent is the collector's target (GOGC) unless the environment sets
// one. A sidecar's heap is almost all index, and the process holds about
// heap × (1 + GOGC/100) resident between collections, which the runtime
// hands back only slowly; collections of a 25 MB heap cost about 5 ms.
// 10k files (make bench, BenchmarkRSS), resident after 50 recalls with
// --embed off / hash: GOGC 100 77 / 99 MB, 50 70 / 87 MB, 25 65 / 82 MB.
const gcPercent = 50

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	watchMemProfile()
	// SOMNI_CPUPROFILE=file profiles a whole run (for `make bench` triage).
	if p := os.Getenv("SOMNI_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				code := run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
				pprof.StopCPUProfile()
				f.Close()
				os.Exit(code)
			}
		}
	}
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// options is the parsed command line.
type options struct {
	cfg      sidecar.Config
	level    slog.Level
	command  string // "" (serve) | recall | doctor | stats | embed | mcp
	args     []string
	jsonOut  bool
	recallN  int
	recallTy string
}

var subcommands = map[string]bool{"recall": true, "doctor": true, "stats": true, "embed": true, "mcp": true}

// parseArgs reads the compat argv and environment. A leading
// `-m somni_memory` (the Python launch form) is accepted and ignored, also
// when a wrapper put other flags first.
func parseArgs(args []string, getenv func(string) string) (*options, error) {
	env := func(k, def string) string {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
		return def
	}
	o := &options{}
	f, err := parseFlags(o, args, env)
	if err != nil {
		return nil, err
	}
	switch f.llm {
	case "host", "openai":
	default:
		return nil, fmt.Errorf("--llm %q: want host or openai", f.llm)
	}
	switch f.embedProvider {
	case "local", "http", "hash", "off":
	default:
		return nil, fmt.Errorf("--embed %q: want local, http, hash or off", f.embedProvider)
	}
	if o.level, err = sidecar.ParseLevel(f.logLevel); err != nil {
		return nil, err
	}
	c := &o.cfg
	c.DataDir = f.dataDir
	c.MemoryDir = env("MEMORY_ROOT_PATH", "")
	c.SkillDir = env("SKILL_ROOT_PATH", "")
	c.LLM = f.llm
	c.OpenAI = dream.OpenAIConfigFromEnv(getenv)
	// The only reader of the dream's limits; 0 (unset) takes dream's defaults.
	if c.MaxLogs, err = envInt(getenv, "SLEEP_MAX_LOGS"); err != nil {
		return nil, err
	}
	if c.MaxIters, err = envInt(getenv, "SLEEP_MAX_ITERS"); err != nil {
		return nil, err
	}
	c.Embed = embed.Config{
		Provider: f.embedProvider,
		ModelDir: f.modelDir,
		ORTLib:   f.ortLib,
		Pooling:  env("SOMNI_EMBED_POOLING", ""),
		BaseURL:  env("SOMNI_EMBED_BASE_URL", ""),
		Model:    env("SOMNI_EMBED_MODEL", ""),
		APIKey:   getenv("SOMNI_EMBED_API_KEY"),
	}
	if c.Embed.Threads, err = envInt(getenv, "SOMNI_ORT_THREADS"); err != nil {
		return nil, err
	}
	if c.Calibration, err = envCalibration(getenv); err != nil {
		return nil, err
	}
	if c.LinkSpread, err = envLinkSpread(getenv); err != nil {
		return nil, err
	}
	c.Assoc = assoc.Config{Threshold: f.thr, Gap: f.gap, MaxItems: assoc.ResolveMaxItems(f.maxItems, true)}
	if strings.TrimSpace(f.timezone) == "" {
		c.Location = dates.MachineZone()
	} else if c.Location, err = dates.LoadZone(f.timezone); err != nil {
		return nil, fmt.Errorf("--timezone (or SOMNI_TIMEZONE): %w", err)
	}
	if c.Now, err = envTestNow(getenv); err != nil {
		return nil, err
	}
	if c.ConvCharBudget, err = envInt(getenv, "CONV_SEARCH_CHAR_BUDGET"); err != nil {
		return nil, err
	}
	return o, nil
}

// flagValues are the flags parseArgs checks and turns into the config;
// the subcommands' own flags go straight into options.
type flagValues struct {
	dataDir, llm, embedProvider, modelDir, ortLib, logLevel, timezone string
	thr, gap                                                          float64
	maxItems                                                          int
}

// parseFlags drops the Python launch form, takes the subcommand and
// parses the flags before and after it; env(k, def) is a variable's
// trimmed value or def, the flags' defaults.
func parseFlags(o *options, args []string, env func(k, def string) string) (flagValues, error) {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-m" && args[i+1] == "somni_memory" {
			args = append(args[:i:i], args[i+2:]...)
			break
		}
	}
	if len(args) > 0 && subcommands[args[0]] {
		o.command, args = args[0], args[1:]
	}
	var f flagValues
	fs := flag.NewFlagSet("somni-sidecar", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	home, _ := os.UserHomeDir()
	fs.StringVar(&f.dataDir, "data-dir", env("SOMNI_DATA_DIR", filepath.Join(home, ".dsh", "somni")), "data directory")
	fs.StringVar(&f.llm, "llm", "host", "dream model: host (reverse llm.chat) or openai")
	fs.StringVar(&f.embedProvider, "embed", env("SOMNI_EMBED_PROVIDER", "local"), "embedder: local, http, hash or off")
	fs.StringVar(&f.modelDir, "embed-model-dir", env("SOMNI_EMBED_MODEL_PATH", ""), "local embedding model folder")
	fs.StringVar(&f.ortLib, "ort-lib", env("SOMNI_ORT_LIB", ""), "local: the ONNX Runtime shared library")
	// The gate's defaults live in internal/assoc; an absent flag keeps them.
	fs.Float64Var(&f.thr, "assoc-threshold", assoc.DefaultThreshold, "association score threshold")
	fs.Float64Var(&f.gap, "assoc-gap", assoc.DefaultGap, "association score gap to the runner-up")
	fs.IntVar(&f.maxItems, "assoc-max-items", assoc.DefaultMaxItems, "max associations per hint (min 1)")
	fs.StringVar(&f.logLevel, "log-level", env("SOMNI_LOG_LEVEL", "info"), "debug, info, warning or error")
	fs.StringVar(&f.timezone, "timezone", env("SOMNI_TIMEZONE", ""), "IANA time zone for dates (default: the machine's)")
	fs.BoolVar(&o.jsonOut, "json", false, "stats/doctor: print JSON")
	fs.IntVar(&o.recallN, "limit", 10, "recall: max results")
	fs.StringVar(&o.recallTy, "types", "", "recall: comma list of kinds or entry types")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	rest := fs.Args()
	if o.command == "" && len(rest) > 0 {
		if !subcommands[rest[0]] {
			return f, fmt.Errorf("unknown command %q (want recall, doctor, stats, embed or mcp)", rest[0])
		}
		o.command, rest = rest[0], rest[1:]
		// Flags may also follow the subcommand.
		if err := fs.Parse(rest); err != nil {
			return f, err
		}
		rest = fs.Args()
	}
	o.args = rest
	return f, nil
}

// envCalibration reads SOMNI_COS_FLOOR and SOMNI_COS_SPAN; nil when
// neither is set, so the embedder's own calibration applies.
func envCalibration(getenv func(string) string) (*embed.Calibration, error) {
	floor, fok, err := envFloat(getenv, "SOMNI_COS_FLOOR")
	if err != nil {
		return nil, err
	}
	span, sok, err := envFloat(getenv, "SOMNI_COS_SPAN")
	if err != nil {
		return nil, err
	}
	if sok && span <= 0 {
		return nil, fmt.Errorf("SOMNI_COS_SPAN %v: want a positive number", span)
	}
	if !fok && !sok {
		return nil, nil
	}
	cal := embed.DefaultCalibration
	if fok {
		cal.Floor = floor
	}
	if sok {
		cal.Span = span
	}
	return &cal, nil
}

// envLinkSpread reads SOMNI_LINK_SPREAD; 0 when unset (the index's default).
func envLinkSpread(getenv func(string) string) (int, error) {
	v := strings.TrimSpace(getenv("SOMNI_LINK_SPREAD"))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("SOMNI_LINK_SPREAD %q: %w", v, err)
	}
	if n == 0 {
		n = -1 // 0 means "no spreading"; the index reads 0 as its default
	}
	return n, nil
}

// envTestNow reads SOMNI_TEST_NOW (RFC 3339): a clock that starts at a
// fixed instant, for tests that need a known "today"; it runs on from
// there, so order and timeouts still hold. nil when unset. Read here
// only; nothing else looks at it.
func envTestNow(getenv func(string) string) (func() time.Time, error) {
	v := strings.TrimSpace(getenv("SOMNI_TEST_NOW"))
	if v == "" {
		return nil, nil
	}
	t0, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, fmt.Errorf("SOMNI_TEST_NOW %q: want an RFC 3339 time: %w", v, err)
	}
	started := time.Now()
	return func() time.Time { return t0.Add(time.Since(started)) }, nil
}

// envInt reads a positive integer from the environment; unset or empty is
// 0 (the default), anything else unusable is an error naming the variable,
// so a typo does not silently run with the default.
func envInt(getenv func(string) string, k string) (int, error) {
	v := strings.TrimSpace(getenv(k))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s %q: want a positive integer", k, v)
	}
	return n, nil
}

// envFloat reads a number from the environment; ok is false when unset.
func envFloat(getenv func(string) string, k string) (f float64, ok bool, err error) {
	v := strings.TrimSpace(getenv(k))
	if v == "" {
		return 0, false, nil
	}
	f, err = strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, fmt.Errorf("%s %q: want a number", k, v)
	}
	return f, true, nil
}

func run(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usage)
			return 0
		}
		fmt.Fprintf(stderr, "somni-sidecar: %v\n%s", err, usage)
		return 2
	}
	// The configured zone becomes the process's local zone before anything
	// runs: session-log timestamps and episode dates are written and read as
	// local time, and must agree with the dates the tools resolve.
	time.Local = o.cfg.Location
	logger := slog.New(sidecar.NewLineHandler(stderr, o.level))
	slog.SetDefault(logger)
	o.cfg.Logger = logger
	switch o.command {
	case "":
		return serve(o, stdin, stdout, logger)
	case "recall":
		return cmdRecall(o, stdout, stderr)
	case "doctor":
		return cmdDoctor(o, stdout, stderr)
	case "stats":
		return cmdStats(o, stdout, stderr)
	case "embed":
		return cmdEmbed(o, stdin, stdout, stderr)
	case "mcp":
		return serveMCP(o, stdin, stdout, logger)
	}
	return 2
}

const usage = `usage:
  somni-sidecar [--data-dir DIR] [--llm host|openai] [--embed local|http|hash|off]
                [--embed-model-dir DIR] [--ort-lib FILE] [--assoc-threshold F] [--assoc-gap F]
                [--assoc-max-items N] [--log-level LEVEL] [--timezone ZONE]
                                                               serve JSON-RPC on stdio
  somni-sidecar [flags] recall [--limit N] [--types T] "query"
  somni-sidecar [flags] doctor [--json]
  somni-sidecar [flags] stats [--json]
  somni-sidecar [flags] embed ["text" ...]                     print vectors as JSON (texts from stdin, one per line, when none given)
  somni-sidecar mcp [flags]                                    serve the memory as an MCP server on stdio (tools, resources,
                                                               the somni-context prompt); dream_now dreams with the client's
                                                               model (MCP sampling) or with --llm openai
`

// protocolOut is where protocol frames go: when stdout is the process's,
// a private duplicate of it, so that nothing else the process (or a library
// in it) prints can reach the peer as a frame.
func protocolOut(stdout io.Writer, log *slog.Logger) io.Writer {
	if stdout != io.Writer(os.Stdout) {
		return stdout
	}
	proto, err := isolateStdout()
	if err != nil {
		log.Warn("cannot isolate stdout; protocol shares it with the process", "err", err)
		return stdout
	}
	return proto
}

// serve runs the stdio protocol until shutdown, stdin EOF or a signal; all
// three close the sessions and exit 0.
func serve(o *options, stdin io.Reader, stdout io.Writer, logger *slog.Logger) int {
	log := logger.With(sidecar.LoggerKey, "somni.main")
	stdout = protocolOut(stdout, log)
	srv, err := sidecar.New(o.cfg)
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	// Before serving, so a dream never reads a log a killed predecessor left torn.
	if _, err := srv.Logs().Capture().RecoverCrashed(); err != nil {
		log.Warn("recovering session logs left open by a crash", "err", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	conn := rpc.Serve(context.Background(), stdin, stdout, srv.Methods(), logger.With(sidecar.LoggerKey, "somni.rpc"),
		sidecar.ServeOptions()...)
	srv.Attach(conn)
	go func() {
		// After the first reply: the record's data dir reads as a long token,
		// which would have it wait for the secret rules to compile.
		<-srv.Started()
		log.Info("sidecar ready", "version", sidecar.Version, "data_dir", srv.Store().DataDir(), "llm", o.cfg.LLM, "embed", o.cfg.Embed.Provider)
	}()
	why := ""
	select {
	case <-srv.ShutdownRequested():
		why = "shutdown"
	case <-conn.Done():
		why = "stdin closed"
	case <-ctx.Done():
		why = "signal"
	}
	log.Info("stopping", "why", why)
	// Sessions first: they are what a kill would lose.
	if err := srv.Close(); err != nil {
		log.Warn("close", "err", err)
	}
	conn.Close()
	done := make(chan struct{})
	go func() { conn.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		log.Warn("handlers still running at exit")
	}
	return 0
}
