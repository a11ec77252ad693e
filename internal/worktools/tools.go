package worktools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/intentions"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/present"
	"github.com/somni-dev/somni/internal/sessionlog"
	"github.com/somni-dev/somni/internal/toolspec"
	"github.com/somni-dev/somni/internal/usage"
)

// Env is the per-call context of a work tool.
type Env struct {
	SessionID string
	UserID    string
	// Trace is told what the call surfaced, for the Memory tab's session
	// view; nil: not traced.
	Trace Tracer
}

// Tracer is told what a work-tool call surfaced: the hits of a recall or
// search (none for the conversation search), the intention it added or
// closed.
type Tracer interface {
	Recall(query string, hits []rank.Hit)
	Intention(it *intentions.Intention)
}

func (e Env) recall(query string, hits []rank.Hit) {
	if e.Trace != nil {
		e.Trace.Recall(query, hits)
	}
}

func (e Env) intention(it *intentions.Intention) {
	if e.Trace != nil {
		e.Trace.Intention(it)
	}
}

// Deps is what the tools read and write: the store (intentions, the usage
// journal), the session logs, the recall index and the server's clock.
type Deps struct {
	Store *memory.Store
	Logs  *sessionlog.Logs
	// Index is the recall index, opened if need be; Synced is Index after
	// waiting (bounded) for the start-up sync, so a first recall sees the
	// whole store.
	Index, Synced func(context.Context) (*index.Index, error)
	// ShowPath names a hit's file for the model: relative to the data dir,
	// a team pool's entry by its origin.
	ShowPath func(string) string
	// ConvCharBudget bounds search_recent_conversation's answer (runes).
	ConvCharBudget int
	Now            func() time.Time // in the user's zone
	Log            *slog.Logger
}

// tools are the work tools over one Deps.
type tools struct {
	Deps
}

