package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/testutil"
)

// peer is the test's side of a served connection: it writes raw lines to the
// Conn and reads the Conn's output lines, over real io.Pipes.
type peer struct {
	t    *testing.T
	conn *Conn
	in   *io.PipeWriter // what the Conn reads
	out  *bufio.Reader  // what the Conn writes
}

type frame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *Error          `json:"error"`
	raw     string
}

func startPeer(t *testing.T, methods map[string]Handler, opts ...Option) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := Serve(context.Background(), inR, outW, methods, testutil.QuietLogger(), opts...)
	p := &peer{t: t, conn: c, in: inW, out: bufio.NewReader(outR)}
	t.Cleanup(func() {
		c.Close()
		inW.Close()
		outR.Close()
		c.Wait()
	})
	return p
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write %q: %v", line, err)
	}
}

func (p *peer) recv() frame {
	p.t.Helper()
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := p.out.ReadString('\n')
		ch <- res{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			p.t.Fatalf("read frame: %v", r.err)
		}
		var f frame
		if err := json.Unmarshal([]byte(r.line), &f); err != nil {
			p.t.Fatalf("conn wrote a non-JSON line %q: %v", r.line, err)
		}
		if f.JSONRPC != "2.0" {
			p.t.Fatalf("frame without jsonrpc 2.0: %q", r.line)
		}
		f.raw = strings.TrimSuffix(r.line, "\n")
		return f
	case <-time.After(5 * time.Second):
		p.t.Fatal("timed out waiting for a frame")
		return frame{}
	}
}

func echoMethods() map[string]Handler {
	return map[string]Handler{
		"echo": func(_ context.Context, params json.RawMessage) (any, error) {
			return params, nil
		},
		"rpcerr": func(context.Context, json.RawMessage) (any, error) {
			return nil, InvalidParams("missing required param: sessionId")
		},
		"plainerr": func(context.Context, json.RawMessage) (any, error) {
			return nil, fmt.Errorf("disk on fire")
		},
		"panics": func(context.Context, json.RawMessage) (any, error) {
			panic("boom")
		},
		"text": func(context.Context, json.RawMessage) (any, error) {
			return map[string]string{"t": "你好，世界 <b>&amp;</b> \u2603"}, nil
		},
	}
}

