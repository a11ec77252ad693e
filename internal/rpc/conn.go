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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

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

// printfLogger routes jsonrpc2's own log lines into slog.
type printfLogger struct{ l *slog.Logger }

func (p printfLogger) Printf(format string, v ...any) {
	p.l.Warn(strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// ErrClosed is returned (wrapped) by Call on a closed connection.
var ErrClosed = jsonrpc2.ErrClosed
