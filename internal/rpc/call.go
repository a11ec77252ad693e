package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

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
