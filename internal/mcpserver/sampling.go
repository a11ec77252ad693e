package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/somni-dev/somni/internal/dream"
)

// SamplingName is what sleep.status reports as `llm` when dreams use the
// MCP client's model.
const SamplingName = "sampling"

// Sampling bounds.
const (
	// SamplingMaxTokens is the reply budget asked for per model turn: a
	// turn may write a whole knowledge entry or diary.
	SamplingMaxTokens = 8192
	// samplingTimeout bounds one createMessage, like the host's llm.chat
	// (the client may be waiting for its user to approve the request).
	samplingTimeout = dream.HostChatTimeout
)

// SamplingBackend is the dreamer's model over MCP sampling: each dreamer
// turn becomes one sampling/createMessage (with tools) to the client that
// called dream_now, the way HostBackend turns it into the host's llm.chat.
// The client is found in the context dream_now passes down through
// sleep.run, so a dream started any other way has no model here.
type SamplingBackend struct{}

// NewSamplingBackend returns the backend to pass as sidecar.Config.HostModel.
func NewSamplingBackend() *SamplingBackend { return &SamplingBackend{} }

// Name reports "sampling".
func (*SamplingBackend) Name() string { return SamplingName }

// samplingCall is the client a dream samples from.
type samplingCall struct {
	session  *mcp.ServerSession
	progress any // the dream_now request's progress token, nil when none
	turns    int
}

type samplingKey struct{}

func withSampling(ctx context.Context, env clientEnv) context.Context {
	c := &samplingCall{session: env.session}
	if env.req != nil && env.req.Params != nil {
		c.progress = env.req.Params.GetProgressToken()
	}
	return context.WithValue(ctx, samplingKey{}, c)
}

// Chat sends the conversation to the client's model and returns its reply
// in the dreamer's (OpenAI) shape. MCP sampling reports no token usage.
func (*SamplingBackend) Chat(ctx context.Context, msgs []dream.Message, tools []dream.Tool) (dream.Message, dream.Usage, error) {
	c, _ := ctx.Value(samplingKey{}).(*samplingCall)
	if c == nil || c.session == nil {
		return dream.Message{}, dream.Usage{}, errNoSession
	}
	if sampling(c.session) != samplingTools {
		return dream.Message{}, dream.Usage{}, fmt.Errorf("sampling: the client does not support tool use in sampling")
	}
	params, err := samplingParams(msgs, tools)
	if err != nil {
		return dream.Message{}, dream.Usage{}, err
	}
	c.turns++
	if c.progress != nil {
		// Progress keeps a client that resets its request timeout on
		// progress from giving up on a dream that takes minutes.
		_ = c.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: c.progress,
			Progress: float64(c.turns), Message: fmt.Sprintf("dreaming: model turn %d", c.turns)})
	}
	ctx, cancel := context.WithTimeout(ctx, samplingTimeout)
	defer cancel()
	started := time.Now()
	res, err := c.session.CreateMessageWithTools(ctx, params)
	if err != nil {
		return dream.Message{}, dream.Usage{}, fmt.Errorf("sampling/createMessage (turn %d, after %s): %w",
			c.turns, time.Since(started).Round(time.Millisecond), err)
	}
	msg, err := replyMessage(res)
	return msg, dream.Usage{}, err
}

