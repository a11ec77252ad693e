package sidecar_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/sidecar"
	"github.com/somni-dev/somni/internal/testutil"
)

// testNow is the sidecar's clock in these tests, so due dates stay ahead.
var testNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// newServer is a sidecar over dir with no vectors and no log output, closed
// when the test ends.
func newServer(t *testing.T, dir string) *sidecar.Server {
	t.Helper()
	srv, err := sidecar.New(sidecar.Config{DataDir: dir, Embed: embed.Config{Provider: "off"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now:    func() time.Time { return testNow }, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return srv
}

// call runs one method of the table the way the JSON-RPC loop does and
// returns its result as the JSON the host reads.
func call(t *testing.T, srv *sidecar.Server, method, params string) (string, error) {
	t.Helper()
	h := srv.Methods()[method]
	if h == nil {
		t.Fatalf("no method %s", method)
	}
	res, err := h(context.Background(), json.RawMessage(params))
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("%s result: %v", method, err)
	}
	return string(b), nil
}

// toolText is a tools.call result's text.
func toolText(t *testing.T, out string) string {
	t.Helper()
	var r struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("tools.call result %s: %v", out, err)
	}
	return r.Result
}

func TestMethodPing(t *testing.T) {
	dir := t.TempDir()
	srv := newServer(t, dir)
	out, err := call(t, srv, "ping", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	var p sidecar.PingResult
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.Version != sidecar.Version || p.DataDir != dir || p.Embed.Provider != "off" || p.Vector || p.PendingLogs != 0 {
		t.Errorf("ping on an empty data dir: %s", out)
	}
}

// TestMethodRoundTrips writes through the method table and reads the
// write back through it, as the plugin does: an intention, a conversation
// turn; and recalls a stored entry.
func TestMethodRoundTrips(t *testing.T) {
	tests := []struct {
		name  string
		dir   func(testing.TB) string
		write [2]string // method, params; "" for none
		read  [2]string
		want  []string // in the read's text, in this order
	}{
		{
			name:  "intention added then listed",
			dir:   func(t testing.TB) string { return t.TempDir() },
			write: [2]string{"tools.call", `{"name":"add_intention","args":{"what":"renew the TLS cert for api-gw","due":"2026-12-20","cue":"tls, cert"}}`},
			read:  [2]string{"tools.call", `{"name":"list_intentions"}`},
			want:  []string{"1 open intention", "renew the TLS cert for api-gw (due 2026-12-20; cues: tls, cert; mid priority)"},
		},
		{
			name:  "turn appended then found in this conversation",
			dir:   func(t testing.TB) string { return t.TempDir() },
			write: [2]string{"session.append", `{"sessionId":"chat-1","role":"user","text":"The spare keys are in the blue drawer."}`},
			read:  [2]string{"tools.call", `{"name":"search_recent_conversation","sessionId":"chat-1","args":{"query":"spare keys"}}`},
			want:  []string{"## This conversation", "The spare keys are in the blue drawer."},
		},
		{
			name: "stored knowledge recalled",
			dir:  testutil.Pydata,
			read: [2]string{"tools.call", `{"name":"recall_memories","args":{"query":"BuildKit cache mounts"}}`},
			want: []string{`memories for "BuildKit cache mounts", best first`, "1. docker-build-cache", "exact: BuildKit", "DOCKER_BUILDKIT=1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.dir(t))
			if tc.write[0] != "" {
				out, err := call(t, srv, tc.write[0], tc.write[1])
				if err != nil {
					t.Fatalf("%s: %v", tc.write[0], err)
				}
				if strings.Contains(out, `"ok":false`) || strings.Contains(out, "skipped") {
					t.Fatalf("%s did not write: %s", tc.write[0], out)
				}
			}
			out, err := call(t, srv, tc.read[0], tc.read[1])
			if err != nil {
				t.Fatalf("%s: %v", tc.read[0], err)
			}
			text, at := toolText(t, out), 0
			for _, w := range tc.want {
				i := strings.Index(text[at:], w)
				if i < 0 {
					t.Fatalf("want %q after offset %d in:\n%s", w, at, text)
				}
				at += i + len(w)
			}
		})
	}
}

// TestMethodBadParams: the caller's mistakes come back as -32602 with a
// message naming the method or tool and the argument, and write nothing.
func TestMethodBadParams(t *testing.T) {
	srv := newServer(t, t.TempDir())
	tests := []struct {
		method, params string
		msg            string // the error message starts with this
	}{
		{"tools.call", `{}`, `tools.call: argument "name": is required`},
		{"tools.call", `{"name":"nope"}`, `unknown tool: "nope"`},
		{"tools.call", `{"name":"recall_memories","args":{"query":5}}`, `recall_memories: argument "query": expected string, got number`},
		{"tools.call", `{"name":"add_intention","args":{"what":"x","due":"someday maybe"}}`, `add_intention: argument "due": did not understand "someday maybe" as a date`},
		{"session.append", `{"role":"user"}`, `session.append: argument "sessionId": is required`},
		{"session.append", `[1]`, `session.append: arguments must be a JSON object, got array`},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.params, func(t *testing.T) {
			out, err := call(t, srv, tc.method, tc.params)
			var re *rpc.Error
			if !errors.As(err, &re) {
				t.Fatalf("got %s, %v; want an rpc error", out, err)
			}
			if re.Code != rpc.CodeInvalidParams || !strings.HasPrefix(re.Message, tc.msg) {
				t.Errorf("got %d %q, want %d %q…", re.Code, re.Message, rpc.CodeInvalidParams, tc.msg)
			}
		})
	}
	out, err := call(t, srv, "tools.call", `{"name":"list_intentions"}`)
	if err != nil || strings.Contains(toolText(t, out), "pi-") {
		t.Errorf("a refused add_intention wrote something: %s, %v", out, err)
	}
}

// TestMethodParams compiles every method's params type (each compiles on
// its method's first call): a params value that is not an object is a
// -32602 from every method, never the internal error of a params struct
// toolspec cannot read, and no handler runs.
func TestMethodParams(t *testing.T) {
	srv := newServer(t, t.TempDir())
	for name, h := range srv.Methods() {
		_, err := h(context.Background(), json.RawMessage(`"not an object"`))
		var re *rpc.Error
		if !errors.As(err, &re) || re.Code != rpc.CodeInvalidParams {
			t.Errorf("%s: %v, want a -32602", name, err)
		}
	}
}

// TestStartGate: the index does not open before the first ping has its
// answer (opening it beside that ping is what made start-up slow), opens
// right after it, and tells the truth meanwhile: no index counts before it
// is open, the counts once it is.
func TestStartGate(t *testing.T) {
	dir := t.TempDir()
	note := filepath.Join(dir, "memory", "knowledge", "alpha", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("---\nname: alpha\ndescription: alpha note\ntype: fact\n---\n\nalpha body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := sidecar.New(sidecar.Config{DataDir: dir, Embed: embed.Config{Provider: "off"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Location: time.UTC, StartDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	select {
	case <-srv.Started():
		t.Fatal("the start-up work began before anything asked for it")
	default:
	}
	first, err := call(t, srv, "ping", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(first, `"index"`) {
		t.Fatalf("first ping reports an index that cannot be open yet: %s", first)
	}
	<-srv.Started()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := srv.Index(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, srv, "index.sync", `{"reason":"test"}`); err != nil {
		t.Fatal(err)
	}
	later, err := call(t, srv, "ping", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(later, `"entries":1`) {
		t.Fatalf("ping after the index opened: %s", later)
	}
}