func TestFrames(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		wantID   string // raw JSON of the echoed id
		wantCode int64  // 0 ⇒ success
		wantMsg  string // substring of the error message
		wantRes  string // exact raw result on success
	}{
		{"numeric id", `{"jsonrpc":"2.0","id":7,"method":"echo","params":{"a":1}}`, `7`, 0, "", `{"a":1}`},
		{"string id", `{"jsonrpc":"2.0","id":"abc-1","method":"echo","params":{"a":1}}`, `"abc-1"`, 0, "", `{"a":1}`},
		{"escaped string id echoed verbatim", `{"jsonrpc":"2.0","id":"x\u00e9\"y","method":"echo"}`, `"x\u00e9\"y"`, 0, "", `{}`},
		{"big id", `{"jsonrpc":"2.0","id":9007199254740993,"method":"echo"}`, `9007199254740993`, 0, "", `{}`},
		{"params null", `{"jsonrpc":"2.0","id":1,"method":"echo","params":null}`, `1`, 0, "", `{}`},
		{"params missing", `{"jsonrpc":"2.0","id":2,"method":"echo"}`, `2`, 0, "", `{}`},
		// The Python sidecar read `params or {}`: an empty array meant no params.
		{"params empty array", `{"jsonrpc":"2.0","id":2,"method":"echo","params":[ ]}`, `2`, 0, "", `{}`},
		{"params non-empty array kept", `{"jsonrpc":"2.0","id":2,"method":"echo","params":[1]}`, `2`, 0, "", `[1]`},
		{"surrounding spaces and CR", "  {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\"} \r", `3`, 0, "", `{}`},
		{"bad json", `{"jsonrpc":"2.0","id":1,"method":`, `null`, CodeParseError, "parse error", ""},
		{"number frame", `42`, `null`, CodeParseError, "not a JSON object", ""},
		{"bare string", `"ping"`, `null`, CodeParseError, "not a JSON object", ""},
		{"trailing garbage", `{"id":1,"method":"echo"} x`, `null`, CodeParseError, "parse error", ""},
		{"invalid utf8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"t\":\"\xff\xfe\"}}", `null`, CodeParseError, "UTF-8", ""},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"nope"}`, `4`, CodeMethodNotFound, "method not found: nope", ""},
		{"huge unknown method", `{"jsonrpc":"2.0","id":4,"method":"` + strings.Repeat("m", 100000) + `"}`, `4`, CodeMethodNotFound, "method not found: mmm", ""},
		{"method not string", `{"jsonrpc":"2.0","id":5,"method":12}`, `5`, CodeInvalidRequest, "method must be a string", ""},
		// JSON-RPC allows any number as an id; the compat host expects it echoed unchanged.
		{"id beyond int64", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"echo"}`, `12345678901234567890`, 0, "", `{}`},
		{"id beyond uint64", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"echo"}`, `123456789012345678901234567890`, 0, "", `{}`},
		{"float id", `{"jsonrpc":"2.0","id":1.5,"method":"echo"}`, `1.5`, 0, "", `{}`},
		{"negative id", `{"jsonrpc":"2.0","id":-3,"method":"echo"}`, `-3`, 0, "", `{}`},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"echo"}`, `1e3`, 0, "", `{}`},
		{"object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"echo"}`, `null`, CodeInvalidRequest, "id must be", ""},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"echo"}`, `null`, CodeInvalidRequest, "id must be", ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"echo"}]`, `null`, CodeInvalidRequest, "batch requests are not supported", ""},
		{"neither request nor response", `{"jsonrpc":"2.0","id":6}`, `6`, CodeInvalidRequest, "neither", ""},
		{"both method and result", `{"jsonrpc":"2.0","id":8,"method":"echo","result":1}`, `8`, CodeInvalidRequest, "both", ""},
		{"rpc error passes through", `{"jsonrpc":"2.0","id":9,"method":"rpcerr"}`, `9`, CodeInvalidParams, "missing required param: sessionId", ""},
		{"plain error is internal", `{"jsonrpc":"2.0","id":10,"method":"plainerr"}`, `10`, CodeInternalError, "disk on fire", ""},
		{"panic is internal", `{"jsonrpc":"2.0","id":11,"method":"panics"}`, `11`, CodeInternalError, "panicked", ""},
	}
	p := startPeer(t, echoMethods())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.send(tc.line)
			f := p.recv()
			if string(f.ID) != tc.wantID {
				t.Errorf("id = %s, want %s (frame %s)", f.ID, tc.wantID, f.raw)
			}
			if tc.wantCode == 0 {
				if f.Error != nil {
					t.Fatalf("unexpected error %+v", f.Error)
				}
				if string(f.Result) != tc.wantRes {
					t.Errorf("result = %s, want %s", f.Result, tc.wantRes)
				}
				return
			}
			if f.Error == nil {
				t.Fatalf("want error %d, got %s", tc.wantCode, f.raw)
			}
			if f.Error.Code != tc.wantCode || !strings.Contains(f.Error.Message, tc.wantMsg) {
				t.Errorf("error = %d %q, want %d containing %q", f.Error.Code, f.Error.Message, tc.wantCode, tc.wantMsg)
			}
			if len(f.Error.Message) > 300 { // a runaway frame is named, not echoed
				t.Errorf("error message is %d bytes", len(f.Error.Message))
			}
			// The connection must survive every bad frame.
			p.send(`{"jsonrpc":"2.0","id":"alive","method":"echo"}`)
			if g := p.recv(); string(g.ID) != `"alive"` || g.Error != nil {
				t.Fatalf("connection did not keep serving: %s", g.raw)
			}
		})
	}
}

func TestBlankLinesAndNotificationsGetNoReply(t *testing.T) {
	p := startPeer(t, echoMethods())
	p.send("")
	p.send("   ")
	p.send(`{"jsonrpc":"2.0","method":"echo","params":{}}`) // notification
	p.send(`{"jsonrpc":"2.0","method":"nope"}`)             // unknown notification
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	if f := p.recv(); string(f.ID) != "1" {
		t.Fatalf("first reply should be for id 1, got %s", f.raw)
	}
}

func TestRawUTF8OnTheWire(t *testing.T) {
	p := startPeer(t, echoMethods())
	p.send(`{"jsonrpc":"2.0","id":1,"method":"text"}`)
	f := p.recv()
	want := `你好，世界 <b>&amp;</b> ☃`
	if !strings.Contains(f.raw, want) {
		t.Fatalf("wire line %s does not carry %q raw", f.raw, want)
	}
	if strings.Contains(f.raw, `\u`) {
		t.Fatalf("wire line has \\u escapes: %s", f.raw)
	}
	// Echoed params keep non-ASCII raw too.
	p.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{"q":"记忆 <x>"}}`)
	if f := p.recv(); !strings.Contains(f.raw, `"记忆 <x>"`) {
		t.Fatalf("echo not raw: %s", f.raw)
	}
}

func TestOversizedFrame(t *testing.T) {
	p := startPeer(t, echoMethods())
	p.conn.stream.limit = 100 // set before the first frame; the reader is idle
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"pad":"` + strings.Repeat("x", 70000) + `"}}`)
	f := p.recv()
	if f.Error == nil || f.Error.Code != CodeParseError || !strings.Contains(f.Error.Message, "exceeds") {
		t.Fatalf("want -32700 too large, got %s", f.raw)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	if f := p.recv(); string(f.ID) != "2" || f.Error != nil {
		t.Fatalf("not serving after oversized frame: %s", f.raw)
	}
}

