package sidecar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/jsonfast"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/ort"
	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/textcut"
	"github.com/somni-dev/somni/internal/toolspec"
)

// method adapts a typed handler to rpc.Handler: params are decoded strictly
// by toolspec (the same rules as tool arguments: null or "" count as
// missing for required strings) and a bad value becomes -32602. The params
// type is compiled on the method's first call, not when the table is built:
// building all of them sat between main and the first ping's answer
// (measured in docs/ARCHITECTURE.md, Measurements); TestMethodParams compiles every one.
func method[P any](name string, fn func(ctx context.Context, p P) (any, error)) rpc.Handler {
	compile := sync.OnceValues(toolspec.Compile[P])
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		ps, err := compile()
		if err != nil {
			return nil, fmt.Errorf("sidecar: params of %s: %w", name, err) // a programming error
		}
		p, err := ps.Decode(raw)
		if err != nil {
			var ae *toolspec.ArgError
			if errors.As(err, &ae) {
				ae.Tool = name
			}
			return nil, rpc.InvalidParams("%s", err.Error())
		}
		res, err := fn(ctx, p)
		var ae *toolspec.ArgError
		if errors.As(err, &ae) && ae.Tool == "" {
			ae.Tool = name
		}
		return res, mapError(err)
	}
}

// mapError turns the caller's mistakes into -32602 and leaves the rest
// (internal errors) to rpc.
func mapError(err error) error {
	if err == nil {
		return nil
	}
	var re *rpc.Error
	switch {
	case errors.As(err, &re):
		return err
	case toolspec.IsBadCall(err), errors.Is(err, memory.ErrInvalid), errors.Is(err, memory.ErrUnsafeName):
		// memory quotes the offending value whole; keep its head and the
		// rule at the tail ("must be user or agent").
		return rpc.InvalidParams("%s", textcut.ClipMiddle(err.Error(), maxErrorBytes, " … "))
	}
	return err
}

// maxErrorBytes bounds a -32602 message built from the caller's input.
const maxErrorBytes = 400

// inlineMethods never block, so they run on the read loop (lowest latency).
var inlineMethods = []string{"ping"}

// sessionMethods write one session's log: they keep the host's order per
// sessionId, while different sessions run side by side, so one session's
// rotation (a finalise with fsync) does not stall every other session.
var sessionMethods = []string{"session.append", "session.tool", "session.close"}

// barrierMethods wait for every session method sent before them, and every
// later one waits for them: closeAll must finalise all earlier appends, and
// shutdown must come after them.
var barrierMethods = []string{"session.closeAll", "shutdown"}

// ServeOptions are the rpc options the method table relies on for its
// ordering and latency guarantees.
func ServeOptions() []rpc.Option {
	return []rpc.Option{
		rpc.WithInline(inlineMethods...),
		rpc.WithSerialByKey(sessionKey, sessionMethods...),
		rpc.WithSerial(barrierMethods...),
	}
}

// sessionKey orders session methods by their sessionId. Params the handler
// will reject still get a stable key (the raw member, or "").
func sessionKey(params json.RawMessage) string {
	var p struct {
		SessionID json.RawMessage `json:"sessionId"`
	}
	if jsonfast.Unmarshal(params, &p) != nil {
		return ""
	}
	var id string
	if json.Unmarshal(p.SessionID, &id) == nil {
		return id
	}
	return string(p.SessionID)
}

// Methods returns the JSON-RPC method table.
func (s *Server) Methods() map[string]rpc.Handler {
	m := map[string]rpc.Handler{
		"ping":             method("ping", s.ping),
		"prompt.build":     method("prompt.build", s.promptBuild),
		"session.append":   method("session.append", s.sessionAppend),
		"session.tool":     method("session.tool", s.sessionTool),
		"session.close":    method("session.close", s.sessionClose),
		"session.closeAll": method("session.closeAll", s.sessionCloseAll),
		"session.digest":   method("session.digest", s.sessionDigest),
		"assoc.thought":    method("assoc.thought", s.assocThought),
		"assoc.action":     method("assoc.action", s.assocAction),
		"assoc.reset":      method("assoc.reset", s.assocReset),
		"tools.list":       method("tools.list", s.toolsList),
		"tools.call":       method("tools.call", s.toolsCall),
		"sleep.status":     method("sleep.status", s.sleepStatus),
		"sleep.run":        method("sleep.run", s.sleepRun),
		"sleep.cancel":     method("sleep.cancel", s.sleepCancel),
		"index.sync":       method("index.sync", s.indexSync),
		"shutdown":         method("shutdown", s.shutdownMethod),
	}
	for name, h := range s.tab.methods() {
		m[name] = h
	}
	for name, h := range (shares{s}).methods() {
		m[name] = h
	}
	for name, h := range (resources{s}).methods() {
		m[name] = h
	}
	return m
}

