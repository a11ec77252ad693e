package dream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/sessionlog"
	"github.com/somni-dev/somni/internal/textcut"
	"github.com/somni-dev/somni/internal/usage"
)

// Defaults from the compat notes.
const (
	DefaultMaxLogs = 5
	minIters       = 30
)

// Result statuses and reasons of sleep.run, as the original host expects them.
const (
	StatusDeepSleep   = "deep_sleep"
	StatusSkipped     = "skipped"
	StatusError       = "error"
	StatusInterrupted = "interrupted"

	ReasonAlreadyRunning = "already_running"
	// ReasonOtherProcess is a dream another process on the same data dir
	// (a second sidecar, an MCP server) is running. Hosts show reasons as
	// they are ("Dream skipped: …"), so it is written to be read.
	ReasonOtherProcess  = "another process is dreaming"
	ReasonNoPendingLogs = "no_pending_logs"
	ReasonNoLLM         = "no_llm_backend"
)

// TokenUsage is the summed usage of one dream.
type TokenUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Result is the sleep.run reply; its JSON is the compat shape for each status.
type Result struct {
	Status     string
	Summary    string
	Reason     string
	TokenUsage *TokenUsage
}

// MarshalJSON writes exactly the fields the original host reads for each
// status: deep_sleep {summary, token_usage}, interrupted {reason,
// token_usage}, skipped and error {reason}; summary is present even when empty.
func (r Result) MarshalJSON() ([]byte, error) {
	u := r.TokenUsage
	if u == nil {
		u = &TokenUsage{}
	}
	switch r.Status {
	case StatusDeepSleep:
		return json.Marshal(struct {
			Status     string      `json:"status"`
			Summary    string      `json:"summary"`
			TokenUsage *TokenUsage `json:"token_usage"`
		}{r.Status, r.Summary, u})
	case StatusInterrupted:
		return json.Marshal(struct {
			Status     string      `json:"status"`
			Reason     string      `json:"reason"`
			TokenUsage *TokenUsage `json:"token_usage"`
		}{r.Status, r.Reason, u})
	default:
		return json.Marshal(struct {
			Status string `json:"status"`
			Reason string `json:"reason"`
		}{r.Status, r.Reason})
	}
}

// Status is the sleep.status reply.
type Status struct {
	Sleeping    bool   `json:"sleeping"`
	PendingLogs int    `json:"pendingLogs"`
	LLM         string `json:"llm"`
	// While sleeping, once the model is woken: the model turn under way,
	// the dream's turn budget and when the dream started.
	Step      int        `json:"step,omitempty"`
	MaxSteps  int        `json:"maxSteps,omitempty"`
	StartedAt *time.Time `json:"startedAt,omitempty"`
}

// Config wires a Dreamer to memory and a model.
type Config struct {
	Store *memory.Store
	// Logs are the store's session logs; nil means sessionlog.New(Store),
	// right only when no capture runs on the store in this process (archiving
	// a log must reach the capture that holds it).
	Logs *sessionlog.Logs
	// Backend answers the model calls; nil means no model is configured
	// (llm "none"): empty logs are still processed, anything else is an error.
	Backend ChatBackend
	// MaxLogs bounds the logs per dream; <= 0 means DefaultMaxLogs.
	// cmd/somni-sidecar reads it from SLEEP_MAX_LOGS.
	MaxLogs int
	// MaxIters caps the iteration budget; <= 0 means no cap.
	// cmd/somni-sidecar reads it from SLEEP_MAX_ITERS.
	MaxIters int
	// OnChanged runs after a dream that changed files (the sidecar syncs the index).
	OnChanged func(ctx context.Context)
	Logger    *slog.Logger
	Now       func() time.Time
}

// Dreamer runs at most one dream at a time and can be cancelled from another goroutine.
type Dreamer struct {
	cfg   Config
	log   *slog.Logger
	tools *toolbox

	mu      sync.Mutex
	running bool
	stop    context.CancelFunc
	// progress is the running dream's step, budget and start (sleep.status); guarded by mu.
	progress struct {
		step, max int
		started   time.Time
	}
	// cancelled is the cooperative flag checked around every model and tool call.
	cancelled atomic.Bool
}

