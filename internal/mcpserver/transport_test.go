package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/somni-dev/somni/internal/rpc"
)

// FuzzGuard holds the guard to its promise for any single line: it either
// reaches the SDK and the SDK decodes it, or it is answered with a
// JSON-RPC error frame, or (blank) it is dropped; and the well-formed line
// after it always reaches the SDK.
func FuzzGuard(f *testing.F) {
	for _, seed := range []string{
		"garbage", "{", "null", "42", `"x"`, "[]", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\"}",
		strings.Repeat("[", 20000), `{"jsonrpc":"2.0","id":1,"method":7}`, `{"id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, `{"jsonrpc":"2.0","method":"notifications/x"}`, "  ",
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":-1,"result":null}`,
	} {
		f.Add(seed)
	}
	const after = `{"jsonrpc":"2.0","id":"after","method":"ping"}`
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			t.Skip("one line at a time")
		}
		var out bytes.Buffer
		g := &guardedTransport{r: strings.NewReader(line + "\n" + after + "\n"), w: &frameWriter{w: &out},
			logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		pr, pw := io.Pipe()
		passed := make(chan []string, 1)
		go func() {
			var lines []string
			sc := bufio.NewScanner(pr)
			sc.Buffer(nil, rpc.MaxFrameBytes+2)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			passed <- lines
		}()
		g.guard(rpc.NewLineReader(g.r, 1<<20), pw)
		got := <-passed
		if len(got) == 0 || got[len(got)-1] != after {
			t.Fatalf("the line after %q did not reach the SDK: %q", line, got)
		}
		for _, l := range got {
			if _, err := jsonrpc.DecodeMessage([]byte(l)); err != nil {
				t.Fatalf("%q reached the SDK, which cannot decode it: %v", l, err)
			}
		}
		replies := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			replies = nil
		}
		switch {
		case len(got) == 2 && len(replies) == 0: // passed through
		case len(got) == 1 && len(replies) == 1: // answered
			var e struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(replies[0]), &e); err != nil || e.JSONRPC != "2.0" || e.Error.Message == "" ||
				(e.Error.Code != rpc.CodeParseError && e.Error.Code != rpc.CodeInvalidRequest) {
				t.Fatalf("%q answered with %q", line, replies[0])
			}
		case len(got) == 1 && len(replies) == 0 && strings.TrimSpace(line) == "": // blank
		default:
			t.Fatalf("%q: passed %q, answered %q", line, got, replies)
		}
	})
}