func TestConcurrentRepliesOutOfOrder(t *testing.T) {
	release := make(chan struct{})
	methods := map[string]Handler{
		"slow": func(ctx context.Context, _ json.RawMessage) (any, error) {
			select {
			case <-release:
				return "slow", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		"fast": func(context.Context, json.RawMessage) (any, error) { return "fast", nil },
	}
	p := startPeer(t, methods)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"fast"}`)
	if f := p.recv(); string(f.ID) != "2" {
		t.Fatalf("fast reply should overtake the slow one, got %s", f.raw)
	}
	close(release)
	if f := p.recv(); string(f.ID) != "1" || string(f.Result) != `"slow"` {
		t.Fatalf("slow reply = %s", f.raw)
	}
}

func TestSerialMethodsKeepOrder(t *testing.T) {
	var mu sync.Mutex
	var got []int
	methods := map[string]Handler{
		"append": func(_ context.Context, params json.RawMessage) (any, error) {
			var p struct{ N int }
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			if p.N%7 == 0 {
				time.Sleep(time.Millisecond) // give a racing scheduler a chance to reorder
			}
			mu.Lock()
			got = append(got, p.N)
			mu.Unlock()
			return nil, nil
		},
	}
	p := startPeer(t, methods, WithSerial("append"))
	const n = 60
	go func() {
		for i := 0; i < n; i++ {
			io.WriteString(p.in, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"append","params":{"N":%d}}`+"\n", i, i))
		}
	}()
	for i := 0; i < n; i++ {
		if f := p.recv(); string(f.ID) != fmt.Sprint(i) {
			t.Fatalf("reply %d has id %s", i, f.ID)
		}
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("serial method ran out of order: %v", got)
		}
	}
}

func TestCancelRequest(t *testing.T) {
	tests := []struct{ name, id string }{
		{"string id", `"w1"`},
		{"small number", `7`},
		{"number beyond int64", `12345678901234567890`},
		{"negative number", `-4`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			methods := map[string]Handler{
				"wait": func(ctx context.Context, _ json.RawMessage) (any, error) {
					close(started)
					<-ctx.Done()
					return nil, ctx.Err()
				},
			}
			p := startPeer(t, methods)
			p.send(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"wait"}`)
			select {
			case <-started:
			case <-time.After(5 * time.Second):
				t.Fatalf("request with id %s never reached its handler", tc.id)
			}
			p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + tc.id + `}}`)
			f := p.recv()
			if string(f.ID) != tc.id || f.Error == nil || f.Error.Code != CodeRequestCancelled {
				t.Fatalf("want -32800 for %s, got %s", tc.id, f.raw)
			}
		})
	}
}

func TestCloseCancelsHandlers(t *testing.T) {
	started := make(chan struct{})
	finished := make(chan error, 1)
	methods := map[string]Handler{
		"wait": func(ctx context.Context, _ json.RawMessage) (any, error) {
			close(started)
			<-ctx.Done()
			finished <- ctx.Err()
			return nil, ctx.Err()
		},
	}
	p := startPeer(t, methods, WithDrain(10*time.Millisecond))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	<-started
	p.in.Close() // EOF on the conn's input; the handler outlives the grace period
	select {
	case err := <-finished:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("handler ctx err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("handler context not cancelled on EOF")
	}
	select {
	case <-p.conn.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed on EOF")
	}
}

type chatResult struct {
	Message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"message"`
}

// reverseMethods returns a "dream" method that calls the peer's llm.chat
// with the timeout given in its params and reports the outcome as text.
func reverseMethods(conn **Conn) map[string]Handler {
	return map[string]Handler{
		"dream": func(ctx context.Context, params json.RawMessage) (any, error) {
			var p struct {
				TimeoutMS int `json:"timeoutMs"`
			}
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, err
			}
			if p.TimeoutMS > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Duration(p.TimeoutMS)*time.Millisecond)
				defer cancel()
			}
			var res chatResult
			err := (*conn).Call(ctx, "llm.chat", map[string]any{"messages": []any{}}, &res)
			if err != nil {
				var re *Error
				if errors.As(err, &re) {
					return map[string]any{"err": err.Error(), "code": re.Code}, nil
				}
				return map[string]any{"err": err.Error()}, nil
			}
			return map[string]any{"content": res.Message.Content}, nil
		},
	}
}

