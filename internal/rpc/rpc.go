// Package rpc speaks newline-delimited JSON-RPC 2.0 in both directions over
// a reader/writer pair (the sidecar's stdin/stdout), on top of
// github.com/sourcegraph/jsonrpc2.
//
// Incoming requests are served concurrently, each with its own context that
// is cancelled when the connection closes or the peer sends
// `$/cancelRequest {id}`. Malformed frames are answered with -32700 and the
// connection keeps serving. The same connection can call the peer (reverse
// calls such as `llm.chat`) with string ids `somni-N`; a call abandoned by
// its context is cancelled at the peer with `$/cancelRequest {id}`.
//
// jsonrpc2 owns the connection's life (its read loop, close, disconnect
// notification). Frames are decoded, dispatched and answered by this
// package's stream, and replies to our calls are routed here too: jsonrpc2
// decodes a request about five times over and keeps a cancelled call's id
// until a reply that may never come (see Call).
package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// JSON-RPC error codes used by somni.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800 // LSP's code for a request the peer cancelled
)

// CancelMethod is the notification that cancels an in-flight request by id.
const CancelMethod = "$/cancelRequest"

// Error is a JSON-RPC error object; a handler returning one has it sent to
// the peer unchanged.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message) }

// Errorf builds an *Error with a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams builds a -32602 error.
func InvalidParams(format string, args ...any) *Error {
	return Errorf(CodeInvalidParams, format, args...)
}

// Handler serves one method. params is never empty: null or missing params
// arrive as `{}`. Returning an *Error sends it as is; any other error becomes
// -32603.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// AfterReply wraps a handler result with work to run once the reply has
// been written, e.g. exiting after answering `shutdown`.
type AfterReply struct {
	Result any
	Then   func()
}

// Option configures Serve.
type Option func(*Conn)

// WithSerial makes the named methods run one at a time in arrival order (on
// one worker goroutine, so the reader never blocks). Use it for methods
// whose effects must keep the peer's order, e.g. appends to a session log.
func WithSerial(methods ...string) Option {
	return func(c *Conn) {
		for _, m := range methods {
			c.serial[m] = true
		}
	}
}

// WithInline makes the named methods run on the read loop itself, saving
// two goroutine hand-offs per call. Only for handlers that never block
// (ping): while one runs, no other frame is read.
func WithInline(methods ...string) Option {
	return func(c *Conn) {
		for _, m := range methods {
			c.inline[m] = true
		}
	}
}

// WithDrain sets how long in-flight requests may still run and reply after
// the input ends (EOF) before their contexts are cancelled; default 3 s.
// A host that writes a request and closes its end still gets the answer.
func WithDrain(d time.Duration) Option {
	return func(c *Conn) { c.drain = d }
}

// Conn is a served connection.
type Conn struct {
	drain   time.Duration
	jc      *jsonrpc2.Conn
	stream  *lineStream
	methods map[string]Handler
	serial  map[string]bool
	inline  map[string]bool
	logger  *slog.Logger
	seq     atomic.Uint64

	mu       sync.Mutex
	inflight map[jsonrpc2.ID]*inflightReq
	calls    map[jsonrpc2.ID]chan *response // our calls awaiting a reply

	queue *serialQueue
	wg    sync.WaitGroup // running handlers
	ready chan struct{}  // closed once jc is set: jsonrpc2 reads before NewConn returns
	// ctx is the parent of every handler context; it is cancelled when the
	// connection ends, like the context jsonrpc2 hands its handlers.
	ctx context.Context
}

// Serve starts serving methods on r/w and returns at once. The connection
// ends when r reaches EOF or fails, ctx is cancelled, or Close is called.
func Serve(ctx context.Context, r io.Reader, w io.Writer, methods map[string]Handler, logger *slog.Logger, opts ...Option) *Conn {
	if logger == nil {
		logger = slog.Default()
	}
	c := &Conn{
		methods:  methods,
		serial:   map[string]bool{},
		inline:   map[string]bool{},
		logger:   logger,
		inflight: map[jsonrpc2.ID]*inflightReq{},
		calls:    map[jsonrpc2.ID]chan *response{},
		drain:    3 * time.Second,
		ready:    make(chan struct{}),
	}
	for _, o := range opts {
		o(c)
	}
	connCtx, cancel := context.WithCancel(ctx)
	c.ctx = connCtx
	c.stream = newLineStream(r, w, logger)
	c.stream.onEnd = c.drainHandlers
	c.stream.onRequest = func(req *request) {
		<-c.ready // handlers may use c.jc (Call, Done)
		c.handle(req)
	}
	c.stream.onResponse = c.deliver
	c.queue = newSerialQueue()
	c.jc = jsonrpc2.NewConn(connCtx, c.stream, c, jsonrpc2.SetLogger(printfLogger{logger}))
	close(c.ready)
	go func() {
		<-c.jc.DisconnectNotify()
		cancel()
	}()
	go c.queue.run(c.jc.DisconnectNotify(), c.stream)
	return c
}

