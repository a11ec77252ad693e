package sidecar

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/browse"
	"github.com/somni-dev/somni/internal/gitsync"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/intentions"
	"github.com/somni-dev/somni/internal/rpc"
)

// CodeConflict is memory.write's (and pin's, forget's, restore's) answer when the file
// changed since the caller's version: in JSON-RPC's server-error range, with
// data {current, version} so the tab can show both texts.
const CodeConflict = -32010

// tab binds the web UI's Memory tab methods (memory.*) to package browse;
// its own type, so Server stays within its method budget.
type tab struct {
	s        *Server
	b        *browse.Browser
	sessions *browse.Sessions
}

func newTab(s *Server) *tab {
	return &tab{s: s, b: browse.New(s.store, s.search).WithPools(s.pools), sessions: browse.NewSessions()}
}

func (t *tab) methods() map[string]rpc.Handler {
	return map[string]rpc.Handler{
		"memory.list":        method("memory.list", t.list),
		"memory.read":        method("memory.read", t.read),
		"memory.write":       method("memory.write", t.write),
		"memory.forget":      method("memory.forget", t.forget),
		"memory.restore":     method("memory.restore", t.restore),
		"memory.create":      method("memory.create", t.create),
		"memory.pin":         method("memory.pin", t.pin),
		"memory.session":     method("memory.session", t.session),
		"memory.health":      method("memory.health", t.health),
		"memory.indexStatus": method("memory.indexStatus", t.indexStatus),
		"memory.dreams":      method("memory.dreams", t.dreams),
		"memory.revertDream": method("memory.revertDream", t.revertDream),
		"memory.export":      method("memory.export", t.export),
	}
}

type listParams struct {
	Kind     string `json:"kind" desc:"knowledge, episode, skill, intention, identity; empty: all" default:""`
	Query    string `json:"query" desc:"ranked by recall's search; empty: newest first" default:""`
	Tag      string `json:"tag" desc:"entries carrying this tag" default:""`
	Since    string `json:"since" desc:"YYYY-MM-DD, inclusive" default:""`
	Until    string `json:"until" desc:"YYYY-MM-DD, inclusive" default:""`
	Archived bool   `json:"archived" desc:"list archived entries instead of active ones" default:"false"`
	Limit    int    `json:"limit" desc:"1-200" default:"50" clamp:"1,200"`
	Offset   int    `json:"offset" desc:"rows to skip" default:"0" clamp:"0,100000"`
}

func (t *tab) list(ctx context.Context, p listParams) (any, error) {
	return t.b.List(ctx, browse.ListQuery{Kind: p.Kind, Query: p.Query, Tag: p.Tag, Since: p.Since, Until: p.Until,
		Archived: p.Archived, Limit: p.Limit, Offset: p.Offset})
}

type pathParams struct {
	Path string `json:"path" desc:"relative to the data directory"`
}

func (t *tab) read(ctx context.Context, p pathParams) (any, error) {
	return t.b.Read(ctx, p.Path)
}

type writeParams struct {
	Path    string `json:"path" desc:"relative to the data directory"`
	Raw     string `json:"raw" desc:"the file's new text"`
	Version string `json:"version" desc:"the version memory.read returned"`
}

func (t *tab) write(ctx context.Context, p writeParams) (any, error) {
	res, err := t.b.Write(ctx, p.Path, p.Raw, p.Version)
	if err != nil {
		return nil, conflictError(err)
	}
	t.s.SyncIndexAsync("memory.write")
	return res, nil
}

type forgetParams struct {
	Path    string `json:"path" desc:"relative to the data directory"`
	Version string `json:"version" desc:"the version memory.read returned; empty: any" default:""`
}

func (t *tab) forget(ctx context.Context, p forgetParams) (any, error) {
	to, err := t.b.Forget(ctx, p.Path, p.Version)
	if err != nil {
		return nil, conflictError(err)
	}
	t.s.SyncIndexAsync("memory.forget")
	return map[string]string{"archivedTo": to}, nil
}

type restoreParams struct {
	Path    string `json:"path" desc:"the archived entry's file, relative to the data directory"`
	Version string `json:"version" desc:"the version memory.read returned; empty: any" default:""`
}

func (t *tab) restore(ctx context.Context, p restoreParams) (any, error) {
	to, err := t.b.Restore(ctx, p.Path, p.Version)
	if err != nil {
		return nil, conflictError(err)
	}
	t.s.SyncIndexAsync("memory.restore")
	return map[string]string{"restoredTo": to}, nil
}

