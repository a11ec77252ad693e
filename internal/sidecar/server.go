package sidecar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/index/cache"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/safefs"
	"github.com/somni-dev/somni/internal/sessionlog"
	"github.com/somni-dev/somni/internal/team"
	"github.com/somni-dev/somni/internal/toolspec"
)

// Version is reported by ping; the build may override it with -ldflags.
var Version = "0.1.0-go"

// DefaultConvCharBudget is CONV_SEARCH_CHAR_BUDGET's default.
const DefaultConvCharBudget = 12000

// Config is everything the sidecar needs; cmd/somni-sidecar fills it from
// argv and the environment.
type Config struct {
	DataDir   string // required
	MemoryDir string // "" ⇒ <DataDir>/memory (MEMORY_ROOT_PATH)
	SkillDir  string // "" ⇒ <DataDir>/skills (SKILL_ROOT_PATH)

	LLM    string // "host" (reverse llm.chat) | "openai"
	OpenAI dream.OpenAIConfig
	// HostModel, when set, replaces the reverse llm.chat as the "host"
	// model: the MCP server passes its client's model (sampling) here.
	// LLM "openai" still wins, so --llm openai works under every host.
	HostModel dream.ChatBackend
	// MaxLogs and MaxIters bound a dream (SLEEP_MAX_LOGS, SLEEP_MAX_ITERS); ≤0 ⇒ defaults.
	MaxLogs, MaxIters int

	Embed       embed.Config
	Calibration *embed.Calibration // SOMNI_COS_FLOOR/SPAN; nil ⇒ the embedder's own
	LinkSpread  int                // SOMNI_LINK_SPREAD; 0 ⇒ 1, <0 disables

	// Assoc is the hint gate (--assoc-threshold, --assoc-gap,
	// --assoc-max-items); zero fields take internal/assoc's defaults.
	// ShowPath is the server's own (hints name files relative to the data dir).
	Assoc assoc.Config

	ConvCharBudget int // CONV_SEARCH_CHAR_BUDGET; ≤0 ⇒ 12000

	// KeepGC leaves the collector's target as the runtime has it (the
	// environment sets GOGC) instead of gcPercent after the first sync.
	KeepGC bool

	// StartDelay bounds how long the start-up work waits for a first ping
	// (see startDelay); ≤0 ⇒ startDelay. Tests set it long to see the gate.
	StartDelay time.Duration

	Logger *slog.Logger
	Now    func() time.Time
	// Location is the user's time zone (--timezone); nil ⇒ time.Local.
	// Every clock reading the server makes is in it, so "today", due dates
	// and intention ids follow the user's calendar.
	Location *time.Location

	// SyncInterval is how often a data dir under git sync runs a round by
	// itself (--sync-interval); 0 ⇒ DefaultSyncInterval, < 0 ⇒ never (no
	// automatic round at all, not even at start or after a dream).
	SyncInterval time.Duration

	// Teams are the team pools mounted beside the personal memory (package
	// team: teams.yml's and the --team flags'). Recall, hints and the
	// search tools rank their entries with the personal ones; nothing but
	// an explicit share writes them.
	Teams []team.Pool
}

// Server is one sidecar instance over one data directory.
type Server struct {
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	store   *memory.Store
	pools   pools // the mounted team pools, each over its own boundary
	logs    *sessionlog.Logs
	capture *sessionlog.Capture
	dreamer *dream.Dreamer
	tools   *toolspec.Registry[ToolEnv]
	assoc   *assocGate
	tab     *tab // the Memory tab's methods (memory.*)
	sync    *autoSync

	// The index opens in the background so ping answers at once; ixReady
	// closes when ix/ixErr are set.
	ixReady chan struct{}
	ix      *index.Index
	ixErr   error
	emb     embed.Embedder
	// firstSync closes when the startup sync has finished (or failed).
	firstSync chan struct{}
	// startGate holds back the start-up work a first reply does not need
	// (opening the index, cleaning temp files, compiling the secret rules)
	// until it opens: see startDelay.
	startGate chan struct{}
	startOnce sync.Once
	started   time.Time // when New ran: warmWait counts from it

	syncMu   sync.Mutex // guards syncCur, syncNext
	syncCur  *syncCall  // the shared sync running now
	syncNext *syncCall  // the one that runs after it, for callers who came meanwhile

	pingC     pingCache
	freedOnce atomic.Bool // the first sync has returned its garbage to the OS
	host      atomic.Pointer[rpc.Conn]
	bgMu      sync.Mutex // guards bgClosed and bg.Add against Close's Wait
	bgClosed  bool
	bg        sync.WaitGroup // background writes and syncs Close waits for
	bgCtx     context.Context
	bgCancel  context.CancelFunc

	shutdownOnce sync.Once
	shutdown     chan struct{}
	closeOnce    sync.Once
}

