package sidecar

import (
	"context"
	"fmt"

	"github.com/somni-dev/somni/internal/dreamlog"
	"github.com/somni-dev/somni/internal/identity"
	"github.com/somni-dev/somni/internal/rpc"
)

// resources are the methods that read what memory holds beyond the work
// tools: the identity files (package identity) and the dream diaries
// (package dreamlog). The MCP server offers them as resources and in
// dream_status, through this table like every other call.
type resources struct{ s *Server }

func (r resources) methods() map[string]rpc.Handler {
	return map[string]rpc.Handler{
		"profile.users":     method("profile.users", r.users),
		"profile.aboutMe":   method("profile.aboutMe", r.aboutMe),
		"profile.aboutUser": method("profile.aboutUser", r.aboutUser),
		"sleep.diaries":     method("sleep.diaries", r.diaries),
	}
}

// Profile is profile.aboutMe's and profile.aboutUser's answer: Exists false
// (and the rest empty) when there is no such file yet.
type Profile struct {
	Exists bool   `json:"exists"`
	Name   string `json:"name"` // the front-matter name, else the user id
	Body   string `json:"body"`
}

func profileOf(p *identity.Profile) Profile {
	if p == nil {
		return Profile{}
	}
	return Profile{Exists: true, Name: p.Name(), Body: p.Body}
}

// users lists the users with a profile now, "default" (a single-user
// setup's profile) always first.
func (r resources) users(context.Context, noParams) (any, error) {
	return map[string][]string{"users": append([]string{identity.DefaultUserID}, identity.Of(r.s.store).ProfileUserIDs()...)}, nil
}

func (r resources) aboutMe(context.Context, noParams) (any, error) {
	me, err := identity.Of(r.s.store).AboutMe()
	if err != nil {
		return nil, fmt.Errorf("profile.aboutMe: %w", err)
	}
	return profileOf(me), nil
}

type userParams struct {
	UserID string `json:"userId" desc:"the user's id, as the host names them"`
}

// aboutUser reads a user's profile where every reader looks for it; an id
// that cannot name a profile folder is the caller's mistake (-32602).
func (r resources) aboutUser(_ context.Context, p userParams) (any, error) {
	prof, err := identity.Of(r.s.store).AboutUser(p.UserID)
	if err != nil {
		return nil, fmt.Errorf("profile.aboutUser: %w", err)
	}
	return profileOf(prof), nil
}

// Diaries is sleep.diaries' answer: how many dream diaries there are and
// the newest (relative to the data dir; "" when there is none).
type Diaries struct {
	Count  int    `json:"count"`
	Newest string `json:"newest"`
}

func (r resources) diaries(context.Context, noParams) (any, error) {
	logs, err := dreamlog.New(r.s.store).List()
	if err != nil {
		return nil, fmt.Errorf("sleep.diaries: %w", err)
	}
	d := Diaries{Count: len(logs)}
	if len(logs) > 0 {
		d.Newest = r.s.store.Rel(logs[0])
	}
	return d, nil
}