type createParams struct {
	Name        string `json:"name" desc:"a short slug naming the topic, e.g. office-wifi"`
	Type        string `json:"type" desc:"fact, preference, decision, pitfall, experience, user, procedure or insight; empty: fact" default:""`
	Description string `json:"description" desc:"one sentence: when this memory helps"`
	Body        string `json:"body" desc:"the memory in Markdown"`
}

func (t *tab) create(ctx context.Context, p createParams) (any, error) {
	path, err := t.b.Create(ctx, browse.NewEntry{Name: p.Name, Type: p.Type, Description: p.Description, Body: p.Body})
	if err != nil {
		return nil, err
	}
	t.s.SyncIndexAsync("memory.create")
	return map[string]string{"path": path}, nil
}

type pinParams struct {
	Path    string `json:"path" desc:"relative to the data directory"`
	Pinned  bool   `json:"pinned" desc:"true keeps it out of decay and retirement"`
	Version string `json:"version" desc:"the version memory.read returned; empty: any" default:""`
}

func (t *tab) pin(ctx context.Context, p pinParams) (any, error) {
	v, err := t.b.Pin(ctx, p.Path, p.Pinned, p.Version)
	if err != nil {
		return nil, conflictError(err)
	}
	return map[string]string{"version": v}, nil
}

// conflictError turns a browse.Conflict into CodeConflict with the file's
// text and version now; other errors pass on to mapError.
func conflictError(err error) error {
	c, ok := browse.IsConflict(err)
	if !ok {
		return err
	}
	return rpc.Errorf(CodeConflict, "conflict: %s changed on disk since it was read", c.Path).
		WithData(map[string]string{"current": c.Current, "version": c.Version})
}

type dreamsParams struct {
	Limit int `json:"limit" desc:"1-50" default:"20" clamp:"1,50"`
}

func (t *tab) dreams(_ context.Context, p dreamsParams) (any, error) {
	ds, err := t.b.Dreams(p.Limit)
	if err != nil {
		return nil, fmt.Errorf("memory.dreams: %w", err)
	}
	return map[string]any{"dreams": ds}, nil
}

type revertDreamParams struct {
	Dream string   `json:"dream" desc:"the dream's id, as memory.dreams lists it"`
	Paths []string `json:"paths,omitempty" desc:"the entries to undo, as the dream's changes name them; empty: the whole dream"`
}

// revertDream undoes a dream's changes, each compare-and-swapped against
// what the dream wrote: the answer says per entry whether it was undone or
// kept because it changed since.
func (t *tab) revertDream(ctx context.Context, p revertDreamParams) (any, error) {
	undone, err := t.b.RevertDream(ctx, p.Dream, p.Paths)
	if err != nil {
		return nil, err
	}
	for _, u := range undone {
		if u.Outcome == browse.UndoReverted {
			t.s.SyncIndexAsync("memory.revertDream")
			break
		}
	}
	return map[string]any{"undone": undone}, nil
}

type tabSessionParams struct {
	SessionID string `json:"sessionId" desc:"host session id"`
}

func (t *tab) session(_ context.Context, p tabSessionParams) (any, error) {
	if len(p.SessionID) > browse.MaxSessionIDBytes {
		return nil, rpc.InvalidParams("sessionId is over %d bytes", browse.MaxSessionIDBytes)
	}
	return map[string]any{"events": t.sessions.Events(p.SessionID)}, nil
}

// healthResult is memory.health's answer.
type healthResult struct {
	Doctor      []Finding      `json:"doctor"`
	Index       *IndexStats    `json:"index"`
	Entries     map[string]int `json:"entries"`
	PendingLogs int            `json:"pendingLogs"`
	LogTail     []string       `json:"logTail"`
	LogError    string         `json:"logError,omitempty"` // why the log could not be read
	Sync        *SyncState     `json:"sync,omitempty"`     // absent when the data dir is not under sync
}

// health is doctor's findings (Doctor, as `doctor --json` gives them), the
// counts of `stats` (CollectStats) and the log's tail.
func (t *tab) health(ctx context.Context, _ noParams) (any, error) {
	findings, err := Doctor(ctx, t.s.store)
	if err != nil {
		return nil, err
	}
	if findings == nil {
		findings = []Finding{}
	}
	st, err := t.s.CollectStats(ctx)
	if err != nil {
		return nil, fmt.Errorf("memory.health: %w", err)
	}
	res := healthResult{Doctor: findings, Index: st.Index, Entries: st.Entries, PendingLogs: st.PendingLogs, LogTail: []string{}}
	if tail, err := t.b.LogTail(); err != nil {
		// A log the boundary refuses must not hide the rest of the report.
		res.LogError = err.Error()
	} else {
		res.LogTail = tail
	}
	res.Sync = t.syncState(true)
	return res, nil
}

