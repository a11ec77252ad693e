package sidecar

import (
	"context"
	"sync/atomic"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/index"
)

// assocGate answers assoc.thought/action/reset through internal/assoc once
// the index is open. Before that it surfaces nothing: the plugin waits
// half a second for a hint, and no hint is better than a late one.
type assocGate struct {
	cfg  assoc.Config
	gate atomic.Pointer[assoc.Gate]
}

// bind creates the gate over a freshly opened index.
func (a *assocGate) bind(ix *index.Index, s *Server) {
	cfg := a.cfg
	cfg.ShowPath = names{s.store, s.pools}.show // hints name files as the dreamer does: no home directory
	a.gate.Store(assoc.New(ix, cfg, s.cfg.Logger.With(LoggerKey, "somni.assoc")))
}

func (a *assocGate) thought(ctx context.Context, p thoughtParams) (assoc.Result, error) {
	g := a.gate.Load()
	if g == nil {
		return assoc.Result{Items: []assoc.Item{}}, nil
	}
	return g.Thought(ctx, p.SessionID, p.Cue)
}

func (a *assocGate) action(ctx context.Context, p actionParams) (assoc.Result, error) {
	g := a.gate.Load()
	if g == nil {
		return assoc.Result{Items: []assoc.Item{}}, nil
	}
	return g.Action(ctx, p.SessionID, p.ToolName, p.Args)
}

func (a *assocGate) reset(sessionID string) {
	if g := a.gate.Load(); g != nil {
		g.Reset(sessionID)
	}
}
