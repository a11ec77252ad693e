package mcpserver_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/mcpserver"
	"github.com/somni-dev/somni/internal/sidecar"
	"github.com/somni-dev/somni/internal/testutil"
)

// testNow is the servers' clock in these tests.
var testNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// connect serves a fresh copy of the test data dir over in-memory
// transports and returns the client's session, after initialize. Server,
// session and sidecar are closed when the test ends.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := func() time.Time { return testNow }
	side, err := sidecar.New(sidecar.Config{DataDir: testutil.Pydata(t), Embed: embed.Config{Provider: "off"},
		Logger: quiet, Now: now, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { side.Close() })
	ms, err := mcpserver.New(mcpserver.Options{Sidecar: side, Logger: quiet, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- ms.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return cs
}

func TestInitialize(t *testing.T) {
	ir := connect(t).InitializeResult()
	if ir.ServerInfo == nil || ir.ServerInfo.Name != "somni" || ir.ServerInfo.Version != sidecar.Version {
		t.Errorf("server info %+v", ir.ServerInfo)
	}
	if ir.Instructions != mcpserver.Instructions {
		t.Errorf("instructions %q", ir.Instructions)
	}
	if ir.ProtocolVersion >= "2026-07-28" {
		t.Errorf("protocol %s: sampling during a tool call needs a version before 2026-07-28", ir.ProtocolVersion)
	}
	c := ir.Capabilities
	if c == nil || c.Tools == nil || c.Resources == nil || c.Prompts == nil || c.Logging != nil {
		t.Errorf("capabilities %+v: want tools, resources and prompts, no logging", c)
	}
}

func TestToolsList(t *testing.T) {
	res, err := connect(t).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		readOnly[tl.Name] = tl.Annotations != nil && tl.Annotations.ReadOnlyHint
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("%s: no description or schema", tl.Name)
		}
	}
	slices.Sort(names)
	want := []string{"add_intention", "cancel_intention", "complete_intention", "dream_now", "dream_status",
		"list_intentions", "recall_memories", "remember", "search_episodes", "search_knowledge", "search_recent_conversation"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v\nwant %v", names, want)
	}
	for name, ro := range readOnly {
		wantRO := strings.HasPrefix(name, "recall_") || strings.HasPrefix(name, "search_") || strings.HasPrefix(name, "list_") || name == "dream_status"
		if ro != wantRO {
			t.Errorf("%s: read-only %v, want %v", name, ro, wantRO)
		}
	}
}

// TestToolsCall runs calls in order on one session, as a client would:
// what each shows the model, and whether it is an error.
func TestToolsCall(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		isError bool
		want    []string // in the result text, in this order
	}{
		{name: "remember keeps a note", tool: "remember",
			args: map[string]any{"text": "The staging DB moved to pg-stage-9.", "tags": "staging, postgres"},
			want: []string{"Kept. The next dream files it"}},
		{name: "the note is in the client's conversation log", tool: "search_recent_conversation",
			args: map[string]any{"query": "staging DB"},
			want: []string{"## Earlier conversations", "[user:test-client 2026-12-02T12:00:00] Remember: The staging DB moved to pg-stage-9. Tags: staging, postgres"}},
		{name: "recall finds stored knowledge", tool: "recall_memories",
			args: map[string]any{"query": "BuildKit cache mounts"},
			want: []string{`memories for "BuildKit cache mounts", best first`, "1. docker-build-cache", "DOCKER_BUILDKIT=1"}},
		{name: "remember without text", tool: "remember", args: map[string]any{"note": "x"}, isError: true,
			want: []string{`remember: argument "text": is required`}},
		{name: "recall with a number", tool: "recall_memories", args: map[string]any{"query": 5}, isError: true,
			want: []string{`recall_memories: argument "query": expected string, got number`}},
		{name: "a bad due date is refused", tool: "add_intention", args: map[string]any{"what": "x", "due": "someday maybe"}, isError: true,
			want: []string{`add_intention: argument "due": did not understand "someday maybe" as a date`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isError || len(res.Content) != 1 {
				t.Fatalf("isError %v, %d contents; want isError %v, one text", res.IsError, len(res.Content), tc.isError)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			at := 0
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

// An unknown tool is the protocol's error, not a tool result.
func TestUnknownTool(t *testing.T) {
	_, err := connect(t).CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || we.Message != `unknown tool "nope"` {
		t.Fatalf("err %v, want JSON-RPC %d unknown tool", err, jsonrpc.CodeInvalidParams)
	}
}
