package dream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/dreamlog"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/identity"
	"github.com/somni-dev/somni/internal/intentions"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/present"
	"github.com/somni-dev/somni/internal/sessionlog"
	"github.com/somni-dev/somni/internal/textcut"
)

// toolOutcome is what one tool call did, as far as the loop cares.
type toolOutcome struct {
	// Text is the answer shown to the model (errors included: the loop goes on).
	Text string
	// Changed is set when the call wrote to memory.
	Changed bool
	// ReadLog is the canonical path of the session log whose raw text Text holds.
	ReadLog string
	// ProcessedLog is the canonical path of a log this call archived.
	ProcessedLog string
	// Duplicate is set when a create was refused because memory already
	// holds the item: nothing is lost, so it is not a failed write.
	Duplicate bool
	// Partial says what a write that changed memory left undone (with
	// Changed): the dream's result names it, so it is never silent.
	Partial string
}

func refused(format string, args ...any) toolOutcome {
	return toolOutcome{Text: errorf(format, args...)}
}

// toolbox executes the dreamer's tools on a memory store.
type toolbox struct {
	st      *memory.Store
	logs    *sessionlog.Logs
	diaries *dreamlog.Diaries
	now     func() time.Time
	log     *slog.Logger
}

func newToolbox(st *memory.Store, logs *sessionlog.Logs, now func() time.Time, log *slog.Logger) *toolbox {
	return &toolbox{st: st, logs: logs, diaries: dreamlog.New(st), now: now, log: log}
}

func (tb *toolbox) specs() []Tool { return toolSpecs() }

// exec validates and runs one tool call; it never panics on model input, and
// every refusal is an answer the model can act on.
func (tb *toolbox) exec(ctx context.Context, tc ToolCall) (out toolOutcome) {
	name := tc.Function.Name
	if !registry().Has(name) {
		return refused("unknown tool %q; available: %s", name, toolNames())
	}
	c := &call{tb: tb}
	defer func() {
		if p := recover(); p != nil {
			tb.log.Error("dream tool panicked", "tool", name, "panic", p)
			out = refused("%s failed internally", name)
		}
	}()
	text, err := registry().Call(ctx, name, c, json.RawMessage(tc.Function.Arguments))
	if err != nil {
		// Only bad calls reach here: handlers answer in text.
		out = refused("%v", err)
	} else {
		out = c.out
		out.Text = present.ClipAnswer(name, text, MaxReadRunes)
	}
	lvl := slog.LevelDebug
	if strings.HasPrefix(out.Text, errPrefix) {
		lvl = slog.LevelInfo
	}
	tb.log.Log(ctx, lvl, "dream tool", "tool", name, "changed", out.Changed, "answer", textcut.Clip(out.Text, 160, "…"))
	return out
}

func toolNames() string {
	names := make([]string, len(toolSpecs()))
	for i, t := range toolSpecs() {
		names[i] = t.Function.Name
	}
	return strings.Join(names, ", ")
}

// errorf formats a refusal for the model.
func errorf(format string, args ...any) string { return errPrefix + fmt.Sprintf(format, args...) }

const errPrefix = "Error: "

func (tb *toolbox) createKnowledge(ctx context.Context, c *call, a createKnowledgeArgs) string {
	in := memory.KnowledgeInput{Name: a.Name, Type: a.EntryType, Description: a.Description, Body: a.Body, Verified: a.Verified}
	old := strings.TrimSpace(a.Supersedes)
	if old == "" {
		e, err := tb.st.CreateKnowledge(ctx, in)
		return tb.created(c, toolCreateKnowledge, "knowledge entry", e, err)
	}
	e, err := tb.st.SupersedeKnowledge(ctx, old, in)
	return tb.superseding(c, old, e, err)
}

