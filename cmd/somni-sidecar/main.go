// Command somni-sidecar is the somni memory sidecar: it speaks
// newline-delimited JSON-RPC 2.0 on stdin/stdout for the dsh-somni host, a
// drop-in for the Python `somni_memory` sidecar. For people who edit memory
// by hand it also has subcommands: recall, doctor, stats and sync.
//
//	somni-sidecar [flags]                 serve stdio until shutdown, EOF or SIGTERM
//	somni-sidecar [flags] recall "query"  ranked recall results
//	somni-sidecar [flags] doctor          report broken files and links (exit 1 if any)
//	somni-sidecar [flags] stats           counts and index state
//	somni-sidecar [flags] sync [init REMOTE|status]  one memory on every machine, through git
//	somni-sidecar [flags] share [list|approve ID|reject ID|NAME --team TEAM]  what is shared with a team
//	somni-sidecar merge-file %O %A %B %P  git's merge driver for memory files
//	somni-sidecar mcp [flags]             serve the memory to an MCP client on stdio
//	somni-sidecar help | version          usage with every flag, the version
//
// Files, by job:
//
//	main.go                          argv and environment, usage, serving stdio
//	cli.go                           the recall, doctor, stats and embed subcommands
//	mcp.go                           the mcp subcommand
//	sync.go                          the sync subcommand (package gitsync)
//	export.go                        the export subcommand: the memory as one archive (package export)
//	team.go                          the team subcommand: the pools this machine mounts (package team)
//	share.go                         the share subcommand: proposals approved or rejected, an entry shared by name (package share)
//	mergefile.go                     the merge-file subcommand, git's merge driver (package memmerge)
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
	"github.com/somni-dev/somni/internal/team"
)

func main() {
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
	command  string // "" (serve) | recall | doctor | stats | embed | mcp | sync | merge-file | help | version
	args     []string
	jsonOut  bool
	verbose  bool
	recallN  int
	recallTy string
	// teamFlags are the --team pools; run adds teams.yml's (team.Mounted).
	teamFlags []team.Pool
	// shareTeam is `share --team TEAM NAME`'s team, given before the name.
	shareTeam string
	usage     string // the help text, flags described from the parser itself
}

// commands are the subcommands in the order usage lists them; "" serves
// the stdio protocol.
var commands = []struct{ name, args, what string }{
	{"", "", "serve JSON-RPC on stdio for the dsh-somni plugin (it starts the sidecar itself)"},
	{"recall", `"query"`, "print the memories that match a query, best first (--limit, --types)"},
	{"doctor", "", "check the install and the memory files; exit 1 on any problem (--json)"},
	{"stats", "", "count memories, session logs and the index (--json)"},
	{"embed", `["text" ...]`, "print the embedder's vectors as JSON (texts from stdin, one a line, when none given)"},
	{"mcp", "", "serve the memory to an MCP client on stdio; dream_now dreams with the client's model or --llm openai"},
	{"sync", "[init REMOTE|status]", "sync the memory through git: init joins REMOTE, sync runs one round, status says what waits (exit 0 only when in step)"},
	{"team", "add|list|remove|sync", "mount a team's shared memory beside yours: team add NAME FOLDER (e.g. ./.somni in a project) or team add NAME REMOTE (cloned into the data dir and synced); list; remove NAME; sync (the cloned ones)"},
	{"share", "list|approve|reject", "write into a team pool: share list, share approve ID, share reject ID (what the model proposed with share_memory), or share NAME --team TEAM (your own entry)"},
	{"export", "FILE", "write the memory's Markdown (every entry, intention, diary and session log) as a .tar.gz; unpacked, it is a data dir (- for stdout)"},
	{"merge-file", "%O %A %B %P", "git's merge driver for memory files (sync init registers it)"},
	{"help", "", "print this help"},
	{"version", "", "print the version and exit"},
}

// mountsTeams are the commands that recall: they read the team pools too.
var mountsTeams = map[string]bool{"": true, "mcp": true, "recall": true, "doctor": true, "stats": true}