// indexStatusResult is memory.indexStatus's answer: how far the index has
// got, and nothing else.
type indexStatusResult struct {
	Entries  int  `json:"entries"`
	Embedded int  `json:"embedded"`
	Pending  int  `json:"pending"` // entries still waiting for a vector
	Syncing  bool `json:"syncing"`
}

// indexStatus is what the tab's index line polls while the index builds:
// the live index's own counters, read without a sync, doctor, a listing of
// the store or the log (memory.health does all of those, too much to repeat
// every second or two).
func (t *tab) indexStatus(ctx context.Context, _ noParams) (any, error) {
	ix, err := t.s.Index(ctx)
	if err != nil {
		return nil, fmt.Errorf("memory.indexStatus: %w", err)
	}
	st := ix.Status()
	return indexStatusResult{Entries: st.Entries, Embedded: st.Embedded, Pending: st.Pending, Syncing: st.Syncing}, nil
}

// SyncState is how git sync stands on a data dir `sync init` set up, as
// memory.health (with the remote) and ping (without) say it: this
// server's last automatic round when one ran in this process, else the
// last round's record on disk (gitsync.LastRound: a `sync` run by hand,
// or an earlier process's round). Read from files, never by running git:
// both methods answer at once whatever the network does.
type SyncState struct {
	Remote string `json:"remote,omitempty"` // origin's URL, credentials left out (memory.health only)
	InStep bool   `json:"inStep"`           // this machine held what the remote holds after the round
	LastAt string `json:"lastAt"`           // when the round ended, RFC 3339; "" before the first one
	Said   string `json:"said"`             // the round's report, or its failure's sentence
	// Failed: this server's last automatic round failed. A record on disk
	// does not say whether its round failed or only held something back,
	// so it reads false there, and InStep says the rest.
	Failed bool `json:"failed"`
}

// syncState is where sync stands (see SyncState); nil when the data dir
// is not under sync.
func (t *tab) syncState(withRemote bool) *SyncState {
	dir := t.s.store.DataDir()
	if !underSync(dir) {
		return nil
	}
	st := &SyncState{}
	if last := t.s.sync.Last(); !last.At.IsZero() {
		st.InStep, st.Said, st.Failed, st.LastAt = last.InStep, last.Said, last.Failed, last.At.UTC().Format(time.RFC3339)
	} else if rec, ok := gitsync.LastRound(dir); ok {
		st.InStep, st.Said, st.LastAt = rec.InStep, rec.Said, rec.At.UTC().Format(time.RFC3339)
	}
	if withRemote {
		st.Remote = gitsync.RemoteURL(dir)
	}
	return st
}

// toolTrace is what one work-tool call surfaced, for the session ring; its
// methods do nothing on a nil trace (a call not made through tools.call).
type toolTrace struct {
	kind  string // recall | intention; "" ⇒ nothing to record
	query string
	text  string
	hits  []rank.Hit
}

func (t *toolTrace) recall(query string, hits []rank.Hit) {
	if t != nil {
		t.kind, t.query, t.hits = "recall", query, hits
	}
}

func (t *toolTrace) intention(it *intentions.Intention) {
	if t != nil && it != nil {
		t.kind, t.query, t.text = "intention", it.ID, it.What
	}
}

// noteTool records a traced work-tool call in its session's ring.
func (t *tab) noteTool(sessionID, tool string, tr *toolTrace) {
	if tr == nil || tr.kind == "" || sessionID == "" {
		return
	}
	ev := browse.Event{Time: t.s.now(), Kind: tr.kind, Tool: tool, Query: tr.query, Text: tr.text}
	shown := rank.Shown(tr.hits)
	for i, h := range tr.hits {
		ev.Items = append(ev.Items, browse.EventItem{Name: h.Doc.Name, Path: t.b.WirePath(h.Doc.Path),
			Score: math.Round(h.Hybrid*1000) / 1000, Why: shown[i].Why()})
	}
	t.sessions.Add(sessionID, ev)
}

// noteHint records a hint the gate gave (an empty one is not an event).
func (t *tab) noteHint(sessionID, method, cue string, res assoc.Result) {
	if res.Hint == "" || sessionID == "" {
		return
	}
	ev := browse.Event{Time: t.s.now(), Kind: "hint", Tool: method, Query: cue, Text: res.Hint}
	for _, it := range res.Items {
		ev.Items = append(ev.Items, browse.EventItem{Name: it.Name, Path: t.b.WirePath(it.Path), Score: it.Score, Why: it.Why})
	}
	t.sessions.Add(sessionID, ev)
}