func TestReverseCall(t *testing.T) {
	var conn *Conn
	p := startPeer(t, reverseMethods(&conn))
	conn = p.conn

	tests := []struct {
		name      string
		reply     func(id json.RawMessage) string // "" ⇒ never reply
		timeoutMS int
		want      string // substring of the dream result
	}{
		{"ok", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"message":{"role":"assistant","content":"梦"}}}`, id)
		}, 0, `"content":"梦"`},
		{"host error object", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"no model"}}`, id)
		}, 0, `"code":-32000`},
		{"host error not an object", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":"boom"}`, id)
		}, 0, `malformed error`},
		{"host error with float code", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":1.5,"message":"x"}}`, id)
		}, 0, `malformed error`},
		{"malformed result", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"message":"just text"}}`, id)
		}, 0, `malformed result`},
		{"null result", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, id)
		}, 0, `no result`},
		{"timeout", nil, 50, `deadline exceeded`},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"dream","params":{"timeoutMs":%d}}`, i, tc.timeoutMS))
			call := p.recv()
			if call.Method != "llm.chat" || !strings.HasPrefix(string(call.ID), `"somni-`) {
				t.Fatalf("expected a reverse llm.chat with a somni-N id, got %s", call.raw)
			}
			if tc.reply != nil {
				p.send(tc.reply(call.ID))
			}
			res := p.recv()
			if tc.reply == nil {
				// The abandoned call is cancelled at the peer before the
				// handler goes on.
				if want := cancelFrame(call.ID); res.raw != want {
					t.Fatalf("after the timeout got %s, want %s", res.raw, want)
				}
				res = p.recv()
			}
			if string(res.ID) != fmt.Sprint(i) || !strings.Contains(string(res.Result), tc.want) {
				t.Fatalf("dream result = %s, want %q", res.raw, tc.want)
			}
			if tc.reply == nil {
				// The late reply must be ignored, not crash or confuse the conn.
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"message":{"role":"assistant","content":"late"}}}`, call.ID))
			}
			p.send(`{"jsonrpc":"2.0","id":"alive","method":"dream","params":{"timeoutMs":1}}`)
			// Before the result may come the new reverse call and (if it
			// already timed out) its cancellation; all prove the conn is alive.
			f := p.recv()
			for f.Method == "llm.chat" || f.Method == CancelMethod {
				f = p.recv()
			}
			if string(f.ID) != `"alive"` {
				t.Fatalf("conn not serving after %s: %s", tc.name, f.raw)
			}
		})
	}
}

func TestCallAfterCloseFails(t *testing.T) {
	p := startPeer(t, nil)
	p.conn.Close()
	err := p.conn.Call(context.Background(), "llm.chat", nil, nil)
	if err == nil {
		t.Fatal("call on a closed conn succeeded")
	}
}

func TestCallCancelledReturnsPromptly(t *testing.T) {
	p := startPeer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- p.conn.Call(ctx, "llm.chat", nil, &chatResult{}) }()
	if f := p.recv(); f.Method != "llm.chat" {
		t.Fatalf("expected the call on the wire, got %s", f.raw)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("cancelled call did not return")
	}
}

func TestUnescapeHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":"x"}`, `{"a":"x"}`},
		{`{"a":"\u003cb\u003e \u0026"}`, `{"a":"<b> &"}`},
		{`{"a":"\\u003c"}`, `{"a":"\\u003c"}`},           // literal backslash-u text stays
		{`{"a":"\\\u003c"}`, `{"a":"\\<"}`},              // escaped backslash then an escape
		{`{"a":"\u00e9\u2028"}`, `{"a":"\u00e9\u2028"}`}, // other escapes untouched
		{`{"a":"\""}`, `{"a":"\""}`},
	}
	for _, tc := range tests {
		if got := string(appendUnescapedHTML(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("unescape(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestAfterReplyRunsAfterTheReplyIsWritten(t *testing.T) {
	ran := make(chan struct{})
	var p *peer
	methods := map[string]Handler{
		"shutdown": func(context.Context, json.RawMessage) (any, error) {
			return AfterReply{Result: map[string]bool{"ok": true}, Then: func() { close(ran) }}, nil
		},
	}
	p = startPeer(t, methods)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)
	select {
	case <-ran:
		t.Fatal("Then ran before the reply was read (the pipe is unbuffered)")
	case <-time.After(50 * time.Millisecond):
	}
	if f := p.recv(); string(f.Result) != `{"ok":true}` {
		t.Fatalf("reply = %s", f.raw)
	}
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("Then never ran")
	}
}

func TestEOFLetsInFlightRequestsReply(t *testing.T) {
	methods := map[string]Handler{
		"slowish": func(ctx context.Context, _ json.RawMessage) (any, error) {
			select {
			case <-time.After(50 * time.Millisecond):
				return "done", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
	p := startPeer(t, methods)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"slowish"}`)
	p.in.Close() // the peer writes its request and hangs up its writing end
	if f := p.recv(); string(f.Result) != `"done"` {
		t.Fatalf("in-flight request after EOF: %s", f.raw)
	}
	select {
	case <-p.conn.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("conn not done after draining")
	}
}

// A burst of keyed requests shares reply writes; input that ends right after
// the burst must still get every reply (the handlers' work is done, so an
// answer the peer never reads would report a write as lost).
func TestEOFAfterABurstGetsEveryReply(t *testing.T) {
	const n = 3000
	keyOf := func(params json.RawMessage) string {
		var p struct{ K string }
		_ = json.Unmarshal(params, &p)
		return p.K
	}
	methods := map[string]Handler{
		"append": func(_ context.Context, params json.RawMessage) (any, error) { return params, nil },
	}
	for round := 0; round < 40; round++ {
		p := startPeer(t, methods, WithSerialByKey(keyOf, "append"))
		go func() {
			var b strings.Builder
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"append","params":{"k":"s%d"}}`+"\n", i+1, i%2)
			}
			_, _ = io.WriteString(p.in, b.String())
			p.in.Close()
		}()
		got := 0
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				break
			}
			if strings.Contains(line, `"result"`) {
				got++
			}
			if got == n {
				break
			}
		}
		if got != n {
			t.Fatalf("round %d: %d of %d replies before the output ended", round, got, n)
		}
	}
}

