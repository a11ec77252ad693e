package worktools

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/index/rank"
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

// Turn is one block of a session log.
type Turn struct {
	Log     string // log file base name
	Role    string // user | agent | tool
	Speaker string
	When    time.Time
	At      string // header time as written
	Text    string
	Call    string // tool turns: the call and its result as logged
	Result  string
	seq     int // order across all gathered turns, ascending = older
}

// searchRecentConversation searches the current session first (its logs by
// chat_id, open, rotated or archived), then older logs of other sessions.
// The char budget is spent newest-first, so the newest turns always survive.
func (s *tools) searchRecentConversation(ctx context.Context, env Env, a convArgs) (string, error) {
	current, older, err := Turns(ctx, s.Logs, s.Log, env.SessionID)
	if err != nil {
		return "", err
	}
	env.recall(a.Query, nil)
	query := strings.TrimSpace(a.Query)
	var curSel, oldSel []Turn
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
	budget := s.ConvCharBudget
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
func shownTurns(ts []Turn, query string) []present.Turn {
	if query == "" {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].seq < ts[j].seq })
	}
	out := make([]present.Turn, len(ts))
	for i, t := range ts {
		who := t.Role
		if t.Speaker != "" {
			who += ":" + t.Speaker
		}
		out[i] = present.Turn{Who: who, At: t.At, Text: t.Text}
	}
	return out
}

// Turns reads the newest logs and splits their turns into the session's
// and everyone else's, each ordered oldest to newest: what
// search_recent_conversation searches and session.digest reads.
func Turns(ctx context.Context, logs *sessionlog.Logs, log *slog.Logger, sessionID string) (current, older []Turn, err error) {
	files, err := logs.Files(ctx, true)
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
		l, err := logs.Read(f)
		if err != nil {
			log.Debug("search_recent_conversation: skip log", "path", f, "err", err)
			continue
		}
		mine := sessionID != "" && l.ChatID() == sessionID
		for _, blk := range l.Blocks {
			t := Turn{Log: filepath.Base(l.Path), Role: blk.Role, Speaker: blk.Speaker, At: blk.Time, Call: blk.Call, Result: blk.Result, seq: seq}
			seq++
			t.When = blk.When()
			if blk.Role == "tool" {
				t.Text = toolTurnText(blk)
			} else {
				t.Text = strings.TrimSpace(blk.Text)
			}
			if t.Text == "" {
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
func newestTurns(ts []Turn, n int) []Turn {
	var out []Turn
	for i := len(ts) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, ts[i])
	}
	return out
}

// rankTurns scores turns against query with the index's hybrid scorer and
// returns the best n, best first.
func (s *tools) rankTurns(ctx context.Context, query string, ts []Turn, n int) ([]Turn, error) {
	if len(ts) == 0 || n <= 0 {
		return nil, nil
	}
	ix, err := s.Index(ctx)
	if err != nil {
		return nil, err
	}
	its := make([]rank.Turn, len(ts))
	for i, t := range ts {
		its[i] = rank.Turn{Path: fmt.Sprintf("#%d", i), Session: t.Log, Role: t.Role, Text: t.Text, When: t.When}
	}
	// rank.TurnDocs keeps the role out of scoring (as a name it matched
	// every turn for "user") and lets a reply be found through the turn it
	// answers; the conversation eval ranks exactly these docs.
	hits, err := ix.Scorer().ScoreDocs(ctx, rank.Query{Text: query, Limit: n, NoSpread: true}, rank.TurnDocs(its))
	if err != nil {
		return nil, fmt.Errorf("search_recent_conversation: %w", err)
	}
	out := make([]Turn, 0, len(hits))
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
func fitBudget(ts []Turn, budget int) ([]Turn, int) {
	var out []Turn
	for i, t := range ts {
		t.Text = textcut.Clip(textcut.OneLine(t.Text), convTurnChars, " …")
		n := len([]rune(t.Text)) + len(t.At) + 12
		if n > budget {
			if i == 0 && budget > 40 {
				t.Text = textcut.Clip(t.Text, budget-len(t.At)-14, " …")
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