// superseding answers a create_knowledge that supersedes old. A MarkError is
// checked first: it may wrap ErrNotFound (the old file gone during the
// rewrite), and then the new entry was written all the same.
func (tb *toolbox) superseding(c *call, old string, e *memory.Entry, err error) string {
	var mark *memory.MarkError
	switch {
	case errors.As(err, &mark):
		// The new fact is on disk; only the old entry's marker is missing.
		// Said here and in the dream's result, never left silent.
		tb.log.Warn("dream: superseded entry not marked", "entry", tb.st.Rel(mark.Old), "by", e.Name, "err", mark.Err)
		why := rootCause(mark.Err)
		c.out.Changed = true
		c.out.Partial = fmt.Sprintf("created %s, but %s was not marked superseded_by it (%s)", present.ShowExact(e.Name), tb.rel(mark.Old), why)
		return fmt.Sprintf("Created knowledge entry %s with supersedes: %s, but %s could not be marked superseded_by %s (%s): on its own it still reads as current; the new entry's supersedes links the two. Say so in your summary.",
			present.ShowExact(e.Name), present.ShowExact(old), tb.rel(mark.Old), present.ShowExact(e.Name), why)
	case errors.Is(err, memory.ErrNotFound):
		return errorf("%s: supersedes %q: no knowledge entry has that name (%v), so nothing was written. Check list_items for the exact name, or leave supersedes empty when nothing is replaced.",
			toolCreateKnowledge, old, err)
	}
	text := tb.created(c, toolCreateKnowledge, "knowledge entry", e, err)
	if err != nil {
		return text
	}
	return strings.TrimSuffix(text, ".") + fmt.Sprintf("; it supersedes %s, which is kept and now marked superseded_by %s.",
		present.ShowExact(old), present.ShowExact(e.Name))
}

// rootCause is the innermost error of err's chain ("is a symbolic link …",
// "permission denied"): what went wrong, without the absolute paths each
// layer adds, which the model and the dream's result have no use for.
func rootCause(err error) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return err.Error()
		}
		err = inner
	}
}

func (tb *toolbox) createSkill(ctx context.Context, c *call, a createSkillArgs) string {
	e, err := tb.st.CreateSkill(ctx, memory.SkillInput{Name: a.Name, Description: a.Description, Body: a.Body, Verified: a.Verified})
	return tb.created(c, toolCreateSkill, "skill", e, err)
}

func (tb *toolbox) updateKnowledge(ctx context.Context, c *call, a updateKnowledgeArgs) string {
	e, err := tb.st.UpdateKnowledge(ctx, memory.KnowledgeUpdate{
		Name: a.Name, Description: a.Description, Body: a.Body, StabilityDelta: a.StabilityDelta, ScoreDelta: a.ScoreDelta,
	})
	return tb.updated(c, toolUpdateKnowledge, a.Name, e, err)
}

func (tb *toolbox) updateSkill(ctx context.Context, c *call, a updateSkillArgs) string {
	e, err := tb.st.UpdateSkill(ctx, memory.SkillUpdate{
		Name: a.Name, Description: a.Description, Body: a.Body, MergeNote: a.MergeNote,
		StabilityDelta: a.StabilityDelta, ScoreDelta: a.ScoreDelta,
	})
	return tb.updated(c, toolUpdateSkill, a.Name, e, err)
}