// New opens the store and starts opening the index in the background.
func New(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	clock, loc := cfg.Now, cfg.Location
	cfg.Now = func() time.Time { return clock().In(loc) }
	if cfg.ConvCharBudget <= 0 {
		cfg.ConvCharBudget = DefaultConvCharBudget
	}
	if cfg.StartDelay <= 0 {
		cfg.StartDelay = startDelay
	}
	log := cfg.Logger.With(LoggerKey, "somni.sidecar")
	st, err := memory.Open(memory.Config{DataDir: cfg.DataDir, MemoryDir: cfg.MemoryDir, SkillDir: cfg.SkillDir,
		Now: cfg.Now, Logger: cfg.Logger.With(LoggerKey, "somni.memory")})
	if err != nil {
		return nil, fmt.Errorf("sidecar: %w", err)
	}
	// The index cache lives in the data dir: it must exist before the index
	// opens. The data dir holds the store's roots rather than lying inside
	// one, so it is made as the root of a boundary of its own: every folder
	// somni creates is made by package safefs.
	if err := mkdirRoot(st.DataDir()); err != nil {
		return nil, fmt.Errorf("sidecar: create data dir: %w", err)
	}
	pools, err := openPools(cfg)
	if err != nil {
		return nil, err
	}
	logs := sessionlog.New(st)
	s := &Server{cfg: cfg, log: log, now: cfg.Now, store: st, pools: pools, logs: logs, capture: logs.Capture(),
		ixReady: make(chan struct{}), firstSync: make(chan struct{}), startGate: make(chan struct{}), shutdown: make(chan struct{}),
		assoc: &assocGate{cfg: cfg.Assoc}}
	s.started = time.Now()
	s.bgCtx, s.bgCancel = context.WithCancel(context.Background())
	s.dreamer = dream.New(dream.Config{
		Store:    st,
		Logs:     logs,
		Backend:  s.chatBackend(),
		MaxLogs:  cfg.MaxLogs,
		MaxIters: cfg.MaxIters,
		// Before sleep.run answers, so what the dream wrote is recallable at once.
		OnChanged: func(ctx context.Context) {
			s.syncIndex(ctx, "dream")
			s.sync.soon()
		},
		Logger: cfg.Logger,
		Now:    cfg.Now,
	})
	s.tab = newTab(s)
	if s.tools, err = newWorkTools(s); err != nil {
		return nil, err
	}
	s.goBackground(s.afterStart(s.openIndex))
	s.goBackground(s.afterStart(func(ctx context.Context) {
		// Housekeeping walks the whole store as the startup sync's scan
		// does, and the watcher's; run beside them they share the cores,
		// so it waits for both: the first recall waits for the sync, not
		// for this (what the walk costs a large store:
		// docs/ARCHITECTURE.md, Measurements).
		select {
		case <-s.firstSync:
		case <-ctx.Done():
		}
		if ix := s.readyIndex(); ix != nil {
			select {
			case <-ix.Watched():
			case <-ctx.Done():
			}
		}
		if ctx.Err() == nil {
			s.sweepTemps(ctx)
			// the walk's garbage, after the startup sync's own was handed
			// back (logSynced); kept, it stays resident (measured in
			// docs/ARCHITECTURE.md, Measurements)
			debug.FreeOSMemory()
		}
	}))
	s.sync = newAutoSync(s)
	s.goBackground(s.afterStart(s.sync.run))
	// Every capture and log line needs the rule set; compiled here, the first
	// one does not wait for it (a server closed first skips it). After the
	// startup sync: beside it, the compile (90 ms of CPU) took the 2 cores
	// from the index's load and listing (a capture before then compiles it
	// itself).
	s.goBackground(s.afterStart(func(ctx context.Context) {
		select {
		case <-s.firstSync:
		case <-ctx.Done():
		}
		if ctx.Err() == nil {
			redact.Prepare()
		}
	}))
	return s, nil
}

