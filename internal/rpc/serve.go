package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/somni-dev/somni/internal/textcut"
)

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

// inflightReq is one running request that $/cancelRequest can reach.
type inflightReq struct{ cancel context.CancelFunc }

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
			c.replyFrame(req, nil, Errorf(CodeMethodNotFound, "method not found: %s", textcut.ClipBytes(req.method, 200, "…")), nil)
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
		if b != nil {
			// In flight until its batch is written: input that ends now must
			// not close the stream under replies still waiting in the batch.
			defer b.hold(c.wg.Done)
		} else {
			defer c.wg.Done()
		}
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
	buf  []byte // frames joined by newlines
	n    int
	held []func() // what runs once the frames are written (or dropped): each request's end
}

// hold defers f until the batch is flushed.
func (b *replyBatch) hold(f func()) { b.held = append(b.held, f) }

// release runs what the batch held.
func (b *replyBatch) release() {
	held := b.held
	b.held = nil
	for _, f := range held {
		f()
	}
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
	defer b.release()
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
	case !classifyID(p.ID).request():
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