type noParams struct{}

type okResult struct {
	OK bool `json:"ok"`
}

// PingResult is the `ping` reply.
type PingResult struct {
	Version     string    `json:"version"`
	DataDir     string    `json:"dataDir"`
	MemoryDir   string    `json:"memoryDir"`
	SkillDir    string    `json:"skillDir"`
	LLM         string    `json:"llm"`
	Vector      bool      `json:"vector"`
	PendingLogs int       `json:"pendingLogs"`
	Embed       EmbedInfo `json:"embed"`
	// Index counts entries and their embedding progress; absent until
	// the index is open.
	Index *PingIndex `json:"index,omitempty"`
	// Sync is how git sync stands (without the remote), so the plugin can
	// tell the user once when the automatic rounds fail; absent when the
	// data dir is not under sync.
	Sync *SyncState `json:"sync,omitempty"`
}

// PingIndex is ping's view of the recall index.
type PingIndex struct {
	Entries  int `json:"entries"`
	Embedded int `json:"embedded"` // entries carrying a vector from the live embedder
	Pending  int `json:"pending"`  // entries waiting for one (keyword-only meanwhile)
}

// EmbedInfo says which embedder recall uses and, when it is not the one
// configured or has stopped working, why — so the plugin and doctor can tell
// the user instead of recall silently getting worse.
type EmbedInfo struct {
	Provider   string `json:"provider"`             // as configured
	Label      string `json:"label,omitempty"`      // the embedder in use in words, and whether it is live
	ID         string `json:"id,omitempty"`         // the embedder in use, once the index is open
	Runtime    string `json:"runtime,omitempty"`    // how ONNX Runtime is bound: onnxruntime_go or purego
	ModelDir   string `json:"modelDir,omitempty"`   // local: the model folder loaded
	RuntimeLib string `json:"runtimeLib,omitempty"` // local: the ONNX Runtime library loaded
	Degraded   string `json:"degraded,omitempty"`   // why recall is not using what was configured
}

// pingTTL is how long ping may reuse its pending-log count and vector
// flag; both cost a directory read or a pass over the index.
const pingTTL = time.Second

// pingCache keeps ping on the read loop cheap (it runs inline).
type pingCache struct {
	mu         sync.Mutex
	at         time.Time // zero ⇒ must recompute before answering
	pending    int
	vector     bool
	index      *PingIndex
	refreshing bool
}

// invalidate makes the next ping recompute synchronously (after a session
// closes, pendingLogs must be exact).
func (c *pingCache) invalidate() {
	c.mu.Lock()
	c.at = time.Time{}
	c.mu.Unlock()
}

// ping answers from cheap state: the index may still be opening, in which
// case vector is false until it is ready.
func (s *Server) ping(ctx context.Context, _ noParams) (any, error) {
	res := PingResult{Version: Version, DataDir: s.store.DataDir(), MemoryDir: s.store.MemoryDir(),
		SkillDir: s.store.SkillDir(), LLM: s.dreamer.LLM()}
	c := &s.pingC
	c.mu.Lock()
	switch {
	case c.at.IsZero():
		c.mu.Unlock()
		s.refreshPing()
		c.mu.Lock()
	case time.Since(c.at) > pingTTL && !c.refreshing:
		c.refreshing = true
		s.goBackground(func(context.Context) { s.refreshPing() })
	}
	res.PendingLogs, res.Vector, res.Index = c.pending, c.vector, c.index
	c.mu.Unlock()
	res.Embed = s.embedInfo()
	if !res.Vector {
		// "Not yet" is never cached: the host's readiness ping comes before
		// the index opens, and the check (a channel poll and a pass under a
		// read lock) is cheap next to the directory read the cache saves.
		res.Vector, res.Index = s.indexPing()
	}
	// A stat, and a small file read until this server ran a round itself.
	res.Sync = s.tab.syncState(false)
	// The answer is ready: the start-up work held back for it may run now.
	s.openStartGate()
	return res, nil
}

// embedInfo describes the embedder; before the index opens only the
// configured provider is known.
func (s *Server) embedInfo() EmbedInfo {
	select {
	case <-s.ixReady:
	default:
		return DescribeEmbedder(s.cfg.Embed.Provider, nil)
	}
	if s.ixErr != nil {
		info := DescribeEmbedder(s.cfg.Embed.Provider, nil)
		info.Degraded = s.ixErr.Error()
		return info
	}
	return DescribeEmbedder(s.cfg.Embed.Provider, s.emb)
}

