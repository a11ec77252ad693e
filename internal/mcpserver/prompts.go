package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PromptName is the prompt that brings somni's context into a conversation.
const PromptName = "somni-context"

func (s *Server) addPrompts() {
	s.mcp.AddPrompt(&mcp.Prompt{Name: PromptName, Title: "somni: who I am, open intentions, how to use memory",
		Description: "The agent's identity, the user's profile, open intentions and the memory rules, as DSH puts them into its system prompt.",
		Arguments: []*mcp.PromptArgument{
			{Name: "user_id", Description: "whose profile to include (default: the single-user profile)"},
			{Name: "message", Description: "the message being answered: intentions whose cue words it mentions are listed too"},
		}}, s.getContextPrompt)
}

// getContextPrompt is prompt.build's three sections as one user message.
func (s *Server) getContextPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	params := map[string]any{}
	if req.Params != nil {
		if v := strings.TrimSpace(req.Params.Arguments["user_id"]); v != "" {
			params["speakerUserId"] = v
		}
		if v := req.Params.Arguments["message"]; strings.TrimSpace(v) != "" {
			params["currentMessage"] = v
		}
	}
	var p struct {
		Identity   string `json:"identity"`
		Intentions string `json:"intentions"`
		Discipline string `json:"discipline"`
	}
	if err := s.call(ctx, "prompt.build", params, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", PromptName, err)
	}
	return &mcp.GetPromptResult{Description: "somni memory context",
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: ContextText(p.Identity, p.Intentions, p.Discipline)}}}}, nil
}

// ContextText joins prompt.build's sections the way the DSH plugin puts
// them into a system prompt: non-empty ones, a blank line apart.
func ContextText(identity, intentions, discipline string) string {
	var parts []string
	for _, p := range []string{identity, intentions, discipline} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n\n")
}