// readOnly are the commands that only look at a memory: pointed at a
// directory that is not there they refuse, where the plugin's serve and
// mcp create it on first use.
var readOnly = map[string]bool{"recall": true, "doctor": true, "stats": true, "export": true}

func isCommand(w string) bool {
	for _, c := range commands {
		if c.name != "" && c.name == w {
			return true
		}
	}
	return false
}

// maxRecallLimit bounds `recall --limit`: each hit is up to eight lines, so
// 100 is a long page already; the recall tool stops at 20.
const maxRecallLimit = 100

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
	if o.command == "help" || o.command == "version" {
		return o, nil
	}
	if o.recallN < 1 || o.recallN > maxRecallLimit {
		return nil, fmt.Errorf("--limit %d: want 1 to %d", o.recallN, maxRecallLimit)
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
	// A person at a terminal reads the answer, not the sidecar's
	// housekeeping: the commands log errors only, unless asked for more.
	if o.command != "" && o.command != "mcp" && !f.levelSet {
		o.level = slog.LevelError
		if o.verbose {
			o.level = slog.LevelInfo
		}
	}
	c := &o.cfg
	c.DataDir = f.dataDir
	c.MemoryDir = env("MEMORY_ROOT_PATH", "")
	c.SkillDir = env("SKILL_ROOT_PATH", "")
	c.LLM = f.llm
	c.OpenAI = dream.OpenAIConfigFromEnv(getenv)
	c.KeepGC = getenv("GOGC") != "" // the user's collector target wins over the sidecar's
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
	if c.SyncInterval, err = parseSyncInterval(f.syncInterval); err != nil {
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
	syncInterval                                                      string
	thr, gap                                                          float64
	maxItems                                                          int
	levelSet                                                          bool // --log-level or SOMNI_LOG_LEVEL was given
}

// parseFlags drops the Python launch form, takes the subcommand and
// parses the flags before and after it; env(k, def) is a variable's
// trimmed value or def, the flags' defaults. -h, --help and help set the
// command to "help", --version and version to "version".
func parseFlags(o *options, args []string, env func(k, def string) string) (flagValues, error) {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-m" && args[i+1] == "somni_memory" {
			args = append(args[:i:i], args[i+2:]...)
			break
		}
	}
	if len(args) > 0 && isCommand(args[0]) {
		o.command, args = args[0], args[1:]
	}
	var f flagValues
	var version bool
	fs := newFlagSet(o, &f, &version, env)
	o.usage = usageText(fs)
	parse := func(args []string) error {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			o.command = "help"
			return nil
		}
		if name, ok := strings.CutPrefix(fmt.Sprint(err), "flag provided but not defined: "); ok {
			return fmt.Errorf("unknown flag -%s", name)
		}
		return err
	}
	if err := parse(args); err != nil {
		return f, err
	}
	rest := fs.Args()
	if o.command == "" && len(rest) > 0 {
		if !isCommand(rest[0]) {
			return f, fmt.Errorf("unknown command %q (want %s)", rest[0], commandList())
		}
		o.command, rest = rest[0], rest[1:]
		// Flags may also follow the subcommand.
		if err := parse(rest); err != nil {
			return f, err
		}
		rest = fs.Args()
	}
	if version && o.command != "help" {
		o.command = "version"
	}
	fs.Visit(func(fl *flag.Flag) { f.levelSet = f.levelSet || fl.Name == "log-level" })
	f.levelSet = f.levelSet || env("SOMNI_LOG_LEVEL", "") != ""
	o.args = rest
	return f, nil
}