// New returns the work tools over d, in the order tools.list gives them.
func New(d Deps) []*toolspec.Tool[Env] {
	s := &tools{d}
	return []*toolspec.Tool[Env]{
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
}

type recallArgs struct {
	Query string `json:"query" desc:"key terms or the user's words"`
	Types string `json:"types" desc:"comma list: knowledge, skill, episode, or an entry type" default:""`
	Limit int    `json:"limit" desc:"1-20" default:"5" clamp:"1,20"`
}

func (s *tools) recallMemories(ctx context.Context, env Env, a recallArgs) (string, error) {
	types := ParseRecallTypes(a.Types)
	hits, err := s.search(ctx, types.Narrow(rank.Query{Text: a.Query, Limit: a.Limit}))
	if err != nil {
		return "", err
	}
	hits = types.Filter(hits, a.Limit)
	env.recall(a.Query, hits)
	s.reinforce(hits)
	return present.RecallAnswer(a.Query, rank.Shown(hits), s.renderOptions()), nil
}

type episodeArgs struct {
	Query string `json:"query" desc:"words to look for" default:""`
	Since string `json:"since" desc:"from: YYYY-MM-DD or words (\"last friday\", \"3 days ago\")" default:""`
	Until string `json:"until" desc:"to (inclusive), same forms" default:""`
	Tags  string `json:"tags" desc:"comma list; any one matches" default:""`
	Limit int    `json:"limit" desc:"1-50" default:"20" clamp:"1,50"`
}

func (s *tools) searchEpisodes(ctx context.Context, env Env, a episodeArgs) (string, error) {
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
	q := rank.Query{Text: a.Query, Kinds: []string{rank.KindEpisode}, Since: since, Until: until,
		Tags: memory.SplitList(a.Tags), Limit: a.Limit}
	// An empty query lists (newest first); only ranked results count as use.
	hits, err := s.search(ctx, q)
	if err != nil {
		return "", err
	}
	env.recall(a.Query, hits)
	scope := present.Filters(sinceEcho, untilEcho, strings.TrimSpace(a.Tags))
	return s.searchResult(hits, a.Query, "episodes"+scope, "newest first", "No episodes found"+scope+"."), nil
}

type knowledgeArgs struct {
	Query     string `json:"query" desc:"words to look for" default:""`
	EntryType string `json:"entry_type" desc:"fact, decision, pitfall, preference, experience, user…" default:""`
	Limit     int    `json:"limit" desc:"1-20" default:"10" clamp:"1,20"`
}

func (s *tools) searchKnowledge(ctx context.Context, env Env, a knowledgeArgs) (string, error) {
	q := rank.Query{Text: a.Query, Kinds: []string{rank.KindKnowledge}, EntryType: strings.TrimSpace(a.EntryType), Limit: a.Limit}
	// An empty query lists the strongest entries (knowledge has no date);
	// only ranked results count as use.
	hits, err := s.search(ctx, q)
	if err != nil {
		return "", err
	}
	env.recall(a.Query, hits)
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
func (s *tools) searchResult(hits []rank.Hit, query, what, listOrder, none string) string {
	ranked := strings.TrimSpace(query) != ""
	if ranked {
		s.reinforce(hits)
	}
	return present.SearchAnswer(rank.Shown(hits), query, what, listOrder, none, s.renderOptions())
}

// renderOptions is how every recall tool shows memory: bodies quoted, paths
// relative to the data directory (the model needs no home directory to tell
// files apart) or a team pool's entry by its origin.
func (s *tools) renderOptions() present.RenderOptions {
	return present.RenderOptions{BodyChars: present.RecallBodyChars, ShowPath: s.ShowPath}
}

func (s *tools) search(ctx context.Context, q rank.Query) ([]rank.Hit, error) {
	return Search(ctx, s.Synced, q)
}

// Search runs q on the index synced gives, waiting for it as synced does.
// It returns what is worth showing (Evident): a memory barely above the
// embedder's noise is neither shown to the model nor reinforced as used.
// The Memory tab searches with it too, so it lists what recall would show.
func Search(ctx context.Context, synced func(context.Context) (*index.Index, error), q rank.Query) ([]rank.Hit, error) {
	ix, err := synced(ctx)
	if err != nil {
		return nil, err
	}
	hits, err := ix.Search(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return Evident(hits), nil
}

func filterHits(hits []rank.Hit, keep func(rank.Doc) bool, limit int) []rank.Hit {
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
func (s *tools) reinforce(hits []rank.Hit) {
	if len(hits) == 0 {
		return
	}
	paths := make([]string, 0, len(hits))
	for _, h := range hits {
		paths = append(paths, h.Doc.Path)
	}
	// One append to the usage journal, folded into the files at the next
	// dream: a recall never rewrites a memory a person may be editing.
	if err := usage.Of(s.Store).NoteRecall(paths); err != nil {
		s.Log.Warn("reinforce: usage journal", "err", err)
	}
}

type addIntentionArgs struct {
	What     string `json:"what" desc:"what to do, one sentence"`
	Due      string `json:"due" desc:"YYYY-MM-DD or the user's words (\"next friday\", \"明天\"); empty: none" default:""`
	Cue      string `json:"cue" desc:"comma list of words that bring it up when mentioned" default:""`
	Priority string `json:"priority" desc:"high, mid or low" default:"mid"`
	Source   string `json:"source" desc:"origin, e.g. the user's words" default:""`
}

func (s *tools) addIntention(ctx context.Context, env Env, a addIntentionArgs) (string, error) {
	// Resolved before anything is written: a due date that is not one
	// leaves memory untouched.
	due, dueEcho, err := s.dayArg("due", a.Due)
	if err != nil {
		return "", err
	}
	if now := s.Now(); !due.IsZero() && due.Before(time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())) {
		// An intention is something still to do: a day already gone is a
		// slip (a year typed wrong, "ago" for "in"), never a reminder.
		return "", &toolspec.ArgError{Arg: "due", Msg: fmt.Sprintf("%s is in the past (today is %s); give today or a later day", present.DayEcho(due, strings.TrimSpace(a.Due)), dates.Format(now))}
	}
	in := intentions.Input{What: a.What, Cue: a.Cue, Priority: a.Priority, Source: a.Source}
	if !due.IsZero() {
		in.Due = dates.Format(due)
	}
	it, err := intentions.Of(s.Store).Add(ctx, in)
	if err != nil {
		return "", err
	}
	env.intention(it)
	return present.IntentionAdded(shownIntention(it), dueEcho), nil
}

type intentionIDArgs struct {
	IntentionID string `json:"intention_id" desc:"e.g. pi-20260101-001"`
}

func (s *tools) completeIntention(ctx context.Context, env Env, a intentionIDArgs) (string, error) {
	return s.closeIntention(ctx, env, a.IntentionID, "Completed", intentions.Of(s.Store).Complete)
}

func (s *tools) cancelIntention(ctx context.Context, env Env, a intentionIDArgs) (string, error) {
	return s.closeIntention(ctx, env, a.IntentionID, "Cancelled", intentions.Of(s.Store).Cancel)
}

func (s *tools) closeIntention(ctx context.Context, env Env, id, verb string, close func(context.Context, string) (*intentions.Intention, error)) (string, error) {
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
	env.intention(it)
	return present.IntentionClosed(verb, shownIntention(it)), nil
}

func (s *tools) listIntentions(ctx context.Context, _ Env, _ struct{}) (string, error) {
	all, _, err := intentions.Of(s.Store).List(ctx)
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
