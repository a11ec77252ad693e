package sidecar

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/somni-dev/somni/internal/present"
	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/share"
	"github.com/somni-dev/somni/internal/toolspec"
)

// shares binds the explicit share (package share) to the work tools and
// the method table: the share_memory tool, listed only when a team pool is
// mounted (a tool that could only refuse would cost every request its
// schema), and team.list and share.* for the Memory tab: a job of its own
// over the server's store and pools, as the tab's methods are.
type shares struct{ s *Server }

// machinery is package share over the personal store and the mounted
// pools, each written through the store the index reads it with.
func (sh shares) machinery() *share.Shares {
	return share.New(sh.s.store, sh.s.pools)
}

// tools are the share work tools: none when no team pool is mounted.
func (sh shares) tools() []*toolspec.Tool[ToolEnv] {
	if len(sh.s.pools) == 0 {
		return nil
	}
	names := sh.machinery().Teams()
	return []*toolspec.Tool[ToolEnv]{toolspec.MustTool("share_memory",
		fmt.Sprintf("Propose sharing a memory with a team (%s); a person approves it first. No secrets.", strings.Join(names, ", ")),
		sh.shareMemory)}
}

type shareArgs struct {
	Team        string `json:"team" desc:"team name"`
	Name        string `json:"name" desc:"slug naming the topic, e.g. staging-pg-port"`
	EntryType   string `json:"entry_type" desc:"fact, decision, pitfall, procedure or preference" default:"fact"`
	Description string `json:"description" desc:"one sentence: when it helps"`
	Body        string `json:"body" desc:"Markdown, worded for the whole team"`
}

// shareMemory proposes a share: the proposal waits for a person, the pool
// is untouched. A refusal (unknown team, bad name, a secret) is an
// argument error naming the argument, and nothing is written.
func (sh shares) shareMemory(ctx context.Context, env ToolEnv, a shareArgs) (string, error) {
	p, err := sh.machinery().Propose(ctx, share.Input{Team: a.Team, Name: a.Name, Type: a.EntryType,
		Description: a.Description, Body: a.Body, Session: env.SessionID})
	var r *share.Refusal
	if errors.As(err, &r) {
		return "", &toolspec.ArgError{Arg: r.Arg, Msg: r.Msg}
	}
	if err != nil {
		return "", err
	}
	return present.ShareProposed(p.Name, p.Team, p.ID), nil
}

// methods are team.list and share.*: the Memory tab's view of the pools
// and the proposals.
func (sh shares) methods() map[string]rpc.Handler {
	return map[string]rpc.Handler{
		"team.list":     method("team.list", sh.teamList),
		"share.list":    method("share.list", sh.list),
		"share.approve": method("share.approve", sh.approve),
		"share.reject":  method("share.reject", sh.reject),
	}
}

// TeamInfo is one mounted pool in team.list.
type TeamInfo struct {
	Name    string `json:"name"`
	Folder  string `json:"folder"`           // the pool folder
	Remote  string `json:"remote,omitempty"` // a cloned pool's team repository, credentials left out
	Cloned  bool   `json:"cloned"`           // synced by `team sync` (else the project's repository holds it)
	Entries int    `json:"entries"`
}

func (sh shares) teamList(ctx context.Context, _ noParams) (any, error) {
	out := make([]TeamInfo, 0, len(sh.s.pools))
	for _, p := range sh.s.pools {
		refs, err := p.Store.Scan(ctx)
		if err != nil {
			return nil, fmt.Errorf("team.list: %s: %w", p.Name, err)
		}
		out = append(out, TeamInfo{Name: p.Name, Folder: p.Root, Remote: p.Remote(), Cloned: p.Clone != "", Entries: len(refs)})
	}
	return map[string]any{"teams": out}, nil
}

func (sh shares) list(ctx context.Context, _ noParams) (any, error) {
	all, err := sh.machinery().List(ctx)
	if err != nil {
		return nil, err
	}
	if all == nil {
		all = []share.Proposal{}
	}
	return map[string]any{"proposals": all}, nil
}

type approveParams struct {
	ID          string `json:"id" desc:"the proposal's id, TEAM/NAME"`
	Description string `json:"description" desc:"an edited description; empty keeps the proposal's" default:""`
	Body        string `json:"body" desc:"an edited body; empty keeps the proposal's" default:""`
}

// SharedResult is share.approve's reply: where the entry went and how it
// reaches the team.
type SharedResult struct {
	Team     string `json:"team"`
	Name     string `json:"name"`
	Path     string `json:"path"` // in the pool: knowledge/NAME/SKILL.md
	File     string `json:"file"` // the same, absolute
	SharedBy string `json:"sharedBy"`
	Next     string `json:"next"`           // one sentence: pushed by the next team sync, or left to commit
	Note     string `json:"note,omitempty"` // what could not be done beside the write
}

func (sh shares) approve(ctx context.Context, p approveParams) (any, error) {
	done, err := sh.machinery().Approve(ctx, p.ID, share.Edit{Description: p.Description, Body: p.Body})
	if err != nil {
		return nil, refusal(err)
	}
	sh.s.SyncIndexAsync("share.approve")
	return SharedResult{Team: done.Pool.Name, Name: done.Name, Path: done.Rel(), File: done.Path,
		SharedBy: done.SharedBy, Next: done.Next(), Note: done.Note}, nil
}

type rejectParams struct {
	ID string `json:"id" desc:"the proposal's id, TEAM/NAME"`
}

func (sh shares) reject(ctx context.Context, p rejectParams) (any, error) {
	r, err := sh.machinery().Reject(ctx, p.ID)
	if err != nil {
		return nil, refusal(err)
	}
	return map[string]string{"rejected": r.ID}, nil
}

// refusal makes a share's refusal the caller's -32602, in its sentence.
func refusal(err error) error {
	var r *share.Refusal
	if errors.As(err, &r) {
		return rpc.InvalidParams("%s", r.Msg)
	}
	return err
}
