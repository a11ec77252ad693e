package sidecar

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/present"
	"github.com/somni-dev/somni/internal/sessionlog"
	"github.com/somni-dev/somni/internal/textcut"
)

// convLogsScanned bounds how many of the newest session logs one search
// reads; older history is the episodes' job.
const convLogsScanned = 60

// convTurnChars caps one turn in the output so a pasted document cannot eat
// the whole budget.
const convTurnChars = 1500

type convArgs struct {
	Query string `json:"query" desc:"words to look for" default:""`
	Limit int    `json:"limit" desc:"1-50" default:"20" clamp:"1,50"`
}

// turn is one block of a session log.
type turn struct {
	log     string // log file base name
	role    string // user | agent | tool
	speaker string
	when    time.Time
	at      string // header time as written
	text    string
	call    string // tool turns: the call and its result as logged
	result  string
	seq     int // order across all gathered turns, ascending = older
}

// searchRecentConversation searches the current session first (its logs by
// chat_id, open, rotated or archived), then older logs of other sessions.
// The char budget is spent newest-first, so the newest turns always survive.
func (s *Server) searchRecentConversation(ctx context.Context, env ToolEnv, a convArgs) (string, error) {
	current, older, err := s.gatherTurns(ctx, env.SessionID)
	if err != nil {
		return "", err
	}
	env.trace.recall(a.Query, nil)
	query := strings.TrimSpace(a.Query)
	var curSel, oldSel []turn
	if query == "" {
		curSel = newestTurns(current, a.Limit)
		oldSel = newestTurns(older, a.Limit-len(curSel))
	} else {
		if curSel, err = s.rankTurns(ctx, query, current, a.Limit); err != nil {
			return "", err
		}
		if len(curSel) < a.Limit {
			if oldSel, err = s.rankTurns(ctx, query, older, a.Limit-len(curSel)); err != nil {
				return "", err
			}
		}
	}
	budget := s.cfg.ConvCharBudget
	curSel, budget = fitBudget(curSel, budget)
	oldSel, _ = fitBudget(oldSel, budget)
	var parts []present.Conversation
	if env.SessionID != "" {
		parts = append(parts, present.Conversation{Title: "This conversation", Turns: shownTurns(curSel, query)})
	}
	parts = append(parts, present.Conversation{Title: "Earlier conversations", Turns: shownTurns(oldSel, query)})
	return present.ConversationAnswer(query, parts...), nil
}

// shownTurns are turns as the answer shows them: a listing (no query)
// reads oldest to newest, a search best match first.
func shownTurns(ts []turn, query string) []present.Turn {
	if query == "" {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].seq < ts[j].seq })
	}
	out := make([]present.Turn, len(ts))
	for i, t := range ts {
		who := t.role
		if t.speaker != "" {
			who += ":" + t.speaker
		}
		out[i] = present.Turn{Who: who, At: t.at, Text: t.text}
	}
	return out
}

// gatherTurns reads the newest logs and splits their turns into the current
// session's and everyone else's, each ordered oldest to newest.
func (s *Server) gatherTurns(ctx context.Context, sessionID string) (current, older []turn, err error) {
	files, err := s.logs.Files(ctx, true)
	if err != nil {
		return nil, nil, fmt.Errorf("search_recent_conversation: %w", err)
	}
	if len(files) > convLogsScanned {
		files = files[len(files)-convLogsScanned:]
	}
	seq := 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		l, err := s.logs.Read(f)
		if err != nil {
			s.log.Debug("search_recent_conversation: skip log", "path", f, "err", err)
			continue
		}
		mine := sessionID != "" && l.ChatID() == sessionID
		for _, blk := range l.Blocks {
			t := turn{log: filepath.Base(l.Path), role: blk.Role, speaker: blk.Speaker, at: blk.Time, call: blk.Call, result: blk.Result, seq: seq}
			seq++
			t.when = blk.When()
			if blk.Role == "tool" {
				t.text = toolTurnText(blk)
			} else {
				t.text = strings.TrimSpace(blk.Text)
			}
			if t.text == "" {
				continue
			}
			if mine {
				current = append(current, t)
			} else {
				older = append(older, t)
			}
		}
	}
	return current, older, nil
}

func toolTurnText(b sessionlog.Block) string {
	var parts []string
	if b.Reason != "" {
		parts = append(parts, "why: "+b.Reason)
	}
	if b.Call != "" {
		parts = append(parts, "call: "+b.Call)
	}
	if b.Result != "" {
		parts = append(parts, "→ "+b.Result)
	}
	if len(parts) == 0 {
		return strings.TrimSpace(b.Text)
	}
	return strings.Join(parts, " ")
}

// newestTurns returns up to n turns, newest first.
func newestTurns(ts []turn, n int) []turn {
	var out []turn
	for i := len(ts) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, ts[i])
	}
	return out
}

// rankTurns scores turns against query with the index's hybrid scorer and
// returns the best n, best first.
func (s *Server) rankTurns(ctx context.Context, query string, ts []turn, n int) ([]turn, error) {
	if len(ts) == 0 || n <= 0 {
		return nil, nil
	}
	ix, err := s.Index(ctx)
	if err != nil {
		return nil, err
	}
	its := make([]index.Turn, len(ts))
	for i, t := range ts {
		its[i] = index.Turn{Path: fmt.Sprintf("#%d", i), Session: t.log, Role: t.role, Text: t.text, When: t.when}
	}
	// index.TurnDocs keeps the role out of scoring (as a name it matched
	// every turn for "user") and lets a reply be found through the turn it
	// answers; the conversation eval ranks exactly these docs.
	hits, err := ix.Scorer().ScoreDocs(ctx, index.Query{Text: query, Limit: n, NoSpread: true}, index.TurnDocs(its))
	if err != nil {
		return nil, fmt.Errorf("search_recent_conversation: %w", err)
	}
	out := make([]turn, 0, len(hits))
	for _, h := range hits {
		var i int
		if _, err := fmt.Sscanf(h.Doc.Path, "#%d", &i); err == nil && i >= 0 && i < len(ts) {
			out = append(out, ts[i])
		}
	}
	return out, nil
}

// fitBudget keeps turns in priority order (newest or best first) while they
// fit in budget runes; the first turn is cut to fit rather than dropped, so
// the newest (or best) turn is always shown. It returns the budget left.
func fitBudget(ts []turn, budget int) ([]turn, int) {
	var out []turn
	for i, t := range ts {
		t.text = textcut.Clip(textcut.OneLine(t.text), convTurnChars, " …")
		n := len([]rune(t.text)) + len(t.at) + 12
		if n > budget {
			if i == 0 && budget > 40 {
				t.text = textcut.Clip(t.text, budget-len(t.at)-14, " …")
				out = append(out, t)
				budget = 0
			}
			break
		}
		out = append(out, t)
		budget -= n
	}
	return out, budget
}