// A rejected request must not leak into the next frame: here the next frame
// is the peer's reply to a pending reverse call.
func TestRejectedFrameDoesNotLeak(t *testing.T) {
	var conn *Conn
	p := startPeer(t, reverseMethods(&conn))
	conn = p.conn
	p.send(`{"jsonrpc":"2.0","id":1,"method":"dream","params":{}}`)
	call := p.recv()
	if call.Method != "llm.chat" {
		t.Fatalf("want reverse call, got %s", call.raw)
	}
	p.send(`{"jsonrpc":"2.0","id":[2],"method":"dream","params":{}}`) // rejected: array id
	if f := p.recv(); f.Error == nil || f.Error.Code != CodeInvalidRequest {
		t.Fatalf("array id: %s", f.raw)
	}
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"message":{"role":"assistant","content":"ok"}}}`, call.ID))
	if f := p.recv(); string(f.ID) != "1" || !strings.Contains(string(f.Result), `"content":"ok"`) {
		t.Fatalf("reply after a rejected frame was lost or misrouted: %s", f.raw)
	}
}

// A reply to one of our calls that is not valid UTF-8 still gets -32700,
// and it fails that call at once instead of leaving it to its timeout (a
// dream would wait 600 s on a garbled llm.chat answer).
func TestInvalidUTF8ReplyFailsTheCall(t *testing.T) {
	var conn *Conn
	p := startPeer(t, reverseMethods(&conn))
	conn = p.conn
	p.send(`{"jsonrpc":"2.0","id":1,"method":"dream","params":{"timeoutMs":5000}}`)
	call := p.recv()
	if call.Method != "llm.chat" {
		t.Fatalf("want reverse call, got %s", call.raw)
	}
	p.send(fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"message\":{\"role\":\"assistant\",\"content\":\"\xff\xfe\"}}}", call.ID))
	if f := p.recv(); f.Error == nil || f.Error.Code != CodeParseError || string(f.ID) != "null" {
		t.Fatalf("want -32700 with id null, got %s", f.raw)
	}
	// A call left to its timeout would end with the timeout's error, not
	// the reply's: the error itself says which happened, at any load.
	f := p.recv()
	if string(f.ID) != "1" || !strings.Contains(string(f.Result), "UTF-8") || !strings.Contains(string(f.Result), `"code":-32700`) {
		t.Fatalf("the call did not fail with the reply's UTF-8 error: %s", f.raw)
	}
}

// A serial burst holds its replies for one write, but a reverse call made
// inside the burst must go out at once or the batch would wait forever.
func TestSerialBurstWithReverseCall(t *testing.T) {
	var conn *Conn
	p := startPeer(t, reverseMethods(&conn), WithSerial("dream"))
	conn = p.conn
	var burst strings.Builder
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&burst, `{"jsonrpc":"2.0","id":%d,"method":"dream","params":{}}`+"\n", i)
	}
	go io.WriteString(p.in, burst.String())
	replies := map[string]string{}
	for len(replies) < 3 {
		f := p.recv()
		if f.Method == "llm.chat" {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"message":{"role":"assistant","content":%q}}}`, f.ID, "for "+string(f.ID)))
			continue
		}
		replies[string(f.ID)] = string(f.Result)
	}
	for i := 1; i <= 3; i++ {
		if !strings.Contains(replies[fmt.Sprint(i)], `"for \"somni-`) {
			t.Fatalf("reply %d = %s", i, replies[fmt.Sprint(i)])
		}
	}
}

