package dream

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/somni-dev/somni/internal/toolspec"
)

// Tool names (compat: prompts and skills in the wild use them).
const (
	toolReadSessionLog     = "read_session_log"
	toolListItems          = "list_items"
	toolReadItem           = "read_item"
	toolCreateKnowledge    = "create_knowledge"
	toolUpdateKnowledge    = "update_knowledge"
	toolCreateSkill        = "create_skill"
	toolUpdateSkill        = "update_skill"
	toolArchiveItem        = "archive_item"
	toolRecordEpisode      = "record_episode"
	toolMarkLogProcessed   = "mark_log_processed"
	toolWriteDreamLog      = "write_dream_log"
	toolDecayAllKnowledge  = "decay_all_knowledge"
	toolReviewDreamHistory = "review_dream_history"
	toolUpdateAboutMe      = "update_about_me"
	toolUpdateAboutUser    = "update_about_user"
)

// Argument structs: json tags are the compat parameter names, and toolspec
// derives both the schema and the strict decoding from them.
type (
	logPathArgs struct {
		Path string `json:"path" desc:"Path of the session log, exactly as listed."`
	}
	listItemsArgs struct {
		Scope string `json:"scope" desc:"Which entries to list: all, knowledge or skills." default:"all"`
	}
	itemNameArgs struct {
		Name string `json:"name" desc:"Entry name (its directory name), as list_items shows it."`
	}
	createKnowledgeArgs struct {
		Name        string `json:"name" desc:"Short slug naming the topic, e.g. api-gw-staging-502."`
		EntryType   string `json:"entry_type" desc:"fact, preference, decision, pitfall, experience or user."`
		Description string `json:"description" desc:"One sentence naming the situation where this helps; recall matches it first."`
		Body        string `json:"body" desc:"The details in Markdown; literals exactly as in the log."`
		Verified    bool   `json:"verified" desc:"false when the session did not confirm it (lower start score, visible banner)." default:"true"`
		Supersedes  string `json:"supersedes" desc:"Name of an existing entry this one replaces because the fact changed; the old entry is kept, marked superseded_by this one." default:""`
	}
	updateKnowledgeArgs struct {
		Name           string  `json:"name" desc:"Existing entry name."`
		Description    string  `json:"description" desc:"New description; empty keeps the old one." default:""`
		Body           string  `json:"body" desc:"New full body (merged and corrected); empty keeps the old one." default:""`
		StabilityDelta int     `json:"stability_delta" desc:"Stability change, e.g. 1 when the log confirms it again." default:"0"`
		ScoreDelta     float64 `json:"score_delta" desc:"Score change, e.g. 0.1 confirmed, 0.2 praised." default:"0"`
	}
	createSkillArgs struct {
		Name        string `json:"name" desc:"Short slug naming the procedure."`
		Description string `json:"description" desc:"One sentence: when to use this skill."`
		Body        string `json:"body" desc:"The procedure in Markdown, step by step."`
		Verified    bool   `json:"verified" desc:"false when the procedure did not fully work in the session." default:"true"`
	}
	updateSkillArgs struct {
		Name           string  `json:"name" desc:"Existing skill name."`
		Description    string  `json:"description" desc:"New description; empty keeps the old one." default:""`
		Body           string  `json:"body" desc:"New full body; outside agent_learned_skills it may only grow." default:""`
		MergeNote      string  `json:"merge_note" desc:"What was merged and why." default:""`
		StabilityDelta int     `json:"stability_delta" desc:"Stability change." default:"0"`
		ScoreDelta     float64 `json:"score_delta" desc:"Score change." default:"0"`
	}
	recordEpisodeArgs struct {
		What     string `json:"what" desc:"One sentence: what happened."`
		Outcome  string `json:"outcome" desc:"success, failed or unknown." default:"unknown"`
		Objects  string `json:"objects" desc:"Files, hosts, tickets involved (comma list)." default:""`
		Tools    string `json:"tools" desc:"Tools or skills used (comma list)." default:""`
		Tags     string `json:"tags" desc:"Topic tags (comma list)." default:""`
		Salience string `json:"salience" desc:"low, mid or high: how much it matters." default:"low"`
		When     string `json:"when" desc:"When it happened; empty means now." default:""`
		Source   string `json:"source" desc:"Id of the source session log." default:""`
	}
	dreamLogArgs struct {
		Content string `json:"content" desc:"The full diary in Markdown, starting with front-matter."`
	}
	noArgs      struct{}
	historyArgs struct {
		Path string `json:"path" desc:"Diary path or file name; empty lists the recent diaries." default:""`
	}
	aboutMeArgs struct {
		Content string `json:"content" desc:"New body of about_me, without front-matter."`
	}
	aboutUserArgs struct {
		Content string `json:"content" desc:"New body of the user's profile, without front-matter."`
		UserID  string `json:"user_id" desc:"The log's user field; default for the single user." default:"default"`
	}
)