// drainHandlers waits for running handlers, at most c.drain.
func (c *Conn) drainHandlers() {
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(c.drain):
		c.logger.Warn("rpc: input ended with requests still running; cancelling them", "grace", c.drain)
	}
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.jc.DisconnectNotify() }

// Close ends the connection, cancels in-flight handlers and fails pending
// calls. It is safe to call more than once.
func (c *Conn) Close() error {
	err := c.jc.Close()
	if errors.Is(err, jsonrpc2.ErrClosed) {
		return nil
	}
	return err
}

// Wait blocks until the connection has ended and every handler returned.
func (c *Conn) Wait() {
	<-c.Done()
	c.wg.Wait()
}

// inflightReq is one running request that $/cancelRequest can reach.
type inflightReq struct{ cancel context.CancelFunc }

// Handle implements jsonrpc2.Handler. Requests normally never reach
// jsonrpc2 (the stream decodes and dispatches them itself); this keeps any
// that do on the same path.
func (c *Conn) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	<-c.ready
	r := &request{id: req.ID, method: req.Method, notif: req.Notif, params: json.RawMessage("{}")}
	if req.Params != nil && string(*req.Params) != "null" {
		r.params = *req.Params
	}
	if !req.Notif {
		r.rawID, _ = req.ID.MarshalJSON() // a string or a uint64: cannot fail
	}
	c.handle(r)
}

// handle runs on the read loop, so apart from inline methods it only
// dispatches; the work happens on other goroutines.
func (c *Conn) handle(req *request) {
	ctx := c.ctx
	if req.method == CancelMethod {
		c.cancelRequest(req)
		return
	}
	h, ok := c.methods[req.method]
	if !ok {
		if !req.notif {
			c.replyFrame(req, nil, Errorf(CodeMethodNotFound, "method not found: %s", req.method), false)
		}
		return
	}
	params := req.params
	reqCtx, cancel := context.WithCancel(ctx)
	me := &inflightReq{cancel: cancel}
	if !req.notif {
		c.mu.Lock()
		c.inflight[req.id] = me // a reused id: the newer request owns cancellation
		c.mu.Unlock()
	}
	serial := c.serial[req.method] && !c.inline[req.method]
	c.wg.Add(1)
	run := func() {
		defer c.wg.Done()
		defer cancel()
		result, err := c.invoke(reqCtx, h, req.method, params)
		if !req.notif {
			c.mu.Lock()
			if c.inflight[req.id] == me {
				delete(c.inflight, req.id)
			}
			c.mu.Unlock()
		}
		if req.notif {
			if err != nil {
				c.logger.Warn("rpc: notification failed", "method", req.method, "err", err)
			}
			return
		}
		if err != nil && reqCtx.Err() != nil && ctx.Err() == nil && errors.Is(err, context.Canceled) {
			err = Errorf(CodeRequestCancelled, "request cancelled")
		}
		c.replyFrame(req, result, err, serial)
	}
	switch {
	case c.inline[req.method]:
		run()
	case serial:
		c.queue.push(run)
	default:
		go run()
	}
}

// invoke calls h, turning a panic into an internal error so one bad request
// cannot take the sidecar down.
func (c *Conn) invoke(ctx context.Context, h Handler, method string, params json.RawMessage) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.logger.Error("rpc: handler panicked", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			result, err = nil, Errorf(CodeInternalError, "internal error: %s panicked", method)
		}
	}()
	return h(ctx, params)
}

