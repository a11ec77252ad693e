package sidecar

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/somni-dev/somni/internal/browse"
	"github.com/somni-dev/somni/internal/digest"
	"github.com/somni-dev/somni/internal/intentions"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/worktools"
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
// stated, the intentions its tool calls named) and the session's ring (what
// was hinted and recalled). It reads; it writes nothing and calls no model.
func (s *Server) sessionDigest(ctx context.Context, p digestParams) (any, error) {
	current, _, err := worktools.Turns(ctx, s.logs, s.log, p.SessionID)
	if err != nil {
		return nil, fmt.Errorf("session.digest: %w", err)
	}
	turns := make([]digest.Turn, len(current))
	for i, t := range current {
		turns[i] = digest.Turn{Role: t.Role, At: t.At, Text: t.Text, Call: t.Call, Result: t.Result}
	}
	d := digest.Digest{Statements: digest.Statements(turns)}
	if d.Intentions, err = digestIntentions(ctx, s.store, digest.IntentionIDs(turns)); err != nil {
		return nil, fmt.Errorf("session.digest: %w", err)
	}
	d.Memories = digestMemories(s.store, s.log, s.tab.sessions.Events(p.SessionID))
	text, c := d.Render(p.MaxChars)
	return digestResult{Text: text, Counts: c}, nil
}

// digestIntentions looks the ids up, open ones first, then the archive, so
// the block says what became of each (an id the store no longer has is left out).
func digestIntentions(ctx context.Context, st *memory.Store, ids []string) ([]digest.Intention, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	open, _, err := intentions.Of(st).List(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]digest.Intention{}
	for _, it := range open {
		byID[it.ID] = digest.Intention{ID: it.ID, State: "open", Due: it.Due, What: it.What}
	}
	if len(byID) < len(ids) {
		closed, err := intentions.Of(st).Archived(ctx)
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

// Per recall, the hits the digest counts as used: the top ones, as many as
// the hint gate shows at most (a recall's tail is what the model skimmed past).
const recallHitsUsed = 2

// digestMemories names the memories the session's ring says surfaced (the one
// record of what was hinted and recalled in a session, which the Memory tab
// shows too): every hinted one and the top hits of each recall, each once,
// newest first up to the digest's cap, with the name and description the file
// has now. events come newest first, as Sessions.Events gives them.
func digestMemories(st *memory.Store, log *slog.Logger, events []browse.Event) []digest.Memory {
	var out []digest.Memory
	seen := map[string]bool{}
	for _, ev := range events {
		items, how := ev.Items, "hinted"
		switch ev.Kind {
		case "hint":
		case "recall":
			items, how = items[:min(len(items), recallHitsUsed)], "recalled"
		default:
			continue
		}
		for _, it := range items {
			if len(out) == digest.MaxMemories {
				break
			}
			if seen[it.Path] || it.Path == "" {
				continue
			}
			seen[it.Path] = true
			// Load checks the file is inside the memory roots: a recorded name cannot reach out of the data dir.
			e, err := st.Load(filepath.Join(st.DataDir(), filepath.FromSlash(it.Path)))
			if err != nil {
				log.Debug("session.digest: skip memory", "path", it.Path, "err", err)
				continue
			}
			out = append(out, digest.Memory{Name: e.Name, Path: it.Path, Description: e.Description(), How: how})
		}
	}
	// The ring is newest first; the block reads in session order.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