// sweepTemps removes the temp files killed writes left in the store. The
// index's cache file keeps when the last whole sweep began, so this one
// lists only the folders whose names changed since (100k entry folders:
// one stat each, not a listing each); without it, every folder.
func (s *Server) sweepTemps(ctx context.Context) {
	const key = "x-temps-swept"
	db := filepath.Join(s.store.DataDir(), "index.sqlite")
	start := time.Now()
	var last time.Time
	if v, err := cache.StateAt(ctx, db, key); err == nil && v != "" {
		if ns, err := strconv.ParseInt(v, 10, 64); err == nil && ns < start.UnixNano() {
			last = time.Unix(0, ns)
		}
	}
	if _, ok := s.store.SweepTemps(last); ok {
		// recorded even when the server is closing meanwhile: the sweep is whole
		if err := cache.SetStateAt(context.WithoutCancel(ctx), db, key, strconv.FormatInt(start.UnixNano(), 10)); err != nil {
			s.log.Debug("when the temp files were swept is not recorded; the next start lists every folder", "err", err)
		}
	}
	s.log.Debug("temp files swept", "after", last, "took", time.Since(start))
}

// startDelay is how long the start-up work waits for the host's first
// ping. A host pings as soon as it has spawned the sidecar, and that answer
// is what it waits for: with a 10k-entry index opening beside it the first
// reply took several times as long as with the work held back (measured
// in docs/ARCHITECTURE.md, Measurements); the main goroutine had waited for
// a processor and the collector marked the index's garbage. The ping's answer, or any
// caller that needs the index, opens the gate at once; after startDelay it
// opens anyway (the MCP server and CLI commands do not ping), long enough
// for a ping sent at spawn to arrive on a loaded machine.
const startDelay = 100 * time.Millisecond

// Started is closed once the start-up work held back for the first reply
// may run.
func (s *Server) Started() <-chan struct{} { return s.startGate }

// openStartGate lets the held-back start-up work run.
func (s *Server) openStartGate() { s.startOnce.Do(func() { close(s.startGate) }) }

// afterStart wraps f to wait for the start gate (or startDelay) first; f
// still runs when the server closes meanwhile, with ctx done.
func (s *Server) afterStart(f func(context.Context)) func(context.Context) {
	return func(ctx context.Context) {
		t := time.NewTimer(s.cfg.StartDelay)
		defer t.Stop()
		select {
		case <-s.startGate:
		case <-t.C:
			s.openStartGate()
		case <-ctx.Done():
		}
		f(ctx)
	}
}

// chatBackend picks the dreamer's model: the host's (through the attached
// connection) or an OpenAI-compatible endpoint; nil means none configured.
func (s *Server) chatBackend() dream.ChatBackend {
	if s.cfg.LLM == "openai" {
		b, err := dream.NewOpenAIBackend(s.cfg.OpenAI)
		if err != nil {
			s.log.Warn("openai backend unavailable; dreams need a model", "err", err)
			return nil
		}
		return b
	}
	if s.cfg.HostModel != nil {
		return s.cfg.HostModel
	}
	return dream.NewHostBackend(hostCaller{s})
}

// hostCaller forwards reverse calls to whichever connection is attached.
type hostCaller struct{ s *Server }