// New returns a Dreamer over cfg.Store; it panics on a nil store (a wiring bug).
func New(cfg Config) *Dreamer {
	if cfg.Store == nil {
		panic("dream: Config.Store is nil")
	}
	if cfg.Logs == nil {
		cfg.Logs = sessionlog.New(cfg.Store)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxLogs <= 0 {
		cfg.MaxLogs = DefaultMaxLogs
	}
	log := cfg.Logger.With("logger", "somni.dream")
	return &Dreamer{cfg: cfg, log: log, tools: newToolbox(cfg.Store, cfg.Logs, cfg.Now, log)}
}

// LLM reports the backend name for ping and sleep.status: "host", "openai" or "none".
func (d *Dreamer) LLM() string {
	if d.cfg.Backend == nil {
		return "none"
	}
	return d.cfg.Backend.Name()
}

// Status reports whether a dream is running, the pending log count and the backend.
func (d *Dreamer) Status(ctx context.Context) Status {
	d.mu.Lock()
	running, prog := d.running, d.progress
	d.mu.Unlock()
	n, err := d.tools.pendingCount(ctx)
	if err != nil {
		d.log.Warn("sleep.status: count pending logs", "err", err)
	}
	st := Status{Sleeping: running, PendingLogs: n, LLM: d.LLM()}
	if running && prog.max > 0 {
		st.Step, st.MaxSteps, st.StartedAt = prog.step, prog.max, &prog.started
	}
	return st
}

// Cancel asks the running dream to stop; it returns at once. The dream ends
// with status interrupted at its next check or as soon as an in-flight model
// call is abandoned. Without a running dream it does nothing.
func (d *Dreamer) Cancel() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.running {
		return
	}
	d.cancelled.Store(true)
	if d.stop != nil {
		d.stop()
	}
}

// MaxIterations is the iteration budget for a dream over n logs:
// max(30, 10·n+15), capped by capIters when positive.
func MaxIterations(n, capIters int) int {
	it := max(minIters, 10*n+15)
	if capIters > 0 {
		it = min(it, capIters)
	}
	return it
}

// Run performs one dream over the oldest pending logs and never panics on
// model or memory misbehaviour: problems become a Result.
func (d *Dreamer) Run(ctx context.Context, trigger string) Result {
	return d.run(ctx, trigger, "")
}

// Nap is a dream over one live session's pending logs only (chatID is the
// host session id its logs carry): what the session said so far becomes
// memory while it goes on. The caller closes the session's live log first;
// the session's next message starts a new log, which the next full dream
// reads, so no part of the session is consolidated twice.
func (d *Dreamer) Nap(ctx context.Context, trigger, chatID string) Result {
	if strings.TrimSpace(chatID) == "" {
		return Result{Status: StatusError, Reason: "nap: no session id"}
	}
	return d.run(ctx, trigger, chatID)
}

func (d *Dreamer) run(ctx context.Context, trigger, chatID string) Result {
	d.mu.Lock()
	if d.running {
		d.mu.Unlock()
		return Result{Status: StatusSkipped, Reason: ReasonAlreadyRunning}
	}
	// One dream at a time across every process on the data dir: the dream
	// lock is an OS file lock, so a killed dreamer never leaves it held.
	release, ok, err := d.cfg.Store.TryDreamLock()
	if err != nil {
		d.mu.Unlock()
		return Result{Status: StatusError, Reason: err.Error()}
	}
	if !ok {
		d.mu.Unlock()
		d.log.Info("dream skipped: another process on this data dir is dreaming")
		return Result{Status: StatusSkipped, Reason: ReasonOtherProcess}
	}
	defer release()
	runCtx, stop := context.WithCancel(ctx)
	d.running = true
	d.stop = stop
	d.cancelled.Store(false)
	d.mu.Unlock()
	defer func() {
		stop()
		d.mu.Lock()
		d.running, d.stop = false, nil
		d.progress.step, d.progress.max = 0, 0
		d.mu.Unlock()
	}()
	// Recall hits since the last dream become score and stability first, so
	// decay and retirement in this dream see them. Under the dream lock, so
	// whichever process dreams folds the journal.
	if n, err := usage.Of(d.cfg.Store).Fold(runCtx); err != nil {
		d.log.Warn("folding recall usage", "err", err)
	} else if n > 0 {
		d.log.Info("recall usage applied", "entries", n)
	}

	if strings.TrimSpace(trigger) == "" {
		trigger = "manual"
	}
	r := &run{d: d, ctx: runCtx, trigger: trigger, chatID: chatID, start: d.cfg.Now()}
	r.rl = newRunLog(d.tools, trigger, r.start)
	res := r.dream()
	if res.Status != StatusSkipped {
		r.rl.write(res, satAdd(r.usage.PromptTokens, r.usage.CompletionTokens), d.cfg.Now())
	}
	if r.changed && d.cfg.OnChanged != nil {
		// The caller's ctx, not runCtx: a cancelled dream still syncs what it wrote.
		d.cfg.OnChanged(context.WithoutCancel(ctx))
	}
	d.log.Info("dream finished", "status", res.Status, "reason", res.Reason, "steps", r.steps, "changed", r.changed)
	return res
}

// setProgress notes the running dream's step for sleep.status.
func (d *Dreamer) setProgress(step, max int, started time.Time) {
	d.mu.Lock()
	d.progress.step, d.progress.max, d.progress.started = step, max, started
	d.mu.Unlock()
}