// DescribeEmbedder fills an EmbedInfo for the configured provider and the
// embedder built from it (nil while it is not built yet).
func DescribeEmbedder(provider string, e embed.Embedder) EmbedInfo {
	info := EmbedInfo{Provider: provider, Runtime: ort.Backend}
	if info.Provider == "" {
		info.Provider = "local"
	}
	if e == nil {
		return info
	}
	info.ID = e.ID()
	info.ModelDir, info.RuntimeLib = embed.Files(e)
	info.Degraded = embed.Degradation(e)
	switch {
	case info.Degraded != "":
		info.Label = embed.Describe(e) + ", degraded"
	case embed.IsOff(e):
		info.Label = embed.Describe(e)
	default:
		info.Label = embed.Describe(e) + ", live"
	}
	return info
}

// indexPing is ping.vector and ping.index. Vector is true exactly when a recall now ranks by
// vectors. That needs the index open, an embedder that is not off and not
// backing off after a failure, and at least one entry embedded or none
// indexed yet (entries still queued score by keyword beside the embedded
// ones; ping.index says how many).
// A degraded embedder counts as no vectors even when, like the hash
// stand-in for a local model that failed to load, it still produces some:
// they are not the semantic vectors configured, and ping.embed.degraded
// says why.
func (s *Server) indexPing() (vector bool, counts *PingIndex) {
	ix := s.readyIndex()
	if ix == nil {
		return false, nil
	}
	st := ix.Status()
	return st.Vectors && embed.Degradation(s.emb) == "",
		&PingIndex{Entries: st.Entries, Embedded: st.Embedded, Pending: st.Pending}
}

func (s *Server) refreshPing() {
	pending := 0
	if logs, err := s.logs.Pending(); err != nil {
		s.log.Warn("ping: count pending logs", "err", err)
	} else {
		pending = len(logs)
	}
	vector, counts := s.indexPing()
	c := &s.pingC
	c.mu.Lock()
	c.pending, c.vector, c.index, c.at, c.refreshing = pending, vector, counts, time.Now(), false
	c.mu.Unlock()
}

type appendParams struct {
	SessionID string `json:"sessionId" desc:"host session id"`
	Role      string `json:"role" desc:"user or agent"`
	Text      string `json:"text,omitempty" desc:"message text"`
	UserID    string `json:"userId" desc:"speaker's user id" default:"default"`
	ChatType  string `json:"chatType,omitempty" desc:"direct, group, …"`
	Speaker   string `json:"speaker,omitempty" desc:"group-chat speaker label"`
}

type appendResult struct {
	OK      bool   `json:"ok"`
	Skipped string `json:"skipped,omitempty"`
}

func (s *Server) sessionAppend(_ context.Context, p appendParams) (any, error) {
	written, err := s.capture.Append(p.SessionID, p.Role, p.Text, p.UserID, p.ChatType, p.Speaker)
	if err != nil {
		return nil, err
	}
	if !written {
		return appendResult{OK: true, Skipped: "empty"}, nil
	}
	return appendResult{OK: true}, nil
}

type toolLogParams struct {
	SessionID string        `json:"sessionId" desc:"host session id"`
	Call      toolspec.Text `json:"call,omitempty" desc:"the tool call (text or JSON)"`
	Result    toolspec.Text `json:"result,omitempty" desc:"the tool result (text or JSON)"`
	Reason    toolspec.Text `json:"reason,omitempty" desc:"why the agent called it"`
}

func (s *Server) sessionTool(_ context.Context, p toolLogParams) (any, error) {
	if err := s.capture.Tool(p.SessionID, string(p.Call), string(p.Result), string(p.Reason)); err != nil {
		return nil, err
	}
	return okResult{true}, nil
}

type sessionParams struct {
	SessionID string `json:"sessionId" desc:"host session id"`
}

func (s *Server) sessionClose(_ context.Context, p sessionParams) (any, error) {
	defer s.pingC.invalidate()
	path, err := s.capture.Close(p.SessionID)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return map[string]any{"path": nil}, nil
	}
	return map[string]any{"path": path}, nil
}

func (s *Server) sessionCloseAll(context.Context, noParams) (any, error) {
	defer s.pingC.invalidate()
	return map[string]int{"closed": s.capture.CloseAll()}, nil
}

type thoughtParams struct {
	SessionID string `json:"sessionId" desc:"host session id"`
	Cue       string `json:"cue" desc:"the agent's current thought"`
	IterNo    int    `json:"iterNo,omitempty" desc:"agent loop iteration"`
}

type actionParams struct {
	SessionID string          `json:"sessionId" desc:"host session id"`
	ToolName  string          `json:"toolName" desc:"tool the agent is about to call"`
	Args      json.RawMessage `json:"args" desc:"its arguments" default:"{}"`
	IterNo    int             `json:"iterNo,omitempty" desc:"agent loop iteration"`
}