// TestCallsLeaveNothingPending: however a call ends — reply, peer error,
// cancellation before any reply, deadline, a late reply after giving up —
// the connection keeps no state for it.
func TestCallsLeaveNothingPending(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration          // 0 ⇒ cancelled by the test after the call is on the wire
		reply   func(id string) string // sent before giving up; "" ⇒ no reply
		late    func(id string) string // sent after the call returned; "" ⇒ none
		wantErr error                  // errors.Is target; nil ⇒ success
	}{
		{"reply", time.Minute, func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"message":{"role":"assistant","content":"ok"}}}`
		}, nil, nil},
		{"peer error", time.Minute, func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"no model"}}`
		}, nil, &Error{}},
		{"cancelled, never answered", 0, nil, nil, context.Canceled},
		{"deadline, never answered", 20 * time.Millisecond, nil, nil, context.DeadlineExceeded},
		{"cancelled, answered late", 0, nil, func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"message":{"role":"assistant","content":"late"}}}`
		}, context.Canceled},
	}
	p := startPeer(t, echoMethods())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			ctx, cancel := context.WithCancel(context.Background())
			if tc.timeout > 0 {
				ctx, cancel = context.WithTimeout(context.Background(), tc.timeout)
			}
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- p.conn.Call(ctx, "llm.chat", nil, &chatResult{}) }()
			call := p.recv()
			if call.Method != "llm.chat" {
				t.Fatalf("expected the call on the wire, got %s", call.raw)
			}
			if got := p.conn.pendingCalls(); got != 1 {
				t.Fatalf("pending calls while waiting = %d, want 1", got)
			}
			if tc.reply != nil {
				p.send(tc.reply(string(call.ID)))
			} else if tc.timeout == 0 {
				cancel()
			}
			var err error
			select {
			case err = <-errc:
			case <-time.After(5 * time.Second):
				t.Fatal("call did not return")
			}
			var re *Error
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("err = %v", err)
			case errors.As(tc.wantErr, &re) && !errors.As(err, &re):
				t.Fatalf("err = %v, want a peer *Error", err)
			case tc.wantErr != nil && !errors.As(tc.wantErr, &re) && !errors.Is(err, tc.wantErr):
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr == context.Canceled || tc.wantErr == context.DeadlineExceeded {
				if f := p.recv(); f.raw != cancelFrame(call.ID) {
					t.Fatalf("after giving up got %s, want %s", f.raw, cancelFrame(call.ID))
				}
			}
			if tc.late != nil {
				p.send(tc.late(string(call.ID)))
			}
			p.send(`{"jsonrpc":"2.0","id":"alive","method":"echo"}`)
			if f := p.recv(); string(f.ID) != `"alive"` {
				t.Fatalf("conn not serving: %s", f.raw)
			}
			if got := p.conn.pendingCalls(); got != 0 {
				t.Fatalf("%d calls still pending after the call returned", got)
			}
		})
	}
}

// cancelFrame is the exact notification that cancels our call id at the peer.
func cancelFrame(id json.RawMessage) string {
	return `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + string(id) + `}}`
}

// TestAbandonedCallCancelsPeer: however a Call gives up on its context, the
// peer receives `$/cancelRequest` with the call's own id, the caller is not
// held by a peer that has stopped reading, and a call that got its reply
// sends nothing more.
func TestAbandonedCallCancelsPeer(t *testing.T) {
	tests := []struct {
		name      string
		timeout   time.Duration // 0 ⇒ cancelled by the test once the call is on the wire
		answer    bool          // the peer replies before the context ends
		slowPeer  bool          // the peer reads nothing until the call has returned
		wantErr   error
		wantFrame bool // a cancel notification follows the call
	}{
		{"cancelled", 0, false, false, context.Canceled, true},
		{"deadline", 30 * time.Millisecond, false, false, context.DeadlineExceeded, true},
		{"peer stopped reading", 0, false, true, context.Canceled, true},
		{"answered", time.Minute, true, false, nil, false},
	}
	p := startPeer(t, echoMethods())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			ctx, cancel := context.WithCancel(context.Background())
			if tc.timeout > 0 {
				ctx, cancel = context.WithTimeout(context.Background(), tc.timeout)
			}
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- p.conn.Call(ctx, "llm.chat", map[string]any{"messages": []any{}}, &chatResult{}) }()
			call := p.recv()
			if call.Method != "llm.chat" || !strings.HasPrefix(string(call.ID), `"somni-`) {
				t.Fatalf("expected llm.chat with a somni-N id, got %s", call.raw)
			}
			if tc.answer {
				p.send(`{"jsonrpc":"2.0","id":` + string(call.ID) + `,"result":{"message":{"role":"assistant","content":"ok"}}}`)
			} else if tc.timeout == 0 {
				cancel()
			}
			checkErr := func(err error) {
				t.Helper()
				if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			}
			if tc.slowPeer {
				// Nothing reads the pipe, so the notification cannot be
				// written yet: the caller must come back anyway.
				select {
				case err := <-errc:
					checkErr(err)
				case <-time.After(5 * time.Second):
					t.Fatal("Call blocked on a peer that is not reading")
				}
			}
			if tc.wantFrame {
				if f := p.recv(); f.raw != cancelFrame(call.ID) {
					t.Fatalf("got %s, want %s", f.raw, cancelFrame(call.ID))
				}
			}
			if !tc.slowPeer {
				checkErr(<-errc)
			}
			p.send(`{"jsonrpc":"2.0","id":"alive","method":"echo"}`)
			if f := p.recv(); string(f.ID) != `"alive"` {
				t.Fatalf("want only the echo reply next, got %s", f.raw)
			}
		})
	}
}

