package rpc

import (
	"encoding/json"
	"time"
)

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