func (h hostCaller) Call(ctx context.Context, method string, params, result any) error {
	c := h.s.host.Load()
	if c == nil {
		return errors.New("sidecar: no host connection for " + method)
	}
	return c.Call(ctx, method, params, result)
}

// Attach gives the server the connection it can call the host on.
func (s *Server) Attach(c *rpc.Conn) { s.host.Store(c) }

// DataDir is the data directory the server's store is on.
func (s *Server) DataDir() string { return s.store.DataDir() }

// RecoverCrashed finalises the session logs a killed predecessor left open,
// so a dream never reads a torn one: run it before serving. It returns the
// logs it finalised.
func (s *Server) RecoverCrashed() ([]string, error) { return s.capture.RecoverCrashed() }

// mkdirRoot creates dir (and its parents) through package safefs, as the
// root of a boundary of its own.
func mkdirRoot(dir string) error {
	fsys, err := safefs.New(dir)
	if err != nil {
		return err
	}
	return fsys.MkdirAll(dir)
}

// openIndex builds the embedder and opens the SQLite cache, then syncs.
func (s *Server) openIndex(ctx context.Context) {
	defer close(s.firstSync)
	if err := ctx.Err(); err != nil {
		// Closed before the start gate opened: nothing to open for.
		s.ixErr = fmt.Errorf("sidecar: open index: %w", err)
		close(s.ixReady)
		return
	}
	ilog := s.cfg.Logger.With(LoggerKey, "somni.index")
	emb, err := embed.New(s.cfg.Embed, ilog)
	if err != nil {
		s.ixErr = fmt.Errorf("sidecar: embedder: %w", err)
		s.log.Error("recall index unavailable", "err", err)
		close(s.ixReady)
		return
	}
	// A folder missing when the index opens is never watched: create them.
	for _, d := range s.store.RecallDirs() {
		if err := s.store.FS().MkdirAll(d); err != nil {
			s.log.Warn("cannot create memory folder; hand edits there are seen by periodic scans only", "dir", d, "err", err)
		}
	}
	src := newRecallSource(s.store, s.pools)
	ix, err := index.Open(ctx, index.Options{
		Path:         filepath.Join(s.store.DataDir(), "index.sqlite"),
		Source:       src,
		Embedder:     emb,
		Logger:       ilog,
		Now:          s.now,
		Calibration:  s.cfg.Calibration,
		LinkSpread:   s.cfg.LinkSpread,
		WatchDirs:    src.watchDirs(),
		Roots:        src.roots(),
		Shared:       src.shared(),
		ScanInterval: scanInterval,
		QuickStart:   true,
	})
	if err != nil {
		_ = emb.Close()
		s.ixErr = fmt.Errorf("sidecar: open index: %w", err)
		if ctx.Err() == nil {
			s.log.Error("recall index unavailable", "err", err)
		}
		close(s.ixReady)
		return
	}
	s.emb, s.ix = emb, ix
	s.assoc.bind(ix, s)
	// The startup sync is a shared one, registered before the index is
	// published: an index.sync the host sent while the index opened joins
	// it, as its scan has not begun, instead of queueing a second full
	// scan behind it (each walks every entry folder: docs/ARCHITECTURE.md,
	// Measurements). Its zero ask takes the listing Open started once the
	// cache was read.
	c := s.syncShared("startup", time.Time{})
	close(s.ixReady)
	<-c.done
}

// Index waits for the index to open (or ctx) and returns it.
func (s *Server) Index(ctx context.Context) (*index.Index, error) {
	s.openStartGate()
	select {
	case <-s.ixReady:
		return s.ix, s.ixErr
	case <-ctx.Done():
		return nil, fmt.Errorf("sidecar: waiting for the index: %w", ctx.Err())
	}
}

// firstSyncWait bounds how long a search waits for the startup sync of an
// index that opened empty (a first start, a cache deleted): long enough
// for keyword indexing of a large store, short enough that a slow first
// embedding pass cannot stall a tool call.
const firstSyncWait = 5 * time.Second

