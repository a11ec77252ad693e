package rank

import "time"

// Turn is one dialogue turn of a conversation log, as ranked by
// search_recent_conversation and the conversation eval.
type Turn struct {
	Path    string // unique within one ranking, e.g. "<log>#<n>"
	Session string // turns of one session are consecutive and in order
	Role    string // user | agent | tool
	Text    string
	When    time.Time
}

// TurnDocs is the one representation of dialogue turns for scoring. The
// turn's text is the body. The role goes to Type, where a query can filter
// on it but it never scores: as a word it would match every turn. The
// previous turn of the same session is the Context, because a reply is
// usually found through the question it answers ("which keyboard did I
// buy" shares no word with "The Keychron Q1 fits that budget", but its
// question does). Context weighs half a body word and is not embedded:
// when it is a question, the reply borrows the question turn's own
// cosine instead, and a question that a later turn answers is damped so
// the answer comes first (see contextCos and answeredDamp).
func TurnDocs(turns []Turn) []Doc {
	docs := make([]Doc, len(turns))
	for i, t := range turns {
		d := Doc{Path: t.Path, Kind: KindConversation, Type: t.Role, Body: t.Text, When: t.When}
		if i > 0 && turns[i-1].Session == t.Session {
			d.Context = turns[i-1].Text
		}
		docs[i] = d
	}
	return docs
}