// replyFrame sends result or err for req, mapping plain errors to -32603.
// The frame is encoded once and written straight to the stream, echoing
// the id exactly as the peer wrote it. holdable marks replies of the serial
// worker, which may be batched into one write.
func (c *Conn) replyFrame(req *request, result any, err error, holdable bool) {
	if ar, ok := result.(AfterReply); ok && err == nil {
		if ar.Then != nil {
			defer ar.Then()
		}
		result = ar.Result
	}
	var body []byte
	if err == nil {
		if result == nil {
			result = struct{}{}
		}
		b, merr := json.Marshal(result)
		if merr != nil {
			err = fmt.Errorf("encode result of %s: %w", req.method, merr)
		} else {
			body = append(append([]byte(`,"result":`), b...), '}')
		}
	}
	if err != nil {
		var re *Error
		if !errors.As(err, &re) {
			c.logger.Error("rpc: method failed", "method", req.method, "err", err)
			re = &Error{Code: CodeInternalError, Message: "internal error: " + err.Error()}
		}
		b, merr := json.Marshal(re)
		if merr != nil { // only a corrupt Data payload gets here
			b, _ = json.Marshal(&Error{Code: re.Code, Message: re.Message})
		}
		body = append(append([]byte(`,"error":`), b...), '}')
	}
	id := req.rawID
	frame := make([]byte, 0, len(id)+len(body)+24)
	frame = append(frame, `{"jsonrpc":"2.0","id":`...)
	frame = append(frame, id...)
	frame = append(frame, body...)
	select {
	case <-c.Done():
		c.logger.Debug("rpc: connection closed before the reply", "method", req.method)
		return
	default:
	}
	if err := c.stream.write(frame, holdable); err != nil {
		c.logger.Warn("rpc: cannot send response", "method", req.method, "err", err)
	}
}

// cancelRequest handles `$/cancelRequest {id}`: the handler's context is
// cancelled and the handler decides how fast to give up.
func (c *Conn) cancelRequest(req *request) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	var perr error
	switch {
	case json.Unmarshal(req.params, &p) != nil || len(p.ID) == 0:
		perr = InvalidParams("%s needs {id}", CancelMethod)
	case !validID(p.ID):
		perr = InvalidParams("%s: bad id %s", CancelMethod, p.ID)
	default:
		c.mu.Lock()
		r := c.inflight[parseID(p.ID)]
		c.mu.Unlock()
		if r != nil {
			r.cancel()
		}
	}
	if !req.notif {
		c.replyFrame(req, map[string]bool{"ok": perr == nil}, perr, false)
	}
}