// errInterrupted ends a dream when the cancel flag or the context stops it.
var errInterrupted = errors.New("interrupted")

// run is the state of one dream.
type run struct {
	d       *Dreamer
	ctx     context.Context
	trigger string
	chatID  string // a nap's session: only its logs are read
	start   time.Time
	usage   TokenUsage
	changed bool
	steps   int
	// writes counts write-tool calls that changed memory; failed names
	// the ones that did not, so the result can say a dream achieved nothing;
	// partial names the writes that changed memory but left part undone.
	writes  int
	failed  []string
	partial []string
	rl      *runLog // what this dream changed, for its run record
}

func (r *run) interrupted() bool {
	return r.d.cancelled.Load() || r.ctx.Err() != nil
}

func (r *run) result(status, reason, summary string) Result {
	u := r.usage
	u.TotalTokens = satAdd(u.PromptTokens, u.CompletionTokens)
	res := Result{Status: status, Reason: reason, Summary: summary}
	if status == StatusDeepSleep || status == StatusInterrupted {
		res.TokenUsage = &u
	}
	return res
}

func (r *run) interruptedResult(where string) Result {
	reason := "cancelled " + where
	if !r.d.cancelled.Load() && r.ctx.Err() != nil {
		reason = fmt.Sprintf("%s %s", r.ctx.Err(), where)
	}
	return r.result(StatusInterrupted, reason, "")
}

func (r *run) dream() Result {
	tb := r.d.tools
	logs, err := tb.pendingLogs(r.ctx)
	if err != nil {
		return r.result(StatusError, fmt.Sprintf("list pending logs: %v", err), "")
	}
	if r.chatID != "" {
		logs = tb.logsOf(logs, r.chatID)
	}
	// Empty logs cost nothing to settle and must not wake the model.
	work := logs[:0:0]
	for _, l := range logs {
		if !l.Empty {
			work = append(work, l)
			continue
		}
		if r.interrupted() {
			return r.interruptedResult("while settling empty logs")
		}
		if err := tb.markProcessed(r.ctx, l.Path); err != nil {
			return r.result(StatusError, fmt.Sprintf("mark empty log %s processed: %v", l.ID, err), "")
		}
		r.changed = true
		r.d.log.Info("empty session log processed without the model", "log", l.ID)
	}
	if len(work) == 0 {
		return r.result(StatusSkipped, ReasonNoPendingLogs, "")
	}
	if r.d.cfg.Backend == nil {
		return r.result(StatusError, ReasonNoLLM, "")
	}
	if len(work) > r.d.cfg.MaxLogs {
		r.d.log.Info("more pending logs than one dream takes; oldest first", "pending", len(work), "taking", r.d.cfg.MaxLogs)
		work = work[:r.d.cfg.MaxLogs]
	}
	maxIters := MaxIterations(len(work), r.d.cfg.MaxIters)
	r.d.setProgress(0, maxIters, r.start)
	r.d.log.Info("dream started", "trigger", r.trigger, "logs", len(work), "max_iters", maxIters)

	conv := newConversation(4 + 4*maxIters)
	// One walk of knowledge serves both prompts (its count, its sync
	// conflicts); one that fails leaves them without either.
	knowledge, _ := tb.st.Scan(r.ctx, memory.KindKnowledge)
	conv.add(Message{Role: "system", Content: tb.systemPrompt(knowledge, r.trigger, r.start)})
	conv.add(Message{Role: "user", Content: tb.userPrompt(knowledge, work, r.trigger, r.start)})
	tools := tb.specs()

	for iter := 0; iter < maxIters; iter++ {
		if r.interrupted() {
			return r.interruptedResult("before a model call")
		}
		r.d.setProgress(iter+1, maxIters, r.start)
		reply, usage, err := r.chat(conv.msgs, tools)
		if r.interrupted() {
			// A late answer of an abandoned call is ignored.
			return r.interruptedResult("during a model call")
		}
		if err != nil {
			return r.result(StatusError, err.Error(), "")
		}
		r.usage.PromptTokens = satAdd(r.usage.PromptTokens, usage.PromptTokens)
		r.usage.CompletionTokens = satAdd(r.usage.CompletionTokens, usage.CompletionTokens)
		r.usage.CachedTokens = satAdd(r.usage.CachedTokens, usage.CachedTokens)
		if len(reply.ToolCalls) == 0 {
			return r.finish(strings.TrimSpace(reply.Content))
		}
		conv.add(reply)
		for i, call := range reply.ToolCalls {
			if i >= MaxToolCallsPerStep {
				// Every tool_call still needs its tool message, or the next request is malformed.
				conv.add(Message{Role: "tool", ToolCallID: call.ID, Content: errorf(
					"not run: at most %d tool calls per turn are executed and this was call %d of %d; send it again in your next turn if it still matters",
					MaxToolCallsPerStep, i+1, len(reply.ToolCalls))})
				continue
			}
			if r.steps >= MaxToolCallsPerDream {
				r.d.log.Warn("dream hit its tool-call limit", "limit", MaxToolCallsPerDream)
				return r.result(StatusInterrupted, fmt.Sprintf("tool-call limit of %d per dream reached; the dream stopped early and kept what it wrote", MaxToolCallsPerDream), "")
			}
			if r.interrupted() {
				return r.interruptedResult("before a tool call")
			}
			snap := r.rl.before(r.ctx, call.Function.Name, call.Function.Arguments)
			out := tb.exec(r.ctx, call)
			if out.Changed {
				r.rl.after(r.ctx, snap)
			}
			r.steps++
			r.noteWrite(call.Function.Name, out)
			idx := conv.add(Message{Role: "tool", ToolCallID: call.ID, Content: out.Text})
			if out.Changed {
				r.changed = true
			}
			if out.ReadLog != "" {
				conv.noteLogRead(out.ReadLog, idx)
			}
			if out.ProcessedLog != "" {
				conv.stubProcessedLog(out.ProcessedLog)
			}
			if r.interrupted() {
				return r.interruptedResult("after a tool call")
			}
		}
		if n := conv.compact(CtxBudgetTokens, CtxKeepRecent); n > 0 {
			r.d.log.Debug("compacted older tool outputs", "iteration", iter+1, "stubbed", n)
		}
	}
	r.d.log.Warn("dream hit its iteration cap", "max_iters", maxIters)
	return r.finish(fmt.Sprintf("(iteration cap of %d reached; the dream ended early — 已达到最大迭代次数)", maxIters))
}