// newFlagSet declares every flag once: its description here is what
// --help prints. A `WORD` in backquotes names the flag's value there.
func newFlagSet(o *options, f *flagValues, version *bool, env func(k, def string) string) *flag.FlagSet {
	fs := flag.NewFlagSet("somni-sidecar", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.dataDir, "data-dir", env("SOMNI_DATA_DIR", defaultDataDir()),
		"the `DIR` holding memory/ and skills/ (env SOMNI_DATA_DIR)")
	fs.StringVar(&f.llm, "llm", "host", "the `MODEL` that dreams: host (the plugin's, by reverse llm.chat) or openai (SLEEP_*/OPENAI_* env)")
	fs.StringVar(&f.embedProvider, "embed", env("SOMNI_EMBED_PROVIDER", "local"),
		"the `EMBEDDER`: local (the bundled model), http (SOMNI_EMBED_* env), hash (no model) or off (keywords only) (env SOMNI_EMBED_PROVIDER)")
	fs.StringVar(&f.modelDir, "embed-model-dir", env("SOMNI_EMBED_MODEL_PATH", ""),
		"the local model's `DIR` (default: the model installed with the binary) (env SOMNI_EMBED_MODEL_PATH)")
	fs.StringVar(&f.ortLib, "ort-lib", env("SOMNI_ORT_LIB", ""),
		"the ONNX Runtime shared library `FILE` the local embedder loads (env SOMNI_ORT_LIB)")
	// The gate's defaults live in internal/assoc; an absent flag keeps them.
	fs.Float64Var(&f.thr, "assoc-threshold", assoc.DefaultThreshold, "the `SCORE` a memory needs to be hinted unasked")
	fs.Float64Var(&f.gap, "assoc-gap", assoc.DefaultGap, "the `MARGIN` a hint needs over the next best memory")
	fs.IntVar(&f.maxItems, "assoc-max-items", assoc.DefaultMaxItems, "the most memories one hint names, `N` ≥ 1")
	fs.StringVar(&f.logLevel, "log-level", env("SOMNI_LOG_LEVEL", "info"),
		"the stderr log's `LEVEL`: debug, info, warning or error; commands log errors only unless it is set or --verbose (env SOMNI_LOG_LEVEL)")
	fs.StringVar(&f.timezone, "timezone", env("SOMNI_TIMEZONE", ""),
		"the IANA time `ZONE` dates are read and written in (default: the machine's) (env SOMNI_TIMEZONE)")
	fs.StringVar(&f.syncInterval, "sync-interval", env("SOMNI_SYNC_INTERVAL", "5m"),
		"how often a memory under git sync (sync init) syncs by itself while the sidecar runs, a `DURATION` (30s, 5m, 1h) of at least 1s; off: never, not even at start or after a dream (env SOMNI_SYNC_INTERVAL)")
	fs.Func("team", "mount a team pool for this run, `NAME=FOLDER` (repeatable; teams.yml's pools are mounted too, see the team command)", func(v string) error {
		if o.command == "share" && !strings.Contains(v, "=") {
			// After `share`, --team names the team to share with (share --team T NAME).
			o.shareTeam = v
			return nil
		}
		p, err := team.ParseFlag(v)
		if err == nil {
			o.teamFlags = append(o.teamFlags, p)
		}
		return err
	})
	fs.BoolVar(&o.jsonOut, "json", false, "stats, doctor: print JSON")
	fs.IntVar(&o.recallN, "limit", 10, fmt.Sprintf("recall: the most memories to print, `N` from 1 to %d", maxRecallLimit))
	fs.StringVar(&o.recallTy, "types", "", "recall: a comma `LIST` of kinds (knowledge, skill, episode) or entry types (fact, pitfall, …)")
	fs.BoolVar(&o.verbose, "verbose", false, "commands: log progress to stderr; doctor and stats add embedder ids and files")
	fs.BoolVar(version, "version", false, "print the version and exit")
	return fs
}

// minSyncInterval bounds --sync-interval from below: a round is at least
// one fetch from the remote, and a host that is asked every few
// milliseconds by every machine of a team will throttle or block it.
const minSyncInterval = time.Second

