package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/testutil"
)

// TestMCPSurvivesBadLines feeds `somni-sidecar mcp` one malformed line after
// another in one session, each followed by a ping: every bad line that can
// be answered gets the JSON-RPC error a client can act on, and the server
// keeps reading, as the JSON-RPC side does.
func TestMCPSurvivesBadLines(t *testing.T) {
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	huge := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"` + strings.Repeat("x", rpc.MaxFrameBytes+1024) + `"}}`
	cases := []struct {
		name string
		line string
		code int64 // 0: no reply is due (a notification or a stray reply)
	}{
		{"garbage", "garbage", rpc.CodeParseError},
		{"open brace", "{", rpc.CodeParseError},
		{"null", "null", rpc.CodeParseError},
		{"number", "42", rpc.CodeParseError},
		{"string", `"ping"`, rpc.CodeParseError},
		{"true", "true", rpc.CodeParseError},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"x\":\"\xff\xfe\"}", rpc.CodeParseError},
		{"frame over the bound", huge, rpc.CodeParseError},
		{"100k-deep nesting", deep, rpc.CodeParseError},
		{"deep object", `{"jsonrpc":"2.0","id":8,"method":"ping","params":` + strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000) + "}", rpc.CodeParseError},
		{"method is a number", `{"jsonrpc":"2.0","id":9,"method":7}`, rpc.CodeInvalidRequest},
		{"no method, no result", `{"jsonrpc":"2.0","id":10}`, rpc.CodeInvalidRequest},
		{"empty object", `{}`, rpc.CodeInvalidRequest},
		{"wrong version", `{"jsonrpc":"1.0","id":11,"method":"ping"}`, rpc.CodeInvalidRequest},
		{"no version", `{"id":12,"method":"ping"}`, rpc.CodeInvalidRequest},
		{"id is an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, rpc.CodeInvalidRequest},
		{"empty batch", `[]`, rpc.CodeInvalidRequest},
		{"batch", `[{"jsonrpc":"2.0","id":13,"method":"ping"}]`, rpc.CodeInvalidRequest},
		{"trailing data", `{"jsonrpc":"2.0","id":14,"method":"ping"} {"x":1}`, rpc.CodeParseError},
		{"params not an object", `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":7}`, rpc.CodeInvalidParams},
		{"unknown method", `{"jsonrpc":"2.0","id":16,"method":"no/such"}`, rpc.CodeMethodNotFound},
		{"stray reply", `{"jsonrpc":"2.0","id":999,"result":{}}`, 0},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/nothing"}`, 0},
		{"blank line", "   ", 0},
	}
	cmd := exec.Command(binPath, "mcp", "--data-dir", testutil.Pydata(t), "--embed", "off")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})
	frames := make(chan wire, 16)
	go func() {
		defer close(frames)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var w wire
			if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
				w.Method = "<not JSON: " + err.Error() + ">"
			}
			frames <- w
		}
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write: %v (the server is gone)", err)
		}
	}
	next := func(what string) wire {
		t.Helper()
		select {
		case w, ok := <-frames:
			if !ok {
				t.Fatalf("%s: stdout closed: the server ended", what)
			}
			return w
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no frame within 20 s", what)
		}
		return wire{}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if w := next("initialize"); w.Error != nil || len(w.Result) == 0 {
		t.Fatalf("initialize: %+v", w)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for i, c := range cases {
		send(c.line)
		pingID := fmt.Sprintf(`"ping-%d"`, i)
		send(`{"jsonrpc":"2.0","id":` + pingID + `,"method":"ping"}`)
		if c.code != 0 {
			w := next(c.name)
			if w.Error == nil || w.Error.Code != c.code {
				t.Errorf("%s: reply %+v, want error code %d", c.name, w, c.code)
			} else if w.Error.Message == "" {
				t.Errorf("%s: error without a message", c.name)
			}
		}
		if w := next(c.name + ": the ping after it"); string(w.ID) != pingID || w.Error != nil {
			t.Fatalf("%s: after it, got %+v; want the reply to ping %s", c.name, w, pingID)
		}
	}
}