// writeTools are the tools that change memory; a dream that called some and
// changed nothing failed, whatever the model's summary says.
var writeTools = map[string]bool{
	toolCreateKnowledge: true, toolUpdateKnowledge: true, toolCreateSkill: true, toolUpdateSkill: true,
	toolArchiveItem: true, toolRecordEpisode: true, toolMarkLogProcessed: true, toolWriteDreamLog: true,
	toolDecayAllKnowledge: true, toolUpdateAboutMe: true, toolUpdateAboutUser: true,
}

func (r *run) noteWrite(tool string, out toolOutcome) {
	switch {
	case !writeTools[tool], out.Duplicate:
	case out.Changed:
		r.writes++
		if out.Partial != "" {
			r.partial = append(r.partial, tool+": "+textcut.Clip(out.Partial, maxFailureRunes, "…"))
		}
	default:
		why, _, _ := strings.Cut(strings.TrimPrefix(out.Text, errPrefix), "\n")
		why = strings.TrimPrefix(why, tool+": ")
		r.failed = append(r.failed, tool+": "+textcut.Clip(why, maxFailureRunes, "…"))
	}
}

// finish ends a dream that ran to its end: error when every write it tried
// failed (nothing was consolidated, the user must hear it), else deep_sleep
// with the failed writes and the partly done ones, if any, appended to the
// model's summary.
func (r *run) finish(summary string) Result {
	total := r.writes + len(r.failed)
	if len(r.failed) > 0 && r.writes == 0 {
		return r.result(StatusError, fmt.Sprintf("every memory write failed (%d of %d): %s", len(r.failed), total, shownWrites(r.failed)), "")
	}
	if len(r.failed) > 0 {
		summary += fmt.Sprintf("\n\n(%d of %d memory writes failed: %s)", len(r.failed), total, shownWrites(r.failed))
	}
	if len(r.partial) > 0 {
		summary += fmt.Sprintf("\n\n(%d of %d memory writes only partly done: %s)", len(r.partial), total, shownWrites(r.partial))
	}
	return r.result(StatusDeepSleep, "", summary)
}

// shownWrites joins the first maxFailedWritesShown of writes and counts the rest.
func shownWrites(writes []string) string {
	shown := strings.Join(writes[:min(len(writes), maxFailedWritesShown)], "; ")
	if len(writes) > maxFailedWritesShown {
		shown += fmt.Sprintf("; and %d more", len(writes)-maxFailedWritesShown)
	}
	return shown
}

// chat calls the backend but stops waiting as soon as the dream is cancelled,
// even when a backend ignores its context; the abandoned reply is discarded.
func (r *run) chat(msgs []Message, tools []Tool) (Message, Usage, error) {
	type reply struct {
		m   Message
		u   Usage
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		m, u, err := r.d.cfg.Backend.Chat(r.ctx, msgs, tools)
		ch <- reply{m, u, err}
	}()
	select {
	case rep := <-ch:
		return rep.m, rep.u, rep.err
	case <-r.ctx.Done():
		return Message{}, Usage{}, errInterrupted
	}
}