// parseSyncInterval reads --sync-interval: a duration, or off (-1).
func parseSyncInterval(v string) (time.Duration, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "never", "0":
		return -1, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < minSyncInterval {
		return 0, fmt.Errorf("--sync-interval %q: want a duration of at least %s (30s, 5m, 1h) or off", v, minSyncInterval)
	}
	return d, nil
}

// defaultDataDir is the Python sidecar's data directory.
func defaultDataDir() string {
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".dsh", "somni")
}

// commandList names the subcommands for an error message.
func commandList() string {
	var names []string
	for _, c := range commands {
		if c.name != "" {
			names = append(names, c.name)
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// usageText is --help: the commands, then every flag with its description
// and default, from the flag set itself so neither can drift.
func usageText(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("usage: somni-sidecar [flags] [command] [flags]\n\ncommands:\n")
	for _, c := range commands {
		name := c.name
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(&b, "  %-26s %s\n", strings.TrimSpace(name+" "+c.args), c.what)
	}
	b.WriteString("\nflags (before or after the command; -flag and --flag alike):\n")
	fs.VisitAll(func(fl *flag.Flag) {
		value, what := flag.UnquoteUsage(fl)
		name := "--" + fl.Name
		if value != "" {
			name += " " + value
		}
		switch def := fl.DefValue; {
		case def == "" || def == "0" || def == "false":
		case strings.HasSuffix(what, ")") && strings.Contains(what, "(env "):
			what = strings.TrimSuffix(what, ")") + ", default " + def + ")"
		default:
			what += " (default " + def + ")"
		}
		fmt.Fprintf(&b, "  %-26s %s\n", name, what)
	})
	b.WriteString("\nThe Python launch form `-m somni_memory` is accepted and ignored.\n")
	return b.String()
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
		fmt.Fprintf(stderr, "somni-sidecar: %v; see somni-sidecar --help\n", err)
		return 2
	}
	switch o.command {
	case "help":
		fmt.Fprint(stdout, o.usage)
		return 0
	case "version":
		fmt.Fprintf(stdout, "somni-sidecar %s\n", sidecar.Version)
		return 0
	}
	// The configured zone becomes the process's local zone before anything
	// runs: session-log timestamps and episode dates are written and read as
	// local time, and must agree with the dates the tools resolve.
	time.Local = o.cfg.Location
	logger := slog.New(sidecar.NewLineHandler(stderr, o.level))
	slog.SetDefault(logger)
	o.cfg.Logger = logger
	if o.command != "embed" && o.command != "merge-file" { // they touch no data dir
		if err := checkDataDir(o.cfg.DataDir, readOnly[o.command]); err != nil {
			if o.command == "" || o.command == "mcp" {
				// the host reads the log, not a terminal
				logger.Error("cannot start", sidecar.LoggerKey, "somni.main", "err", err)
				return 1
			}
			fmt.Fprintf(stderr, "somni-sidecar %s: %v\n", o.command, err)
			return 2
		}
	}
	if mountsTeams[o.command] {
		if o.cfg.Teams, err = team.Mounted(o.cfg.DataDir, o.teamFlags); err != nil {
			if o.command != "" && o.command != "mcp" {
				fmt.Fprintf(stderr, "somni-sidecar %s: %v\n", o.command, err)
				return 2
			}
			// A broken teams.yml costs the team pools, never the personal memory.
			logger.Error("team pools not mounted", sidecar.LoggerKey, "somni.main", "err", err)
		}
	}
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
	case "sync":
		return cmdSync(o, stdout, stderr)
	case "merge-file":
		return cmdMergeFile(o.args, stderr)
	case "team":
		return cmdTeam(o, stdout, stderr)
	case "export":
		return cmdExport(o, stdout, stderr)
	case "share":
		return cmdShare(o, stdout, stderr)
	}
	return 2
}

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
	if _, err := srv.RecoverCrashed(); err != nil {
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
		log.Info("sidecar ready", "version", sidecar.Version, "data_dir", srv.DataDir(), "llm", o.cfg.LLM, "embed", o.cfg.Embed.Provider)
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