// samplingParams maps the dreamer's chat onto a createMessage request:
// system messages become the system prompt, an assistant turn's tool calls
// become tool_use blocks, and the tool messages answering them one user
// message of tool_result blocks (sampling wants every result of a turn
// together, right after it).
func samplingParams(msgs []dream.Message, tools []dream.Tool) (*mcp.CreateMessageWithToolsParams, error) {
	p := &mcp.CreateMessageWithToolsParams{MaxTokens: SamplingMaxTokens, IncludeContext: "none",
		ModelPreferences: &mcp.ModelPreferences{IntelligencePriority: 0.8},
		ToolChoice:       &mcp.ToolChoice{Mode: "auto"}}
	var system []string
	var results *mcp.SamplingMessageV2
	flush := func() {
		if results != nil {
			p.Messages = append(p.Messages, results)
			results = nil
		}
	}
	for i, m := range msgs {
		switch m.Role {
		case "system":
			system = append(system, m.Content)
		case "user":
			flush()
			p.Messages = append(p.Messages, &mcp.SamplingMessageV2{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: m.Content}}})
		case "assistant":
			flush()
			am := &mcp.SamplingMessageV2{Role: "assistant"}
			if strings.TrimSpace(m.Content) != "" {
				am.Content = append(am.Content, &mcp.TextContent{Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				var input map[string]any
				if err := json.Unmarshal([]byte(tc.Function.Arguments), &input); err != nil || input == nil {
					// The model's own malformed arguments: keep them visible
					// rather than dropping the call its result answers.
					input = map[string]any{"_raw_arguments": tc.Function.Arguments}
				}
				am.Content = append(am.Content, &mcp.ToolUseContent{ID: tc.ID, Name: tc.Function.Name, Input: input})
			}
			if len(am.Content) == 0 {
				am.Content = []mcp.Content{&mcp.TextContent{Text: ""}}
			}
			p.Messages = append(p.Messages, am)
		case "tool":
			if results == nil {
				results = &mcp.SamplingMessageV2{Role: "user"}
			}
			results.Content = append(results.Content, &mcp.ToolResultContent{ToolUseID: m.ToolCallID,
				Content: []mcp.Content{&mcp.TextContent{Text: m.Content}}, IsError: strings.HasPrefix(m.Content, "Error: ")})
		default:
			return nil, fmt.Errorf("sampling: message %d has role %q", i, m.Role)
		}
	}
	flush()
	p.SystemPrompt = strings.Join(system, "\n\n")
	for _, t := range tools {
		p.Tools = append(p.Tools, &mcp.Tool{Name: t.Function.Name, Description: t.Function.Description,
			InputSchema: t.Function.Parameters})
	}
	return p, nil
}

// replyMessage maps a createMessage result back: text blocks are the
// content, tool_use blocks the tool calls; anything else (images, audio)
// the dreamer cannot use and is refused as a malformed reply.
func replyMessage(res *mcp.CreateMessageWithToolsResult) (dream.Message, error) {
	if res == nil {
		return dream.Message{}, fmt.Errorf("%w: empty sampling result", dream.ErrMalformedReply)
	}
	if res.Role != "" && res.Role != "assistant" {
		return dream.Message{}, fmt.Errorf("%w: sampling result role %q, want assistant", dream.ErrMalformedReply, res.Role)
	}
	msg := dream.Message{Role: "assistant"}
	var text []string
	size := 0
	for i, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			text = append(text, c.Text)
			size += len(c.Text)
		case *mcp.ToolUseContent:
			if strings.TrimSpace(c.Name) == "" {
				return dream.Message{}, fmt.Errorf("%w: tool_use block %d has no name", dream.ErrMalformedReply, i)
			}
			args := "{}"
			if len(c.Input) > 0 {
				b, err := json.Marshal(c.Input)
				if err != nil {
					return dream.Message{}, fmt.Errorf("%w: tool_use block %d: %v", dream.ErrMalformedReply, i, err)
				}
				args = string(b)
			}
			size += len(args)
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", i) // the tool result must still be paired
			}
			msg.ToolCalls = append(msg.ToolCalls, dream.ToolCall{ID: id, Type: "function",
				Function: dream.FunctionCall{Name: c.Name, Arguments: args}})
		default:
			return dream.Message{}, fmt.Errorf("%w: sampling content block %d is %T, want text or tool_use", dream.ErrMalformedReply, i, c)
		}
		if size > dream.MaxReplyBytes {
			return dream.Message{}, fmt.Errorf("sampling result is over %d bytes; the limit is %d", size, dream.MaxReplyBytes)
		}
	}
	msg.Content = strings.Join(text, "\n")
	return msg, nil
}