// call is the per-call environment handed to each tool: the toolbox and the
// outcome the handler fills in for the loop.
type call struct {
	tb  *toolbox
	out toolOutcome
}

// handler adapts a toolbox method to the toolspec signature.
func handler[P any](fn func(tb *toolbox, ctx context.Context, c *call, p P) string) func(context.Context, *call, P) (string, error) {
	return func(ctx context.Context, c *call, p P) (string, error) {
		if ch, ok := any(p).(checker); ok {
			if err := ch.check(); err != nil {
				return "", err
			}
		}
		return fn(c.tb, ctx, c, p), nil
	}
}

// registry is the dreamer's tool table, built on first use (generating the
// schemas was most of the package's start-up cost, GODEBUG=inittrace=1,
// measured in docs/ARCHITECTURE.md, Measurements, and only a dream needs them); toolspec panics on
// a malformed params struct, which any test of the tools catches.
var registry = sync.OnceValue(func() *toolspec.Registry[*call] {
	r, err := toolspec.NewRegistry(
		toolspec.MustTool(toolReadSessionLog, "Read one pending session log in full.", handler((*toolbox).readSessionLog)),
		toolspec.MustTool(toolListItems, "List knowledge entries and skills: name, type, stability, score, description, body preview.", handler((*toolbox).listItems)),
		toolspec.MustTool(toolReadItem, "Read one knowledge entry, skill or episode in full by name.", handler((*toolbox).readItem)),
		toolspec.MustTool(toolCreateKnowledge, "Create a knowledge entry; refused when it exists or a near-duplicate exists (then update that one), unless it supersedes that entry because the fact changed.", handler((*toolbox).createKnowledge)),
		toolspec.MustTool(toolUpdateKnowledge, "Update an existing knowledge entry (merge or correct) and reinforce it.", handler((*toolbox).updateKnowledge)),
		toolspec.MustTool(toolCreateSkill, "Create a learned skill (a reusable procedure that worked) under agent_learned_skills.", handler((*toolbox).createSkill)),
		toolspec.MustTool(toolUpdateSkill, "Update an existing skill and reinforce it; outside agent_learned_skills the body may only grow.", handler((*toolbox).updateSkill)),
		toolspec.MustTool(toolArchiveItem, "Archive (retire) a knowledge entry or skill by name.", handler((*toolbox).archiveItem)),
		toolspec.MustTool(toolRecordEpisode, "Record an episode: something that happened (task, request, incident, decision, delivery).", handler((*toolbox).recordEpisode)),
		toolspec.MustTool(toolMarkLogProcessed, "Mark a session log processed and archive it; do it right after reading the log.", handler((*toolbox).markLogProcessed)),
		toolspec.MustTool(toolWriteDreamLog, "Write this dream's diary (must start with front-matter); never overwrites an earlier diary.", handler((*toolbox).writeDreamLog)),
		toolspec.MustTool(toolDecayAllKnowledge, "Run decay and retirement over all memories once.", handler((*toolbox).decayAll)),
		toolspec.MustTool(toolReviewDreamHistory, "List recent dream diaries, or read one when path is given.", handler((*toolbox).reviewDreamHistory)),
		toolspec.MustTool(toolUpdateAboutMe, "Rewrite the awake assistant's self-image (body of about_me.md).", handler((*toolbox).updateAboutMe)),
		toolspec.MustTool(toolUpdateAboutUser, "Rewrite one user's profile (body of about_user.md).", handler((*toolbox).updateAboutUser)),
	)
	if err != nil {
		panic(err)
	}
	return r
})

// toolSpecs is the tool list offered to the model, built once.
var toolSpecs = sync.OnceValue(func() []Tool {
	specs := registry().Specs()
	out := make([]Tool, 0, len(specs))
	for _, s := range specs {
		params, err := json.Marshal(s.Parameters)
		if err != nil {
			panic(fmt.Sprintf("dream: schema of %s: %v", s.Name, err))
		}
		out = append(out, Tool{Type: "function", Function: FunctionDef{Name: s.Name, Description: s.Description, Parameters: params}})
	}
	return out
})

// Tools returns the dreamer's tool list in the chat-completions shape.
func Tools() []Tool { return append([]Tool(nil), toolSpecs()...) }