func (s *Server) assocThought(ctx context.Context, p thoughtParams) (any, error) {
	res, err := s.assoc.thought(ctx, p)
	if err == nil {
		s.tab.noteHint(p.SessionID, "assoc.thought", p.Cue, res)
	}
	return res, err
}

func (s *Server) assocAction(ctx context.Context, p actionParams) (any, error) {
	res, err := s.assoc.action(ctx, p)
	if err == nil {
		s.tab.noteHint(p.SessionID, "assoc.action", p.ToolName+" "+string(p.Args), res)
	}
	return res, err
}

func (s *Server) assocReset(_ context.Context, p sessionParams) (any, error) {
	s.assoc.reset(p.SessionID)
	return okResult{true}, nil
}

func (s *Server) toolsList(context.Context, noParams) (any, error) {
	return map[string]any{"tools": s.tools.Specs()}, nil
}

type callParams struct {
	Name      string          `json:"name" desc:"tool name"`
	Args      json.RawMessage `json:"args" desc:"tool arguments" default:"{}"`
	SessionID string          `json:"sessionId,omitempty" desc:"host session id"`
	UserID    string          `json:"userId" desc:"speaker's user id" default:"default"`
}

func (s *Server) toolsCall(ctx context.Context, p callParams) (any, error) {
	trace := &toolTrace{}
	text, err := s.tools.Call(ctx, p.Name, ToolEnv{SessionID: p.SessionID, UserID: p.UserID, Trace: traced{trace}}, p.Args)
	if err == nil {
		s.tab.noteTool(p.SessionID, p.Name, trace)
	}
	if err != nil {
		if mapped := mapError(err); mapped != err {
			return nil, mapped
		}
		return nil, fmt.Errorf("tool %s: %w", p.Name, err)
	}
	return map[string]string{"result": text}, nil
}

func (s *Server) sleepStatus(ctx context.Context, _ noParams) (any, error) {
	return s.dreamer.Status(ctx), nil
}

type sleepParams struct {
	Trigger   string `json:"trigger,omitempty" desc:"what started the dream"`
	SessionID string `json:"sessionId,omitempty" desc:"a nap: consolidate only this live session's log so far"`
}

// sleepRun dreams on the request's context, so shutdown or a host
// $/cancelRequest interrupts it like sleep.cancel does. With a sessionId it
// naps: the session's live log is closed (its next message starts a new
// one) and only that session's logs are read.
func (s *Server) sleepRun(ctx context.Context, p sleepParams) (any, error) {
	defer s.pingC.invalidate()
	if p.SessionID != "" {
		if _, err := s.capture.Close(p.SessionID); err != nil {
			return nil, fmt.Errorf("sleep.run: close the session's log for a nap: %w", err)
		}
		return s.dreamer.Nap(ctx, p.Trigger, p.SessionID), nil
	}
	// The dreamer folds the recall usage journal first, under the dream lock.
	return s.dreamer.Run(ctx, p.Trigger), nil
}

func (s *Server) sleepCancel(context.Context, noParams) (any, error) {
	s.dreamer.Cancel()
	return okResult{true}, nil
}

type syncParams struct {
	Reason string `json:"reason,omitempty" desc:"why the host asks"`
}

// indexSync answers once the index is complete: a sync that started after
// the request (shared with concurrent callers, see syncShared), then every
// entry it published embedded, so the next recall ranks all of them by
// vector. Both waits end with the request's context. An embedder backing
// off after a failure is not waited out: the reply is still ok, the
// entries are keyword-searchable, and ping.vector says false meanwhile.
func (s *Server) indexSync(ctx context.Context, p syncParams) (any, error) {
	c := s.syncShared(strings.TrimSpace("host "+p.Reason), time.Now())
	select {
	case <-c.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("index.sync: %w", ctx.Err())
	}
	if c.err != nil {
		return nil, fmt.Errorf("index.sync: %w", c.err)
	}
	defer s.pingC.invalidate()
	ix := s.readyIndex()
	if ix == nil {
		return okResult{true}, nil // the index could not open: nothing to wait for
	}
	if err := ix.WaitEmbedded(ctx); err != nil {
		if !errors.Is(err, index.ErrEmbedBackoff) {
			return nil, fmt.Errorf("index.sync: %w", err)
		}
		s.log.Warn("index.sync: embedder failing; answering with entries keyword-only", "err", err)
	}
	return okResult{true}, nil
}

// shutdownMethod closes every session before answering, then signals the
// process to exit once the reply is on the wire.
func (s *Server) shutdownMethod(context.Context, noParams) (any, error) {
	n := s.capture.CloseAll()
	s.log.Info("shutdown requested", "sessions_closed", n)
	return rpc.AfterReply{Result: okResult{true}, Then: func() {
		s.shutdownOnce.Do(func() { close(s.shutdown) })
	}}, nil
}
