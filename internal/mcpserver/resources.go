package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/somni-dev/somni/internal/identity"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/textcut"
)

// Resource URIs.
const (
	AboutMeURI     = "somni://about_me"
	IntentionsURI  = "somni://intentions"
	userURIPrefix  = "somni://users/"
	userURITmpl    = userURIPrefix + "{user_id}"
	markdown       = "text/markdown"
	defaultUserURI = userURIPrefix + identity.DefaultUserID
)

// addResources serves the identity files and the open intentions: what a
// client may attach to its context without a tool call. Every read goes to
// the files, so hand edits and the other processes' writes show at once.
func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{URI: AboutMeURI, Name: "about_me", Title: "About me (the agent)",
		Description: "The agent's identity as the dreams wrote it (memory/about_me.md).", MIMEType: markdown},
		s.readAboutMe)
	s.mcp.AddResource(&mcp.Resource{URI: IntentionsURI, Name: "intentions", Title: "Open intentions",
		Description: "Things the user asked to be reminded of, due first, with their ids.", MIMEType: markdown},
		s.readIntentions)
	users := s.profileIDs()
	for _, id := range users {
		s.mcp.AddResource(&mcp.Resource{URI: userURIPrefix + url.PathEscape(id), Name: "user-" + id,
			Title: "About the user " + id, Description: "What memory knows about user " + id + " (about_user.md).",
			MIMEType: markdown}, s.readUser)
	}
	// Profiles a dream writes later, or ids no folder name spells.
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: userURITmpl, Name: "user",
		Title: "About a user", Description: "A user's profile by user id (" + defaultUserURI + " is the single-user profile).",
		MIMEType: markdown}, s.readUser)
}

// profileIDs are the users with a profile now; "default" is always listed,
// it is the profile a single-user setup has.
func (s *Server) profileIDs() []string {
	return append([]string{identity.DefaultUserID}, identity.Of(s.store).ProfileUserIDs()...)
}

func markdownResult(uri, text string) *mcp.ReadResourceResult {
	// what a reader of the profile cannot see, the model is not shown either
	text = textcut.Visible(text)
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: markdown, Text: text}}}
}

func (s *Server) readAboutMe(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	me, err := identity.Of(s.store).AboutMe()
	if err != nil {
		return nil, fmt.Errorf("about_me: %w", err)
	}
	body := ""
	if me != nil {
		body = strings.TrimSpace(me.Body)
	}
	if body == "" {
		body = "_No identity yet: dreams write it as they learn who the agent is._"
	}
	return markdownResult(req.Params.URI, "# About me\n\n"+body+"\n"), nil
}

func (s *Server) readUser(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, err := url.PathUnescape(strings.TrimPrefix(uri, userURIPrefix))
	if err != nil || !strings.HasPrefix(uri, userURIPrefix) || strings.TrimSpace(id) == "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	prof, err := identity.Of(s.store).AboutUser(id)
	if err != nil {
		if errors.Is(err, memory.ErrUnsafeName) || errors.Is(err, memory.ErrInvalid) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, fmt.Errorf("user profile %s: %w", id, err)
	}
	title := "# About the user"
	if id != identity.DefaultUserID {
		title += " " + id
	}
	body := ""
	if prof != nil {
		if n := prof.Name(); n != "" && n != id {
			title += " (" + n + ")"
		}
		body = strings.TrimSpace(prof.Body)
	}
	if body == "" {
		body = "_Nothing known yet: dreams write this profile from conversations._"
	}
	return markdownResult(uri, title+"\n\n"+body+"\n"), nil
}

func (s *Server) readIntentions(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	// The list_intentions tool's own text: one rendering for both.
	text, err := s.callTool(ctx, "list_intentions", map[string]any{})
	if err != nil {
		return nil, fmt.Errorf("intentions: %w", err)
	}
	return markdownResult(req.Params.URI, "# Open intentions\n\n"+text+"\n"), nil
}