// warmWait is how long after the server started a search waits for the
// startup sync of an index that opened from its cache: past it, recall
// answers from the cache while the sync reconciles it with the files (a
// restart at 100k notes lists them for about a second). Within it, a
// small store's sync (a few thousand notes) has usually finished, and its
// first recall sees what changed while the sidecar was stopped; a 10k
// store's takes 0.2–0.3 s, which no first recall should wait for. 50 ms
// keeps spawn → first recall within 100 ms at 10k on this 2-core machine
// (about 30 ms to start the process, then this wait, then the search);
// at 100 ms it was 130–150 ms.
const warmWait = 50 * time.Millisecond

// syncedIndex is Index after waiting (bounded) for the startup sync: an
// index read from its cache waits until warmWait after the start at most,
// one that opened empty up to firstSyncWait.
func (s *Server) syncedIndex(ctx context.Context) (*index.Index, error) {
	s.openStartGate()
	cold := time.NewTimer(firstSyncWait)
	defer cold.Stop()
	select {
	case <-s.firstSync:
		return s.Index(ctx)
	case <-s.ixReady:
	case <-cold.C:
	case <-ctx.Done():
		return nil, fmt.Errorf("sidecar: waiting for the index: %w", ctx.Err())
	}
	wait := cold.C
	if ix := s.readyIndex(); ix != nil && ix.Cached() > 0 {
		warm := time.NewTimer(time.Until(s.started.Add(warmWait)))
		defer warm.Stop()
		wait = warm.C
	}
	select {
	case <-s.firstSync:
	case <-wait:
		s.log.Debug("startup index sync still running; searching what is indexed so far")
	case <-ctx.Done():
		return nil, fmt.Errorf("sidecar: waiting for the index: %w", ctx.Err())
	}
	return s.Index(ctx)
}

// readyIndex returns the index only if it is already open.
func (s *Server) readyIndex() *index.Index {
	select {
	case <-s.ixReady:
		return s.ix
	default:
		return nil
	}
}

// syncCall is one index sync that any number of callers wait for.
type syncCall struct {
	reason   string
	done     chan struct{} // closed when err is set
	err      error
	scanning bool // its scan may have begun: callers queue behind it (guarded by Server.syncMu)
	// asked is when the last of its callers asked (zero: only the start's
	// own sync): a listing of the files older than that cannot serve it
	// (guarded by Server.syncMu)
	asked time.Time
}

// SyncIndexAsync schedules an index sync without waiting for it.
func (s *Server) SyncIndexAsync(reason string) { s.syncShared(reason, time.Now()) }

// syncShared starts or joins an index sync. With none running it starts
// one; while one runs, every caller joins the single sync queued after it,
// which starts when the running one ends: a caller's writes before asking
// may have missed the running scan, but never the next one, and a burst
// of requests costs at most two syncs. One that has not begun its scan
// yet (waiting for the index to open) is joined as it is.
func (s *Server) syncShared(reason string, asked time.Time) *syncCall {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	join := func(c *syncCall) *syncCall {
		if asked.After(c.asked) {
			c.asked = asked
		}
		return c
	}
	if s.syncNext != nil {
		return join(s.syncNext)
	}
	if s.syncCur != nil && !s.syncCur.scanning {
		return join(s.syncCur)
	}
	c := &syncCall{reason: reason, done: make(chan struct{}), asked: asked}
	if s.syncCur != nil {
		s.syncNext = c
		return c
	}
	s.syncCur = c
	if !s.goBackground(s.runSyncs) {
		s.syncCur = nil
		c.err = errors.New("sidecar: closing")
		close(c.done)
	}
	return c
}

// runSyncs runs syncCur, then whatever was queued behind it.
func (s *Server) runSyncs(ctx context.Context) {
	for {
		s.syncMu.Lock()
		c := s.syncCur
		s.syncMu.Unlock()
		c.err = ctx.Err()
		if c.err == nil {
			c.err = s.syncOnce(ctx, c.reason, func() time.Time {
				s.syncMu.Lock()
				defer s.syncMu.Unlock()
				c.scanning = true
				return c.asked
			})
		}
		close(c.done)
		s.syncMu.Lock()
		s.syncCur, s.syncNext = s.syncNext, nil
		last := s.syncCur == nil
		s.syncMu.Unlock()
		if last {
			return
		}
	}
}