// Call sends a request to the peer and waits for its reply, or for ctx.
// A cancelled call forgets its id, so a late reply is dropped and nothing is
// kept for a reply that never comes, tells the peer with
// `$/cancelRequest {id}` (see cancelPeer) and returns ctx.Err().
// A peer error arrives as *Error; a result that does not decode into result
// (or is null when a result is wanted) is an error too.
//
// Calls are routed here rather than through jsonrpc2's DispatchCall: its
// pending-call map only forgets an id when the reply arrives or the
// connection closes, so every call cancelled before a reply that never came
// (a host that drops a timed-out llm.chat) stayed there for the
// connection's lifetime.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	select {
	case <-c.Done():
		return fmt.Errorf("rpc: call %s: %w", method, ErrClosed)
	default:
	}
	if params == nil {
		params = struct{}{}
	}
	idStr := "somni-" + strconv.FormatUint(c.seq.Add(1), 10)
	frame, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      string `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", idStr, method, params})
	if err != nil {
		return fmt.Errorf("rpc: call %s: encode params: %w", method, err)
	}
	id := jsonrpc2.ID{Str: idStr, IsString: true}
	ch := make(chan *response, 1)
	c.mu.Lock()
	c.calls[id] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
	}
	if err := c.stream.write(frame, false); err != nil {
		forget()
		return fmt.Errorf("rpc: call %s: %w", method, err)
	}
	var resp *response
	select {
	case resp = <-ch:
	case <-ctx.Done():
		forget()
		c.cancelPeer(method, idStr)
		return fmt.Errorf("rpc: call %s: %w", method, ctx.Err())
	case <-c.Done():
		forget()
		return fmt.Errorf("rpc: call %s: %w", method, ErrClosed)
	}
	if resp.err != nil {
		return fmt.Errorf("rpc: call %s: %w", method, resp.err)
	}
	if result == nil {
		return nil
	}
	if string(resp.result) == "null" {
		return fmt.Errorf("rpc: call %s: peer returned no result", method)
	}
	if err := json.Unmarshal(resp.result, result); err != nil {
		return fmt.Errorf("rpc: call %s: malformed result: %w", method, err)
	}
	return nil
}

// cancelNotifyWait bounds how long an abandoned Call waits for its
// `$/cancelRequest` to be written. Usually the frame is on the wire in
// microseconds, before the caller's next frame; a peer that stops reading
// must not hold the caller, so past this the write finishes on its own.
const cancelNotifyWait = 100 * time.Millisecond

// cancelPeer tells the peer that we abandoned our call id, so it can stop
// the work (a host aborts its model stream instead of spending tokens on an
// answer nobody reads). Best-effort: a closed connection gets nothing, and
// a write the peer does not take within cancelNotifyWait completes (or
// fails when the connection closes) without the caller.
func (c *Conn) cancelPeer(method, id string) {
	select {
	case <-c.Done():
		return
	default:
	}
	frame, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", CancelMethod, struct {
		ID string `json:"id"`
	}{id}})
	if err != nil { // a struct of strings: cannot fail
		c.logger.Error("rpc: encode cancel notification", "err", err)
		return
	}
	done := make(chan error, 1)
	go func() { done <- c.stream.write(frame, false) }()
	timer := time.NewTimer(cancelNotifyWait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			c.logger.Debug("rpc: cannot send cancel notification", "method", method, "id", id, "err", err)
		}
	case <-timer.C:
		c.logger.Warn("rpc: peer is not reading; cancel notification still queued", "method", method, "id", id)
	}
}

// deliver hands a reply to the call waiting for it; a reply nobody waits
// for (cancelled, timed out, or never sent) is dropped.
func (c *Conn) deliver(r *response) {
	c.mu.Lock()
	ch := c.calls[r.id]
	delete(c.calls, r.id)
	c.mu.Unlock()
	if ch == nil {
		c.logger.Debug("rpc: dropped reply to no pending call (cancelled or unknown)", "id", r.id.String())
		return
	}
	ch <- r // buffered: never blocks
}

// pendingCalls is how many of our calls await a reply.
func (c *Conn) pendingCalls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls)
}

// printfLogger routes jsonrpc2's own log lines into slog.
type printfLogger struct{ l *slog.Logger }

func (p printfLogger) Printf(format string, v ...any) {
	p.l.Warn(strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// serialBatch bounds how many serial replies may wait for one write, so
// the first reply of a burst is not held back long.
const serialBatch = 64

// serialQueue runs pushed funcs one at a time in push order without ever
// blocking the pusher.
type serialQueue struct {
	mu      sync.Mutex
	items   []func()
	stopped bool // run has returned; late pushes run on their own goroutine
	wake    chan struct{}
}

func newSerialQueue() *serialQueue { return &serialQueue{wake: make(chan struct{}, 1)} }

func (q *serialQueue) push(f func()) {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		go f()
		return
	}
	q.items = append(q.items, f)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// run drains the queue until done is closed and the queue is empty; queued
// work still runs after close so its WaitGroup accounting completes (the
// handlers see a cancelled context and return quickly).
func (q *serialQueue) run(done <-chan struct{}, s *lineStream) {
	for {
		q.mu.Lock()
		items := q.items
		q.items = nil
		q.mu.Unlock()
		// A pipelined burst (a host streaming appends) gets its replies in
		// one write per chunk instead of one each; a lone request is
		// written at once.
		for len(items) > 0 {
			chunk := items[:min(len(items), serialBatch)]
			items = items[len(chunk):]
			if len(chunk) > 1 {
				s.hold()
			}
			for _, f := range chunk {
				f()
			}
			if len(chunk) > 1 {
				s.release()
			}
		}
		q.mu.Lock()
		more := len(q.items) > 0
		q.mu.Unlock()
		if more {
			continue
		}
		select {
		case <-q.wake:
		case <-done:
			q.mu.Lock()
			if len(q.items) == 0 {
				q.stopped = true
				q.mu.Unlock()
				return
			}
			q.mu.Unlock()
		}
	}
}

// ErrClosed is returned (wrapped) by Call on a closed connection.
var ErrClosed = jsonrpc2.ErrClosed
