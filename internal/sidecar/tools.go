package sidecar

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/intentions"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/present"
	"github.com/somni-dev/somni/internal/toolspec"
	"github.com/somni-dev/somni/internal/usage"
)

// ToolEnv is the per-call context of a work tool.
type ToolEnv struct {
	SessionID string
	UserID    string
	trace     *toolTrace // what the call surfaced, for the Memory tab's session view (nil: not traced)
}

func newWorkTools(s *Server) (*toolspec.Registry[ToolEnv], error) {
	tools := []*toolspec.Tool[ToolEnv]{
		toolspec.MustTool("recall_memories",
			"Search long-term memory (knowledge, skills, episodes). Use when the user refers to past work, preferences, people or projects.",
			s.recallMemories),
		toolspec.MustTool("search_episodes",
			"Find past events (tasks, incidents, outcomes) by words, dates or tags; no query lists the latest.",
			s.searchEpisodes),
		toolspec.MustTool("search_recent_conversation",
			"Search what was said earlier in this conversation, then older ones; no query returns the latest turns.",
			s.searchRecentConversation),
		toolspec.MustTool("search_knowledge",
			"Search stored facts, decisions, pitfalls and preferences; no query lists the strongest.",
			s.searchKnowledge),
		toolspec.MustTool("add_intention",
			"Set a reminder to do something later, with an optional due date and cue words that bring it back.",
			s.addIntention),
		toolspec.MustTool("complete_intention", "Mark an intention done.", s.completeIntention),
		toolspec.MustTool("cancel_intention", "Drop an intention that no longer applies.", s.cancelIntention),
		toolspec.MustTool("list_intentions", "List open intentions: ids, due dates, cues.", s.listIntentions),
	}
	// share_memory, when a team pool is mounted
	return toolspec.NewRegistry(append(tools, shares{s}.tools()...)...)
}

type recallArgs struct {
	Query string `json:"query" desc:"key terms or the user's words"`
	Types string `json:"types" desc:"comma list: knowledge, skill, episode, or an entry type" default:""`
	Limit int    `json:"limit" desc:"1-20" default:"5" clamp:"1,20"`
}

func (s *Server) recallMemories(ctx context.Context, env ToolEnv, a recallArgs) (string, error) {
	types := ParseRecallTypes(a.Types)
	hits, err := s.search(ctx, types.Narrow(index.Query{Text: a.Query, Limit: a.Limit}))
	if err != nil {
		return "", err
	}
	hits = types.Filter(hits, a.Limit)
	env.trace.recall(a.Query, hits)
	s.reinforce(hits)
	return present.RecallAnswer(a.Query, index.Shown(hits), s.renderOptions()), nil
}

type episodeArgs struct {
	Query string `json:"query" desc:"words to look for" default:""`
	Since string `json:"since" desc:"from: YYYY-MM-DD or words (\"last friday\", \"3 days ago\")" default:""`
	Until string `json:"until" desc:"to (inclusive), same forms" default:""`
	Tags  string `json:"tags" desc:"comma list; any one matches" default:""`
	Limit int    `json:"limit" desc:"1-50" default:"20" clamp:"1,50"`
}

func (s *Server) searchEpisodes(ctx context.Context, env ToolEnv, a episodeArgs) (string, error) {
	since, sinceEcho, err := s.dayArg("since", a.Since)
	if err != nil {
		return "", err
	}
	until, untilEcho, err := s.dayArg("until", a.Until)
	if err != nil {
		return "", err
	}
	until = endOfDay(until)
	if !since.IsZero() && !until.IsZero() && since.After(until) {
		// An empty range is a swapped pair, not "no episodes".
		return "", &toolspec.ArgError{Arg: "since", Msg: fmt.Sprintf("%s is after until %s", sinceEcho, untilEcho)}
	}
	q := index.Query{Text: a.Query, Kinds: []string{index.KindEpisode}, Since: since, Until: until,
		Tags: splitList(a.Tags), Limit: a.Limit}
	// An empty query lists (newest first); only ranked results count as use.
	hits, err := s.search(ctx, q)
	if err != nil {
		return "", err
	}
	env.trace.recall(a.Query, hits)
	scope := present.Filters(sinceEcho, untilEcho, strings.TrimSpace(a.Tags))
	return s.searchResult(hits, a.Query, "episodes"+scope, "newest first", "No episodes found"+scope+"."), nil
}

type knowledgeArgs struct {
	Query     string `json:"query" desc:"words to look for" default:""`
	EntryType string `json:"entry_type" desc:"fact, decision, pitfall, preference, experience, user…" default:""`
	Limit     int    `json:"limit" desc:"1-20" default:"10" clamp:"1,20"`
}

func (s *Server) searchKnowledge(ctx context.Context, env ToolEnv, a knowledgeArgs) (string, error) {
	q := index.Query{Text: a.Query, Kinds: []string{index.KindKnowledge}, EntryType: strings.TrimSpace(a.EntryType), Limit: a.Limit}
	// An empty query lists the strongest entries (knowledge has no date);
	// only ranked results count as use.
	hits, err := s.search(ctx, q)
	if err != nil {
		return "", err
	}
	env.trace.recall(a.Query, hits)
	what := "knowledge entries"
	if q.EntryType != "" {
		what = "knowledge entries of type " + present.Quote(q.EntryType)
	}
	return s.searchResult(hits, a.Query, what, "strongest first", "No "+what+" found."), nil
}

