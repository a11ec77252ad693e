package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/toolspec"
)

// clientEnv is what an MCP-only tool knows about its caller.
type clientEnv struct {
	session *mcp.ServerSession
	client  string // clientInfo name from initialize, "" when the client sent none
	req     *mcp.CallToolRequest
}

// workSpec is one tools.list item as the sidecar sends it.
type workSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// addTools registers the sidecar's work tools, with the schemas tools.list
// generates, then the MCP-only tools (remember, dream_status, dream_now).
func (s *Server) addTools(ctx context.Context) error {
	var list struct {
		Tools []workSpec `json:"tools"`
	}
	if err := s.call(ctx, "tools.list", struct{}{}, &list); err != nil {
		return fmt.Errorf("mcpserver: tools.list: %w", err)
	}
	for _, t := range list.Tools {
		name := t.Name
		s.mcp.AddTool(&mcp.Tool{Name: name, Description: t.Description, InputSchema: t.Parameters,
			Annotations: annotations(name)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				text, err := s.callTool(ctx, name, argsOf(req))
				if err != nil {
					return toolError(err), nil
				}
				return textResult(text), nil
			})
	}
	own, err := s.ownTools()
	if err != nil {
		return err
	}
	for _, spec := range own.Specs() {
		name := spec.Name
		schema, err := json.Marshal(spec.Parameters)
		if err != nil {
			return fmt.Errorf("mcpserver: schema of %s: %w", name, err)
		}
		s.mcp.AddTool(&mcp.Tool{Name: name, Description: spec.Description, InputSchema: json.RawMessage(schema),
			Annotations: annotations(name)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				env := clientEnv{session: req.Session, client: clientName(req), req: req}
				text, err := own.Call(ctx, name, env, argsOf(req))
				if err != nil {
					return toolError(err), nil
				}
				return textResult(text), nil
			})
	}
	return nil
}

// callTool runs one of the sidecar's work tools through tools.call and
// returns its result text.
func (s *Server) callTool(ctx context.Context, name string, args any) (string, error) {
	var out struct {
		Result string `json:"result"`
	}
	if err := s.call(ctx, "tools.call", map[string]any{"name": name, "args": args}, &out); err != nil {
		return "", err
	}
	return out.Result, nil
}

// ownTools are the tools only MCP clients get: the DSH plugin captures the
// conversation and schedules dreams itself, an MCP client needs to ask.
func (s *Server) ownTools() (*toolspec.Registry[clientEnv], error) {
	return toolspec.NewRegistry(
		toolspec.MustTool("remember",
			"Keep a note in long-term memory: something the user asked you to remember, or a durable fact, decision or preference. The next dream files it; recall finds it after that.",
			s.remember),
		toolspec.MustTool("dream_status",
			"Memory consolidation state: pending conversation logs, the last dream, whether one is running.",
			s.dreamStatus),
		toolspec.MustTool("dream_now",
			"Consolidate pending notes and conversations into long-term memory now (a \"dream\"), with this client's model. Can take minutes.",
			s.dreamNow),
	)
}

// annotations mark the lookups read-only, so clients may run them without
// asking and in parallel.
func annotations(name string) *mcp.ToolAnnotations {
	switch {
	case strings.HasPrefix(name, "recall_"), strings.HasPrefix(name, "search_"), strings.HasPrefix(name, "list_"),
		name == "dream_status":
		return &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	f := false
	return &mcp.ToolAnnotations{DestructiveHint: &f}
}

// argsOf is the call's raw arguments ({} when absent): toolspec decodes them
// with the same leniency as tools.call (clamps, defaults, extra keys).
func argsOf(req *mcp.CallToolRequest) json.RawMessage {
	if req.Params == nil || len(req.Params.Arguments) == 0 {
		return json.RawMessage("{}")
	}
	return req.Params.Arguments
}

// clientName is the name the client gave in initialize.
func clientName(req *mcp.CallToolRequest) string {
	if ci := req.Session.InitializeParams(); ci != nil && ci.ClientInfo != nil {
		return strings.TrimSpace(ci.ClientInfo.Name)
	}
	return ""
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// toolError is a failed call as a tool result the model reads (isError), as
// MCP asks for argument and execution errors alike; the text is what the
// JSON-RPC error message says.
func toolError(err error) *mcp.CallToolResult {
	msg := err.Error()
	var re *rpc.Error
	if errors.As(err, &re) {
		msg = re.Message
	}
	res := textResult(msg)
	res.IsError = true
	return res
}