// orderLog records when each ordered request started and ended on one
// global clock, to check the ordering rules after the fact.
type orderLog struct {
	mu     sync.Mutex
	clock  int
	start  map[int]int // request n → tick it started
	end    map[int]int
	active int // requests running now
	errs   []string
}

func (l *orderLog) methods() map[string]Handler {
	enter := func(params json.RawMessage, barrier bool) (int, error) {
		var p struct {
			N       int `json:"n"`
			SleepUS int `json:"sleepUs"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return 0, err
		}
		l.mu.Lock()
		if barrier && l.active != 0 {
			l.errs = append(l.errs, fmt.Sprintf("barrier %d started with %d requests running", p.N, l.active))
		}
		l.active++
		l.clock++
		l.start[p.N] = l.clock
		l.mu.Unlock()
		time.Sleep(time.Duration(p.SleepUS) * time.Microsecond)
		l.mu.Lock()
		l.active--
		l.clock++
		l.end[p.N] = l.clock
		l.mu.Unlock()
		return p.N, nil
	}
	return map[string]Handler{
		"append": func(_ context.Context, params json.RawMessage) (any, error) { return enter(params, false) },
		"closeAll": func(_ context.Context, params json.RawMessage) (any, error) {
			return enter(params, true)
		},
	}
}

// keyOf is the test's KeyFunc: the "key" member.
func keyOf(params json.RawMessage) string {
	var p struct {
		Key string `json:"key"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Key
}

// TestSerialByKeyOrdering pipelines scripts of keyed requests and barriers
// and checks, from the recorded start/end ticks, that each key ran in
// arrival order and each barrier ran alone between everything before it and
// everything after it.
func TestSerialByKeyOrdering(t *testing.T) {
	type step struct {
		key     string // "" ⇒ barrier
		sleepUS int
	}
	interleave := func(keys []string, per int) []step {
		var s []step
		for i := 0; i < per; i++ {
			for j, k := range keys {
				s = append(s, step{key: k, sleepUS: (i*7 + j*13) % 300})
			}
		}
		return s
	}
	bar := []step{{key: ""}}
	cat := func(parts ...[]step) []step {
		var s []step
		for _, p := range parts {
			s = append(s, p...)
		}
		return s
	}
	tests := []struct {
		name   string
		script []step
	}{
		{"interleaved keys", interleave([]string{"a", "b", "c"}, 100)},
		{"one key", interleave([]string{"a"}, 150)},
		{"barrier after a burst", cat(interleave([]string{"a", "b"}, 80), bar)},
		{"barrier in the middle", cat(interleave([]string{"a", "b"}, 50), bar, interleave([]string{"b", "c"}, 50))},
		{"barrier first", cat(bar, interleave([]string{"a", "b"}, 30))},
		{"back-to-back barriers", cat(interleave([]string{"a"}, 10), bar, bar, interleave([]string{"a", "b"}, 10), bar)},
		{"barriers only", cat(bar, bar, bar)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := &orderLog{start: map[int]int{}, end: map[int]int{}}
			p := startPeer(t, l.methods(), WithSerialByKey(keyOf, "append"), WithSerial("closeAll"))
			var burst strings.Builder
			for n, st := range tc.script {
				if st.key == "" {
					fmt.Fprintf(&burst, `{"jsonrpc":"2.0","id":%d,"method":"closeAll","params":{"n":%d}}`+"\n", n, n)
				} else {
					fmt.Fprintf(&burst, `{"jsonrpc":"2.0","id":%d,"method":"append","params":{"key":%q,"n":%d,"sleepUs":%d}}`+"\n", n, st.key, n, st.sleepUS)
				}
			}
			go io.WriteString(p.in, burst.String())
			seen := map[string]bool{}
			for range tc.script {
				f := p.recv()
				if f.Error != nil || string(f.Result) != string(f.ID) || seen[string(f.ID)] {
					t.Fatalf("bad or duplicate reply %s", f.raw)
				}
				seen[string(f.ID)] = true
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			for _, e := range l.errs {
				t.Error(e)
			}
			last := map[string]int{} // key → n of its previous request
			for n, st := range tc.script {
				if st.key == "" {
					for m := range tc.script {
						if m < n && l.end[m] > l.start[n] {
							t.Errorf("barrier %d started before request %d ended", n, m)
						}
						if m > n && l.start[m] < l.end[n] {
							t.Errorf("request %d started before barrier %d ended", m, n)
						}
					}
					continue
				}
				if prev, ok := last[st.key]; ok && l.start[n] < l.end[prev] {
					t.Errorf("key %s: request %d started before %d ended", st.key, n, prev)
				}
				last[st.key] = n
			}
		})
	}
}

// TestSerialByKeyRunsKeysSideBySide: a request on key a that can only
// finish once a request on key b has run proves one key never waits for
// another (a single queue would deadlock here).
func TestSerialByKeyRunsKeysSideBySide(t *testing.T) {
	bRan := make(chan struct{})
	methods := map[string]Handler{
		"append": func(ctx context.Context, params json.RawMessage) (any, error) {
			switch keyOf(params) {
			case "a":
				select {
				case <-bRan:
					return "a after b", nil
				case <-time.After(5 * time.Second):
					return "a timed out: key b never ran", nil
				}
			default:
				close(bRan)
				return "b", nil
			}
		},
	}
	p := startPeer(t, methods, WithSerialByKey(keyOf, "append"))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"append","params":{"key":"a"}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"append","params":{"key":"b"}}`)
	got := map[string]string{}
	for i := 0; i < 2; i++ {
		f := p.recv()
		got[string(f.ID)] = string(f.Result)
	}
	if got["1"] != `"a after b"` || got["2"] != `"b"` {
		t.Fatalf("replies = %v", got)
	}
}

// A reply over the frame limit is dropped, but it still names the call it
// answers: that call must fail at once (not wait 600 s for llm.chat), and
// the connection must go on serving.
func TestOversizedReplyFailsTheCall(t *testing.T) {
	pad := strings.Repeat("x", 70000)
	tests := []struct {
		name  string
		reply func(id json.RawMessage) string
	}{
		{"id first", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"message":{"role":"assistant","content":"%s"}}}`, id, pad)
		}},
		{"id last", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","result":{"message":{"role":"assistant","content":"%s"}},"id":%s}`, pad, id)
		}},
		{"id last then jsonrpc", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"result":{"message":{"content":"%s \"id\":\"somni-999\""}}, "id" : %s, "jsonrpc":"2.0"}`, pad, id)
		}},
		{"error reply", func(id json.RawMessage) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"%s"}}`, id, pad)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var conn *Conn
			p := startPeer(t, reverseMethods(&conn))
			conn = p.conn
			p.conn.stream.limit = 1000 // set before the first frame; the reader is idle
			p.send(`{"jsonrpc":"2.0","id":1,"method":"dream","params":{"timeoutMs":5000}}`)
			call := p.recv()
			if call.Method != "llm.chat" {
				t.Fatalf("want reverse call, got %s", call.raw)
			}
			p.send(tc.reply(call.ID))
			if f := p.recv(); f.Error == nil || f.Error.Code != CodeParseError {
				t.Fatalf("want -32700 for the oversized frame, got %s", f.raw)
			}
			f := p.recv()
			if string(f.ID) != "1" || !strings.Contains(string(f.Result), "exceeds the 1000-byte frame limit") {
				t.Fatalf("the call did not fail with the frame-limit error: %s", f.raw)
			}
			if n := conn.pendingCalls(); n != 0 {
				t.Errorf("%d calls still pending", n)
			}
			p.send(`{"jsonrpc":"2.0","id":2,"method":"dream","params":{"timeoutMs":5000}}`)
			next := p.recv()
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"message":{"role":"assistant","content":"ok"}}}`, next.ID))
			if f := p.recv(); string(f.ID) != "2" || !strings.Contains(string(f.Result), `"content":"ok"`) {
				t.Fatalf("not serving calls after the oversized reply: %s", f.raw)
			}
		})
	}
}

// TestErrorData: a handler's error with data reaches the peer with its data
// member (the UI shows a conflict's current text from it).
func TestErrorData(t *testing.T) {
	p := startPeer(t, map[string]Handler{
		"conflict": func(context.Context, json.RawMessage) (any, error) {
			return nil, fmt.Errorf("wrapped: %w", Errorf(-32010, "conflict: x changed on disk").WithData(map[string]string{"current": "now"}))
		},
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"conflict"}`)
	f := p.recv()
	if f.Error == nil || f.Error.Code != -32010 || string(f.Error.Data) != `{"current":"now"}` {
		t.Fatalf("reply %s", f.raw)
	}
}