// searchResult is a search tool's answer: "N <what>, best first" with the
// hits for a query, "N <what>, <listOrder>" for a listing (an empty query),
// none when nothing matched. Only ranked hits are reinforced: a listing is
// not use.
func (s *Server) searchResult(hits []index.Hit, query, what, listOrder, none string) string {
	ranked := strings.TrimSpace(query) != ""
	if ranked {
		s.reinforce(hits)
	}
	return present.SearchAnswer(index.Shown(hits), query, what, listOrder, none, s.renderOptions())
}

// renderOptions is how every recall tool shows memory: bodies quoted, paths
// relative to the data directory (the model needs no home directory to tell
// files apart) or a team pool's entry by its origin.
func (s *Server) renderOptions() present.RenderOptions {
	return present.RenderOptions{BodyChars: present.RecallBodyChars, ShowPath: names{s.store, s.pools}.show}
}

// search runs q on the index, waiting for it to open if needed. It
// returns what is worth showing (Evident): a memory barely above the
// embedder's noise is neither shown to the model nor reinforced as used.
func (s *Server) search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	ix, err := s.syncedIndex(ctx)
	if err != nil {
		return nil, err
	}
	hits, err := ix.Search(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return Evident(hits), nil
}

func filterHits(hits []index.Hit, keep func(index.Doc) bool, limit int) []index.Hit {
	out := hits[:0]
	for _, h := range hits {
		if keep(h.Doc) && len(out) < limit {
			out = append(out, h)
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	s = strings.TrimSpace(s)
	for _, x := range list {
		if strings.EqualFold(strings.TrimSpace(x), s) {
			return true
		}
	}
	return false
}

// reinforce journals what recall returned; the next dream applies it
// (record_usage; episodes +0.03).
func (s *Server) reinforce(hits []index.Hit) {
	if len(hits) == 0 {
		return
	}
	paths := make([]string, 0, len(hits))
	for _, h := range hits {
		paths = append(paths, h.Doc.Path)
	}
	// One append to the usage journal, folded into the files at the next
	// dream: a recall never rewrites a memory a person may be editing.
	if err := usage.Of(s.store).NoteRecall(paths); err != nil {
		s.log.Warn("reinforce: usage journal", "err", err)
	}
}

type addIntentionArgs struct {
	What     string `json:"what" desc:"what to do, one sentence"`
	Due      string `json:"due" desc:"YYYY-MM-DD or the user's words (\"next friday\", \"明天\"); empty: none" default:""`
	Cue      string `json:"cue" desc:"comma list of words that bring it up when mentioned" default:""`
	Priority string `json:"priority" desc:"high, mid or low" default:"mid"`
	Source   string `json:"source" desc:"origin, e.g. the user's words" default:""`
}

func (s *Server) addIntention(ctx context.Context, env ToolEnv, a addIntentionArgs) (string, error) {
	// Resolved before anything is written: a due date that is not one
	// leaves memory untouched.
	due, dueEcho, err := s.dayArg("due", a.Due)
	if err != nil {
		return "", err
	}
	if now := s.now(); !due.IsZero() && due.Before(time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())) {
		// An intention is something still to do: a day already gone is a
		// slip (a year typed wrong, "ago" for "in"), never a reminder.
		return "", &toolspec.ArgError{Arg: "due", Msg: fmt.Sprintf("%s is in the past (today is %s); give today or a later day", present.DayEcho(due, strings.TrimSpace(a.Due)), dates.Format(now))}
	}
	in := intentions.Input{What: a.What, Cue: a.Cue, Priority: a.Priority, Source: a.Source}
	if !due.IsZero() {
		in.Due = dates.Format(due)
	}
	it, err := intentions.Of(s.store).Add(ctx, in)
	if err != nil {
		return "", err
	}
	env.trace.intention(it)
	return present.IntentionAdded(shownIntention(it), dueEcho), nil
}

type intentionIDArgs struct {
	IntentionID string `json:"intention_id" desc:"e.g. pi-20260101-001"`
}

func (s *Server) completeIntention(ctx context.Context, env ToolEnv, a intentionIDArgs) (string, error) {
	return s.closeIntention(ctx, env, a.IntentionID, "Completed", intentions.Of(s.store).Complete)
}

func (s *Server) cancelIntention(ctx context.Context, env ToolEnv, a intentionIDArgs) (string, error) {
	return s.closeIntention(ctx, env, a.IntentionID, "Cancelled", intentions.Of(s.store).Cancel)
}

func (s *Server) closeIntention(ctx context.Context, env ToolEnv, id, verb string, close func(context.Context, string) (*intentions.Intention, error)) (string, error) {
	id = strings.TrimSpace(id)
	if !intentions.ValidID(id) {
		return "", &toolspec.ArgError{Arg: "intention_id", Msg: present.Quote(id) + " is not an intention id (pi-YYYYMMDD-NNN)"}
	}
	it, err := close(ctx, id)
	if errors.Is(err, memory.ErrNotFound) {
		return present.NoOpenIntention(id), nil
	}
	if err != nil {
		return "", err
	}
	env.trace.intention(it)
	return present.IntentionClosed(verb, shownIntention(it)), nil
}

func (s *Server) listIntentions(ctx context.Context, _ ToolEnv, _ struct{}) (string, error) {
	all, _, err := intentions.Of(s.store).List(ctx)
	if err != nil {
		return "", err
	}
	shown := make([]present.Intention, len(all))
	for i, it := range all {
		shown[i] = shownIntention(it)
	}
	return present.IntentionList(shown), nil
}

// shownIntention is an intention as the tools show it.
func shownIntention(it *intentions.Intention) present.Intention {
	return present.Intention{ID: it.ID, What: it.What, Due: it.Due, Priority: it.Priority, Cues: it.Cues}
}
