package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
)

// mcpProc is `somni-sidecar mcp` driven by the SDK's own client over a real
// subprocess (CommandTransport). The binary runs under `tee`, so the test
// also sees every byte it wrote to stdout.
type mcpProc struct {
	t       testing.TB
	cs      *mcp.ClientSession
	stderr  *lockedBuffer
	stdout  string // the tee'd copy of the server's stdout
	dataDir string
}

// mcpClientName is the clientInfo name the tests' client sends.
const mcpClientName = "somni-test-client"

func startMCP(t testing.TB, dataDir string, opts *mcp.ClientOptions, args []string, env ...string) *mcpProc {
	t.Helper()
	p := &mcpProc{t: t, stderr: &lockedBuffer{}, dataDir: dataDir,
		stdout: filepath.Join(t.TempDir(), "stdout.ndjson")}
	full := append([]string{"mcp", "--data-dir", dataDir, "--embed", "off", "--log-level", "debug"}, args...)
	cmd := exec.Command("sh", append([]string{"-c", `"$0" "$@" | tee "$SOMNI_TEST_STDOUT"`, binPath}, full...)...)
	cmd.Env = append(append(os.Environ(), "SOMNI_TEST_STDOUT="+p.stdout), env...)
	cmd.Stderr = p.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: mcpClientName, Version: "1.0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, p.stderr.String())
	}
	p.cs = cs
	t.Cleanup(func() {
		_ = cs.Close()
		if t.Failed() {
			t.Logf("mcp server stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

func (p *mcpProc) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	p.t.Cleanup(cancel)
	return ctx
}

// call calls a tool and returns its text and isError.
func (p *mcpProc) call(name string, args any) (string, bool) {
	p.t.Helper()
	res, err := p.cs.CallTool(p.ctx(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		p.t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			p.t.Fatalf("%s: content %T, want text", name, c)
		}
		b.WriteString(tc.Text)
	}
	return b.String(), res.IsError
}

// tool calls a tool that must succeed.
func (p *mcpProc) tool(name string, args any) string {
	p.t.Helper()
	text, isErr := p.call(name, args)
	if isErr {
		p.t.Fatalf("%s: error result: %s", name, text)
	}
	return text
}

// read reads a resource's text.
func (p *mcpProc) read(uri string) string {
	p.t.Helper()
	res, err := p.cs.ReadResource(p.ctx(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		p.t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/markdown" {
		p.t.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	return res.Contents[0].Text
}

// stop disconnects (the server sees EOF and exits) and checks that stdout
// carried nothing but JSON-RPC 2.0 frames.
func (p *mcpProc) stop() {
	p.t.Helper()
	if err := p.cs.Close(); err != nil {
		p.t.Logf("close: %v", err)
	}
	f, err := os.Open(p.stdout)
	if err != nil {
		p.t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		var frame struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &frame); err != nil || frame.JSONRPC != "2.0" ||
			(frame.Method == "" && frame.Result == nil && frame.Error == nil) {
			p.t.Fatalf("stdout line %d is not an MCP frame: %q", n, sc.Text())
		}
	}
	if n == 0 {
		p.t.Fatal("no stdout frames at all")
	}
}

// samplingModel answers sampling/createMessage with a scripted dream model,
// the way dreamHost answers llm.chat: the request is turned back into the
// dreamer's chat, the model's reply into a sampling result.
func samplingModel(t testing.TB, model *dreamtest.Model) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageWithToolsHandler: func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			msgs, tools := chatOf(t, req.Params)
			reply, _, err := model.Chat(ctx, msgs, tools)
			if err != nil {
				return nil, err
			}
			res := &mcp.CreateMessageWithToolsResult{Model: "dreamtest", Role: "assistant", StopReason: "endTurn"}
			if reply.Content != "" || len(reply.ToolCalls) == 0 {
				res.Content = append(res.Content, &mcp.TextContent{Text: reply.Content})
			}
			for _, tc := range reply.ToolCalls {
				var input map[string]any
				if err := json.Unmarshal([]byte(tc.Function.Arguments), &input); err != nil {
					t.Errorf("scripted call %s: arguments %q: %v", tc.Function.Name, tc.Function.Arguments, err)
				}
				res.Content = append(res.Content, &mcp.ToolUseContent{ID: tc.ID, Name: tc.Function.Name, Input: input})
				res.StopReason = "toolUse"
			}
			return res, nil
		},
	}
}

// chatOf is the inverse of the server's mapping: a sampling request as the
// dreamer's messages and tools.
func chatOf(t testing.TB, p *mcp.CreateMessageWithToolsParams) ([]dream.Message, []dream.Tool) {
	var msgs []dream.Message
	if p.SystemPrompt != "" {
		msgs = append(msgs, dream.Message{Role: "system", Content: p.SystemPrompt})
	}
	for _, m := range p.Messages {
		cur := dream.Message{Role: string(m.Role)}
		for _, c := range m.Content {
			switch c := c.(type) {
			case *mcp.TextContent:
				cur.Content += c.Text
			case *mcp.ToolUseContent:
				args, _ := json.Marshal(c.Input)
				cur.ToolCalls = append(cur.ToolCalls, dream.ToolCall{ID: c.ID, Type: "function",
					Function: dream.FunctionCall{Name: c.Name, Arguments: string(args)}})
			case *mcp.ToolResultContent:
				var text string
				for _, rc := range c.Content {
					text += rc.(*mcp.TextContent).Text
				}
				msgs = append(msgs, dream.Message{Role: "tool", ToolCallID: c.ToolUseID, Content: text})
			default:
				t.Errorf("sampling content %T", c)
			}
		}
		if cur.Content != "" || len(cur.ToolCalls) > 0 {
			msgs = append(msgs, cur)
		}
	}
	var tools []dream.Tool
	for _, tl := range p.Tools {
		schema, _ := json.Marshal(tl.InputSchema)
		tools = append(tools, dream.Tool{Type: "function", Function: dream.FunctionDef{Name: tl.Name,
			Description: tl.Description, Parameters: schema}})
	}
	return msgs, tools
}
