// Package rpc speaks newline-delimited JSON-RPC 2.0 in both directions over
// a reader/writer pair (the sidecar's stdin/stdout).
//
// Incoming requests are served concurrently, each with its own context that
// is cancelled when the connection closes or the peer sends
// `$/cancelRequest {id}`. Malformed frames are answered with -32700 and the
// connection keeps serving. The same connection can call the peer (reverse
// calls such as `llm.chat`) with string ids `somni-N`; a call abandoned by
// its context is cancelled at the peer with `$/cancelRequest {id}`.
//
// The files follow the layers: conn.go (a connection's life), options.go
// (Serve's options), frame.go (one JSON object per line, read and written),
// message.go (decoding and checking a frame, ids, error objects), serve.go
// (dispatching requests and writing replies), queue.go (the per-key and
// barrier ordering), call.go (our calls to the peer).
//
// github.com/sourcegraph/jsonrpc2 supplies the reply id type and ErrClosed.
// Reading, dispatch and the connection's life are this package's own: the
// library decodes a request about five times over (the largest CPU cost of
// a session.append burst), closes the connection on any malformed frame,
// and keeps a cancelled call's id until a reply that may never come.
package rpc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Conn is a served connection.
type Conn struct {
	drain   time.Duration
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
	// ctx is the parent of every handler context; end cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed by end
	ended  sync.Once
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
		done:     make(chan struct{}),
	}
	for _, o := range opts {
		o(c)
	}
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.stream = newLineStream(r, w, logger)
	c.stream.onEnd = c.drainHandlers
	c.stream.onRequest = c.handle
	c.stream.onResponse = c.deliver
	c.order = newOrderQueue(c.flushBatch)
	// The read loop starts only now that c is complete, so a handler never
	// sees a half-built connection.
	go func() { c.end(c.stream.readLoop()) }()
	go func() {
		<-c.ctx.Done()
		c.end(nil)
	}()
	return c
}

// end ends the connection once, for whichever comes first: the input ended
// or failed (cause), ctx was cancelled or Close was called. Done closes,
// handler contexts are cancelled, calls waiting for a reply fail, and both
// ends of the stream are closed. Later calls return ErrClosed.
func (c *Conn) end(cause error) error {
	err := ErrClosed
	c.ended.Do(func() {
		close(c.done)
		c.cancel()
		err = c.stream.Close()
		if cause != nil && cause != io.EOF && cause != io.ErrUnexpectedEOF {
			c.logger.Warn("rpc: input failed; connection closed", "err", cause)
		}
	})
	return err
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
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close ends the connection, cancels in-flight handlers and fails pending
// calls. It is safe to call more than once.
func (c *Conn) Close() error {
	err := c.end(nil)
	if errors.Is(err, ErrClosed) {
		return nil
	}
	return err
}

// Wait blocks until the connection has ended and every handler returned.
func (c *Conn) Wait() {
	<-c.Done()
	c.wg.Wait()
}

// ErrClosed is returned (wrapped) by Call on a closed connection.
var ErrClosed = jsonrpc2.ErrClosed
