package dreamtest

import "github.com/somni-dev/somni/internal/dream"

// Fact is the knowledge entry a scripted dream creates.
type Fact struct {
	Name, Type, Description, Body string
	// Supersedes, when set, names the entry the fact replaces (a fact that changed).
	Supersedes string
}

// Consolidation describes a complete, well-behaved dream over the first listed log.
type Consolidation struct {
	Fact Fact
	// Episode is the `what` of the episode recorded for the log; its source is SourceID.
	Episode  string
	SourceID string
	// Profile, when set, is written with update_about_user for the default user.
	Profile string
	// Diary is the dream diary (must start with front-matter).
	Diary   string
	Summary string
	// Usage is reported by every turn.
	Usage dream.Usage
}

// Consolidate returns the script of a model that reviews its history, reads
// the first log, marks it processed, lists items, creates the fact, records
// the episode (and the profile), decays, writes the diary and answers
// c.Summary: six turns. A fake host and a Go test can both drive it.
func Consolidate(c Consolidation) []Step {
	fact := map[string]any{"name": c.Fact.Name, "entry_type": c.Fact.Type, "description": c.Fact.Description, "body": c.Fact.Body}
	if c.Fact.Supersedes != "" {
		fact["supersedes"] = c.Fact.Supersedes
	}
	work := []Call{
		{Name: "create_knowledge", Args: fact},
		{Name: "record_episode", Args: map[string]any{
			"what": c.Episode, "outcome": "success", "salience": "mid", "source": c.SourceID, "tags": "dreamtest",
		}},
	}
	if c.Profile != "" {
		work = append(work, Call{Name: "update_about_user", Args: map[string]any{"content": c.Profile}})
	}
	return []Step{
		{Reasoning: "look back first", Calls: []Call{{Name: "review_dream_history", Args: map[string]any{}}}, Usage: c.Usage},
		{Calls: []Call{{Name: "read_session_log", Args: map[string]any{"path": "$LOG0"}}}, Usage: c.Usage},
		{Content: "Noted the facts and literals; archiving the log before extracting.", Calls: []Call{
			{Name: "mark_log_processed", Args: map[string]any{"path": "$LOG0"}},
			{Name: "list_items", Args: map[string]any{"scope": "all"}},
		}, Usage: c.Usage},
		{Calls: work, Usage: c.Usage},
		{Calls: []Call{
			{Name: "decay_all_knowledge", Args: map[string]any{}},
			{Name: "write_dream_log", Args: map[string]any{"content": c.Diary}},
		}, Usage: c.Usage},
		{Content: c.Summary, Usage: c.Usage},
	}
}
