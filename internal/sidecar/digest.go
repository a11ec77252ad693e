package sidecar

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/somni-dev/somni/internal/digest"
	"github.com/somni-dev/somni/internal/memory"
)

type digestParams struct {
	SessionID string `json:"sessionId" desc:"host session id"`
	MaxChars  int    `json:"maxChars,omitempty" desc:"the block's budget in characters; 0 ⇒ 1200, at most 2000"`
}

type digestResult struct {
	Text string `json:"text"`
	digest.Counts
}

// sessionDigest answers session.digest: the block the plugin adds to a
// compaction summary, from the session's captured log (what the user
// stated, the intentions and memories its tool calls named) and the hints
// the gate showed it. It reads; it writes nothing and calls no model.
func (s *Server) sessionDigest(ctx context.Context, p digestParams) (any, error) {
	current, _, err := s.gatherTurns(ctx, p.SessionID)
	if err != nil {
		return nil, fmt.Errorf("session.digest: %w", err)
	}
	turns := make([]digest.Turn, len(current))
	for i, t := range current {
		turns[i] = digest.Turn{Role: t.role, At: t.at, Text: t.text, Call: t.call, Result: t.result}
	}
	d := digest.Digest{Statements: digest.Statements(turns)}
	if d.Intentions, err = digestIntentions(ctx, s.store, digest.IntentionIDs(turns)); err != nil {
		return nil, fmt.Errorf("session.digest: %w", err)
	}
	d.Memories = digestMemories(s.store, s.log, s.assoc.hinted(p.SessionID), digest.RecalledFiles(turns))
	text, c := d.Render(p.MaxChars)
	return digestResult{Text: text, Counts: c}, nil
}

// digestIntentions looks the ids up, open ones first, then the archive, so
// the block says what became of each (an id the store no longer has is left out).
func digestIntentions(ctx context.Context, st *memory.Store, ids []string) ([]digest.Intention, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	open, _, err := st.Intentions().List(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]digest.Intention{}
	for _, it := range open {
		byID[it.ID] = digest.Intention{ID: it.ID, State: "open", Due: it.Due, What: it.What}
	}
	if len(byID) < len(ids) {
		closed, err := st.Intentions().Archived(ctx)
		if err != nil {
			return nil, err
		}
		for _, it := range closed {
			if _, ok := byID[it.ID]; !ok {
				byID[it.ID] = digest.Intention{ID: it.ID, State: "closed " + it.Closed, What: it.What}
			}
		}
	}
	var out []digest.Intention
	for _, id := range ids {
		if it, ok := byID[id]; ok {
			out = append(out, it)
		}
	}
	return out, nil
}

// digestMemories names the hinted files (absolute, from the gate) and the
// recalled ones (as recall showed them, relative to the data dir), each once,
// with the name and description the file has now.
func digestMemories(st *memory.Store, log *slog.Logger, hinted, recalled []string) []digest.Memory {
	var out []digest.Memory
	seen := map[string]bool{}
	add := func(abs, how string) {
		if seen[abs] {
			return
		}
		seen[abs] = true
		e, err := st.Load(abs)
		if err != nil {
			log.Debug("session.digest: skip memory", "path", st.Rel(abs), "err", err)
			return
		}
		out = append(out, digest.Memory{Name: e.Name, Path: st.Rel(abs), Description: e.Description(), How: how})
	}
	for _, p := range hinted {
		add(p, "hinted")
	}
	for _, rel := range recalled {
		// Load checks the file is inside the memory roots: a logged name cannot reach out of the data dir.
		add(filepath.Join(st.DataDir(), filepath.FromSlash(rel)), "recalled")
	}
	return out
}