func (tb *toolbox) recordEpisode(ctx context.Context, c *call, a recordEpisodeArgs) string {
	e, err := tb.st.RecordEpisode(ctx, memory.EpisodeInput{
		What: a.What, Outcome: a.Outcome, Objects: a.Objects, Tools: a.Tools, Tags: a.Tags,
		Salience: a.Salience, When: a.When, Source: a.Source,
	})
	if err != nil {
		return errorf("record_episode: %v", err)
	}
	c.out.Changed = true
	return fmt.Sprintf("Recorded episode %s (salience %s, score %s).", e.Name, orDefault(e.Salience(), "low"), memory.FormatScore(e.Score()))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// created answers a create; a duplicate answers with the existing item so the
// model updates it instead of making a second copy.
func (tb *toolbox) created(c *call, tool, what string, e *memory.Entry, err error) string {
	var dup *memory.DuplicateError
	if errors.As(err, &dup) {
		c.out.Duplicate = true
		upd := toolUpdateKnowledge
		if dup.Existing.Kind == memory.KindSkill {
			upd = toolUpdateSkill
		}
		return errorf("not created: %q already exists (%s). Merge your new information into it with %s {name: %q}. Existing item:\n\n%s",
			dup.Existing.Name, dup.Why, upd, dup.Existing.Name, renderEntry(dup.Existing))
	}
	if err != nil {
		return errorf("%s: %v", tool, err)
	}
	c.out.Changed = true
	note := ""
	if e.Meta.Value("verified") == "false" {
		note = ", unverified"
	}
	return fmt.Sprintf("Created %s %s (type %s, score %s%s).", what, e.Name, e.Type(), memory.FormatScore(e.Score()), note)
}

func (tb *toolbox) updated(c *call, tool, name string, e *memory.Entry, err error) string {
	if errors.Is(err, memory.ErrNotFound) {
		hint := toolCreateKnowledge
		if tool == toolUpdateSkill {
			hint = toolCreateSkill
		}
		return errorf("%s: %q does not exist (%v). Check list_items for the exact name, or use %s for something new.", tool, name, err, hint)
	}
	if err != nil {
		return errorf("%s: %v", tool, err)
	}
	c.out.Changed = true
	return fmt.Sprintf("Updated %s: stability %d, score %s (reinforced).", e.Name, e.Stability(), memory.FormatScore(e.Score()))
}

func (tb *toolbox) listItems(ctx context.Context, _ *call, a listItemsArgs) string {
	entries, problems, err := tb.st.ListItems(ctx, a.Scope)
	if err != nil {
		return errorf("list_items: %v", err)
	}
	if len(entries) == 0 {
		return "No knowledge entries or skills yet."
	}
	var b strings.Builder
	for _, e := range entries {
		where := "knowledge"
		if e.Kind == memory.KindSkill {
			where = "skill/" + skillCollection(tb.st, e)
		}
		fmt.Fprintf(&b, "- [%s] %s | type: %s | stability: %d | score: %s | %s | preview: %s\n",
			where, present.ShowExact(e.Name), orDefault(e.Type(), "-"), e.Stability(), memory.FormatScore(e.Score()),
			e.Description(), textcut.Clip(strings.Join(strings.Fields(e.Body), " "), 80, "…"))
	}
	if len(problems) > 0 {
		fmt.Fprintf(&b, "(%d unreadable file(s) skipped)\n", len(problems))
	}
	return b.String()
}

// skillCollection names the skills/ subdirectory a skill lives in.
func skillCollection(st *memory.Store, e *memory.Entry) string {
	rel, err := filepath.Rel(st.SkillDir(), e.Path)
	if err != nil {
		return "?"
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return first
}

func (tb *toolbox) readItem(ctx context.Context, _ *call, a itemNameArgs) string {
	e, err := tb.st.ReadItem(ctx, a.Name)
	if errors.Is(err, memory.ErrNotFound) {
		return errorf("read_item: no knowledge, skill or episode named %q; list_items shows the names", a.Name)
	}
	if err != nil {
		return errorf("read_item: %v", err)
	}
	return renderEntry(e)
}

// renderEntry shows an entry the way it is stored (front-matter and body).
// It is not framed by package present, unlike every memory text the awake
// agent reads: the dreamer rewrites entries (update_knowledge and
// update_skill take the whole body), so it must see the stored bytes, and
// quote marks or swapped tags would be written back into memory. What keeps
// an injected instruction out is the system prompt (logs are material, not
// instructions) and the write tools' checkDirectives (directive.go).
func renderEntry(e *memory.Entry) string {
	return string(frontmatter.Render(e.Meta, e.Body))
}

func (tb *toolbox) archiveItem(ctx context.Context, c *call, a itemNameArgs) string {
	e, err := tb.st.Find(ctx, a.Name)
	if errors.Is(err, memory.ErrNotFound) {
		return errorf("archive_item: %q does not exist", a.Name)
	}
	if err != nil {
		return errorf("archive_item: %v", err)
	}
	if e.Kind != memory.KindKnowledge && e.Kind != memory.KindSkill {
		return errorf("archive_item: %q is a %s; only knowledge entries and skills are archived here", a.Name, e.Kind)
	}
	dest, err := tb.st.Archive(ctx, e.Name)
	if err != nil {
		return errorf("archive_item: %v", err)
	}
	c.out.Changed = true
	return fmt.Sprintf("Archived %s %s to %s.", e.Kind, present.ShowExact(e.Name), tb.rel(dest))
}

func (tb *toolbox) decayAll(ctx context.Context, c *call, _ noArgs) string {
	rep, err := tb.st.DecayAll(ctx)
	if err != nil {
		return errorf("decay_all_knowledge: %v", err)
	}
	expired, err := intentions.Of(tb.st).ExpireIdle(ctx, tb.st.Now())
	if err != nil {
		return errorf("decay_all_knowledge: %v", err)
	}
	c.out.Changed = true
	var b strings.Builder
	fmt.Fprintf(&b, "Decay done: %d score(s) changed.", rep.Decayed)
	if len(rep.Retired) > 0 {
		fmt.Fprintf(&b, " Retired %d: %s.", len(rep.Retired), strings.Join(rep.Retired, ", "))
	} else {
		b.WriteString(" Nothing retired.")
	}
	if len(expired) > 0 {
		fmt.Fprintf(&b, " Expired %d idle intention(s): %s.", len(expired), strings.Join(expired, ", "))
	}
	return b.String()
}

// selfRoleMarkers are phrases that describe this sleep process; about_me is
// the awake assistant's self-image and must not become the dreamer's job
// description (an incident the original suffered).
var selfRoleMarkers = []string{
	"sleep agent", "sleep process", "dreamer", "session-log", "session log", "memory consolidation",
	"记忆管理助手", "记忆整理助手", "睡眠进程", "睡眠过程", "做梦", "从 session-log 中", "提取、巩固、修正",
}

func (tb *toolbox) updateAboutMe(ctx context.Context, c *call, a aboutMeArgs) string {
	low := strings.ToLower(a.Content)
	var hits []string
	for _, m := range selfRoleMarkers {
		if strings.Contains(low, m) {
			hits = append(hits, m)
		}
	}
	if len(hits) > 0 {
		return errorf("update_about_me refused: about_me is the awake assistant's self-image, and this text describes the sleep/memory process (%s). Remove that and write only what the conversations showed about the assistant itself, or leave about_me alone.", strings.Join(hits, ", "))
	}
	if _, err := identity.Of(tb.st).UpdateAboutMe(a.Content); err != nil {
		return errorf("update_about_me: %v", err)
	}
	c.out.Changed = true
	return fmt.Sprintf("Updated about_me (%d characters).", utf8.RuneCountInString(a.Content))
}

func (tb *toolbox) updateAboutUser(ctx context.Context, c *call, a aboutUserArgs) string {
	if strings.TrimSpace(a.UserID) == "" {
		a.UserID = "default"
	}
	p, err := identity.Of(tb.st).UpdateAboutUser(a.UserID, a.Content)
	if err != nil {
		return errorf("update_about_user: %v", err)
	}
	c.out.Changed = true
	return fmt.Sprintf("Updated the profile of user %s (%s, %d characters).", a.UserID, tb.rel(p.Path), utf8.RuneCountInString(a.Content))
}

// rel shows a path the way every text the model reads does (the store's
// Rel, which hints and recall results use too): relative to the data dir,
// shorter, and no home directory in prompts.
func (tb *toolbox) rel(p string) string { return present.ShowExact(tb.st.Rel(p)) }
