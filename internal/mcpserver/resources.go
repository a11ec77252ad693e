package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/somni-dev/somni/internal/identity"
	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/sidecar"
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
func (s *Server) addResources(ctx context.Context) {
	s.mcp.AddResource(&mcp.Resource{URI: AboutMeURI, Name: "about_me", Title: "About me (the agent)",
		Description: "The agent's identity as the dreams wrote it (memory/about_me.md).", MIMEType: markdown},
		s.readAboutMe)
	s.mcp.AddResource(&mcp.Resource{URI: IntentionsURI, Name: "intentions", Title: "Open intentions",
		Description: "Things the user asked to be reminded of, due first, with their ids.", MIMEType: markdown},
		s.readIntentions)
	users := s.profileIDs(ctx)
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
func (s *Server) profileIDs(ctx context.Context) []string {
	var res struct{ Users []string }
	if err := s.call(ctx, "profile.users", struct{}{}, &res); err != nil || len(res.Users) == 0 {
		if err != nil {
			s.log.Warn("listing user profiles", "err", err)
		}
		return []string{identity.DefaultUserID}
	}
	return res.Users
}

func markdownResult(uri, text string) *mcp.ReadResourceResult {
	// what a reader of the profile cannot see, the model is not shown either
	text = textcut.Visible(text)
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: markdown, Text: text}}}
}

func (s *Server) readAboutMe(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var me sidecar.Profile
	if err := s.call(ctx, "profile.aboutMe", struct{}{}, &me); err != nil {
		return nil, fmt.Errorf("about_me: %w", err)
	}
	body := strings.TrimSpace(me.Body)
	if body == "" {
		body = "_No identity yet: dreams write it as they learn who the agent is._"
	}
	return markdownResult(req.Params.URI, "# About me\n\n"+body+"\n"), nil
}

func (s *Server) readUser(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, err := url.PathUnescape(strings.TrimPrefix(uri, userURIPrefix))
	if err != nil || !strings.HasPrefix(uri, userURIPrefix) || strings.TrimSpace(id) == "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var prof sidecar.Profile
	if err := s.call(ctx, "profile.aboutUser", map[string]string{"userId": id}, &prof); err != nil {
		// An id no profile folder can hold is the caller's mistake (-32602).
		var re *rpc.Error
		if errors.As(err, &re) && re.Code == rpc.CodeInvalidParams {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, fmt.Errorf("user profile %s: %w", id, err)
	}
	title := "# About the user"
	if id != identity.DefaultUserID {
		title += " " + id
	}
	body := ""
	if prof.Exists {
		if n := prof.Name; n != "" && n != id {
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