// syncOnce waits for the index to open and syncs it. An index that could
// not open has nothing to sync (its error is logged once, at open).
// begin, if not nil, runs once the index is open, before the scan, and
// says when the sync was asked for (see index.SyncSince).
func (s *Server) syncOnce(ctx context.Context, reason string, begin func() time.Time) error {
	ix, err := s.Index(ctx)
	if err != nil || ix == nil {
		return ctx.Err()
	}
	asked := time.Now()
	if begin != nil {
		asked = begin()
	}
	stats, err := ix.SyncSince(ctx, asked)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("index sync failed", "reason", reason, "err", err)
		}
		return fmt.Errorf("sidecar: index sync (%s): %w", reason, err)
	}
	s.logSynced(reason, stats)
	return nil
}

// syncIndex is syncOnce for callers that do not wait for the index to
// open (the startup sync, after a dream): an index not open yet is left
// to its own startup sync. syncOnce has logged a failure.
func (s *Server) syncIndex(ctx context.Context, reason string) {
	if s.readyIndex() != nil {
		_ = s.syncOnce(ctx, reason, nil)
	}
}

func (s *Server) logSynced(reason string, stats index.SyncStats) {
	s.log.Debug("index synced", "reason", reason, "scanned", stats.Scanned, "loaded", stats.Loaded,
		"queued", stats.Queued, "removed", stats.Removed, "failed", stats.Failed, "took", stats.Duration)
	first := s.freedOnce.CompareAndSwap(false, true)
	if first && !s.cfg.KeepGC {
		debug.SetGCPercent(gcPercent)
	}
	if first || stats.Loaded >= releaseAfterLoads {
		// Opening the cache and loading files leave several times the
		// index's size in garbage; the runtime returns it to the OS only
		// slowly, and a sidecar lives beside the user's other programs.
		// It runs beside the sync's reply: a full collection before it
		// delayed the reply and left resident memory the same (both
		// measured in docs/ARCHITECTURE.md, Measurements).
		go debug.FreeOSMemory()
	}
}

// gcPercent is the collector's target (GOGC) once the first sync has
// loaded the index, unless the environment sets one (Config.KeepGC). A sidecar's heap is
// almost all index, and the process holds about heap × (1 + GOGC/100)
// resident between collections, which the runtime hands back only
// slowly, while a collection of the index's heap is cheap. 50 keeps most
// of what 25 saves for half the collections (BenchmarkRSS; measured in
// docs/ARCHITECTURE.md, Measurements). Set at start, it made the runtime
// collect a 2 MB heap before the first reply: spawn → ping 30.2 against
// 26.5 ms p50 with GOGC=100 (40 spawns each, release build, load 1.9–2.7).
const gcPercent = 50

// releaseAfterLoads is how many files a sync must load before the memory
// its garbage held is handed back to the OS at once (the first sync after
// a start always does).
const releaseAfterLoads = 512

// ShutdownRequested is closed once the host has called `shutdown`.
func (s *Server) ShutdownRequested() <-chan struct{} { return s.shutdown }

// Close finalises open sessions, stops background work and closes the
// index. It is safe to call more than once.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		n := s.capture.CloseAll()
		s.log.Info("sidecar closing", "sessions_closed", n)
		s.dreamer.Cancel()
		s.bgMu.Lock()
		s.bgClosed = true
		s.bgMu.Unlock()
		s.bgCancel()
		s.bg.Wait()
		if s.ix != nil {
			err = s.ix.Close()
		}
		if s.emb != nil {
			if cerr := s.emb.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}
	})
	return err
}

// goBackground runs f on a tracked goroutine so Close waits for it; after
// Close it runs nothing and reports false.
func (s *Server) goBackground(f func(ctx context.Context)) bool {
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	if s.bgClosed {
		return false
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		f(s.bgCtx)
	}()
	return true
}
