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

	"github.com/somni-dev/somni/internal/textseg"
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

// WithSerial makes the named methods barriers in arrival order: each one
// runs alone, after every serial or keyed (WithSerialByKey) request that
// arrived before it has finished, and every such request that arrives after
// it waits for it. Use it for methods that must see the effects of all
// earlier ordered requests, e.g. closing every session log, or shutdown.
// The reader never blocks on them.
func WithSerial(methods ...string) Option {
	return func(c *Conn) {
		for _, m := range methods {
			c.barrier[m] = true
		}
	}
}

// KeyFunc names the ordering lane of a request from its params (never
// empty: absent params are {}). It runs on the read loop, so it must be
// cheap and must not block; malformed params may map to any stable key.
type KeyFunc func(params json.RawMessage) string

// WithSerialByKey makes the named methods keep arrival order among requests
// whose params have the same key, while requests with different keys run
// side by side: e.g. appends to one session log stay in order, and one
// session's slow fsync does not hold up another session. WithSerial
// methods are barriers for them.
func WithSerialByKey(key KeyFunc, methods ...string) Option {
	return func(c *Conn) {
		for _, m := range methods {
			c.keyed[m] = key
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
	barrier map[string]bool
	keyed   map[string]KeyFunc
	inline  map[string]bool
	logger  *slog.Logger
	seq     atomic.Uint64

	mu       sync.Mutex
	inflight map[string]*inflightReq        // by idKey
	calls    map[jsonrpc2.ID]chan *response // our calls awaiting a reply

	order *orderQueue
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
		barrier:  map[string]bool{},
		keyed:    map[string]KeyFunc{},
		inline:   map[string]bool{},
		logger:   logger,
		inflight: map[string]*inflightReq{},
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
	c.order = newOrderQueue(c.flushBatch)
	c.jc = jsonrpc2.NewConn(connCtx, c.stream, c, jsonrpc2.SetLogger(printfLogger{logger}))
	close(c.ready)
	go func() {
		<-c.jc.DisconnectNotify()
		cancel()
	}()
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
	r := &request{method: req.Method, notif: req.Notif, params: json.RawMessage("{}")}
	if req.Params != nil && string(*req.Params) != "null" {
		r.params = *req.Params
	}
	if !req.Notif {
		r.rawID, _ = req.ID.MarshalJSON() // a string or a uint64: cannot fail
		r.key = idKey(r.rawID)
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
			c.replyFrame(req, nil, Errorf(CodeMethodNotFound, "method not found: %s", textseg.ClipBytes(req.method, 200, "…")), nil)
		}
		return
	}
	params := req.params
	reqCtx, cancel := context.WithCancel(ctx)
	me := &inflightReq{cancel: cancel}
	if !req.notif {
		c.mu.Lock()
		c.inflight[req.key] = me // a reused id: the newer request owns cancellation
		c.mu.Unlock()
	}
	inline := c.inline[req.method]
	barrier := c.barrier[req.method] && !inline
	keyFn := c.keyed[req.method]
	if inline || barrier {
		keyFn = nil
	}
	c.wg.Add(1)
	// b collects the reply when run is part of a keyed lane's burst.
	run := func(b *replyBatch) {
		defer c.wg.Done()
		defer cancel()
		result, err := c.invoke(reqCtx, h, req.method, params)
		if !req.notif {
			c.mu.Lock()
			if c.inflight[req.key] == me {
				delete(c.inflight, req.key)
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
		c.replyFrame(req, result, err, b)
	}
	switch {
	case inline:
		run(nil)
	case barrier:
		c.order.pushBarrier(run)
	case keyFn != nil:
		c.order.push(keyFn(params), run)
	default:
		go run(nil)
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
// the id exactly as the peer wrote it. A reply with a batch joins it and is
// written when the batch is flushed, unless it has work to run after the
// write (AfterReply), which flushes the batch at once.
func (c *Conn) replyFrame(req *request, result any, err error, b *replyBatch) {
	then := false
	if ar, ok := result.(AfterReply); ok && err == nil {
		if ar.Then != nil {
			defer ar.Then()
			then = true
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
	if b != nil {
		b.add(frame)
		if then {
			c.flushBatch(b)
		}
		return
	}
	select {
	case <-c.Done():
		c.logger.Debug("rpc: connection closed before the reply", "method", req.method)
		return
	default:
	}
	if err := c.stream.writeFrame(frame); err != nil {
		c.logger.Warn("rpc: cannot send response", "method", req.method, "err", err)
	}
}

// replyBatch collects the replies of one lane's burst (a host streaming
// appends) so they cost one write instead of one each.
type replyBatch struct {
	buf []byte // frames joined by newlines
	n   int
}

func (b *replyBatch) add(frame []byte) {
	if b.n > 0 {
		b.buf = append(b.buf, '\n')
	}
	b.buf = append(b.buf, frame...)
	b.n++
}

// flushBatch writes what b collected and empties it.
func (c *Conn) flushBatch(b *replyBatch) {
	if b.n == 0 {
		return
	}
	frames, n := b.buf, b.n
	b.buf, b.n = frames[:0], 0 // writeFrame copied the frames
	select {
	case <-c.Done():
		c.logger.Debug("rpc: connection closed before the replies", "replies", n)
		return
	default:
	}
	if err := c.stream.writeFrame(frames); err != nil {
		c.logger.Warn("rpc: cannot send responses", "err", err)
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
	case !validRequestID(p.ID):
		perr = InvalidParams("%s: bad id %s", CancelMethod, p.ID)
	default:
		c.mu.Lock()
		r := c.inflight[idKey(p.ID)]
		c.mu.Unlock()
		if r != nil {
			r.cancel()
		}
	}
	if !req.notif {
		c.replyFrame(req, map[string]bool{"ok": perr == nil}, perr, nil)
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
	if err := c.stream.writeFrame(frame); err != nil {
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
	go func() { done <- c.stream.writeFrame(frame) }()
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

// laneBatch bounds how many replies of one lane may wait for one write, so
// the first reply of a burst is not held back long.
const laneBatch = 64

// orderQueue runs keyed work in arrival order per key, different keys side
// by side, and barrier work alone between everything pushed before it and
// everything pushed after it. Pushing never blocks (it runs on the read
// loop). Each key with queued work has one lane goroutine; a barrier runs on
// its own goroutine once every lane has drained.
//
// While a barrier waits or runs, later pushes queue in backlog (arrival
// order kept) and are released to their lanes when it is done, up to the
// next barrier.
type orderQueue struct {
	flush func(*replyBatch)

	mu             sync.Mutex
	lanes          map[string]*lane // keys with work queued or running
	running        int              // keyed items in lanes, queued or running
	backlog        []ordered        // pushed behind a barrier; nonempty ⇒ starts with one
	barrierRunning bool
}

type ordered struct {
	key     string
	barrier bool
	f       func(*replyBatch)
}

// lane is one key's FIFO, drained by its own goroutine; it leaves the map
// (under mu) only when empty, so a lane in the map always has a drainer.
type lane struct{ items []func(*replyBatch) }

func newOrderQueue(flush func(*replyBatch)) *orderQueue {
	return &orderQueue{flush: flush, lanes: map[string]*lane{}}
}

// push queues f behind earlier work with the same key and any earlier barrier.
func (q *orderQueue) push(key string, f func(*replyBatch)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.barrierRunning || len(q.backlog) > 0 {
		q.backlog = append(q.backlog, ordered{key: key, f: f})
		return
	}
	q.enqueueLocked(key, f)
}

// pushBarrier queues f behind everything pushed so far.
func (q *orderQueue) pushBarrier(f func(*replyBatch)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.backlog = append(q.backlog, ordered{barrier: true, f: f})
	q.advanceLocked()
}

func (q *orderQueue) enqueueLocked(key string, f func(*replyBatch)) {
	q.running++
	l := q.lanes[key]
	if l == nil {
		l = &lane{}
		q.lanes[key] = l
		go q.drain(key, l)
	}
	l.items = append(l.items, f)
}

// advanceLocked starts the barrier at the head of the backlog once the
// lanes are empty, or releases backlog items to their lanes when no barrier
// is ahead of them.
func (q *orderQueue) advanceLocked() {
	for !q.barrierRunning && len(q.backlog) > 0 {
		head := q.backlog[0]
		if head.barrier {
			if q.running > 0 {
				return // the lanes' last item calls advance again
			}
			q.backlog = q.backlog[1:]
			q.barrierRunning = true
			go func() {
				head.f(nil)
				q.mu.Lock()
				q.barrierRunning = false
				q.advanceLocked()
				q.mu.Unlock()
			}()
			return
		}
		q.backlog = q.backlog[1:]
		q.enqueueLocked(head.key, head.f)
	}
	if len(q.backlog) == 0 {
		q.backlog = nil // let a long backlog's array go
	}
}

// drain runs l's items in order until the lane is empty. A burst shares
// one reply write per chunk; a lone request is written at once.
func (q *orderQueue) drain(key string, l *lane) {
	for {
		q.mu.Lock()
		items := l.items
		l.items = nil
		if len(items) == 0 {
			delete(q.lanes, key)
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		for len(items) > 0 {
			chunk := items[:min(len(items), laneBatch)]
			items = items[len(chunk):]
			var b *replyBatch
			if len(chunk) > 1 {
				b = &replyBatch{}
			}
			for _, f := range chunk {
				f(b)
			}
			if b != nil {
				q.flush(b)
			}
			q.mu.Lock()
			q.running -= len(chunk)
			if q.running == 0 {
				q.advanceLocked()
			}
			q.mu.Unlock()
		}
	}
}

// ErrClosed is returned (wrapped) by Call on a closed connection.
var ErrClosed = jsonrpc2.ErrClosed
