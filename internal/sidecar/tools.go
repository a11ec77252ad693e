package sidecar

import (
	"context"

	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/intentions"
	"github.com/somni-dev/somni/internal/toolspec"
	"github.com/somni-dev/somni/internal/worktools"
)

// ToolEnv is the per-call context of a work tool.
type ToolEnv = worktools.Env

// newWorkTools binds the work tools (package worktools) to the server's
// store, session logs and index, and adds share_memory when a team pool is
// mounted.
func newWorkTools(s *Server) (*toolspec.Registry[ToolEnv], error) {
	tools := worktools.New(worktools.Deps{
		Store:          s.store,
		Logs:           s.logs,
		Index:          s.Index,
		Synced:         s.syncedIndex,
		ShowPath:       names{s.store, s.pools}.show,
		ConvCharBudget: s.cfg.ConvCharBudget,
		Now:            s.now,
		Log:            s.log,
	})
	return toolspec.NewRegistry(append(tools, shares{s}.tools()...)...)
}

// traced hands what a work-tool call surfaced to the Memory tab's trace.
type traced struct{ t *toolTrace }

func (tr traced) Recall(query string, hits []rank.Hit) { tr.t.recall(query, hits) }
func (tr traced) Intention(it *intentions.Intention)   { tr.t.intention(it) }

// search is recall's search (worktools.Search) for the Memory tab.
func (s *Server) search(ctx context.Context, q rank.Query) ([]rank.Hit, error) {
	return worktools.Search(ctx, s.syncedIndex, q)
}
