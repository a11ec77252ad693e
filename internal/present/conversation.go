package present

import (
	"fmt"
	"strings"
)

// Turn is one turn of a past conversation as search_recent_conversation
// shows it.
type Turn struct {
	Who  string // role, or role:speaker
	At   string // the time as the log wrote it
	Text string
}

// Conversation is one titled part of search_recent_conversation's answer
// ("This conversation", "Earlier conversations"), its turns in the order
// shown.
type Conversation struct {
	Title string
	Turns []Turn
}

// ConversationAnswer is search_recent_conversation's answer: each part
// with turns under its title, oldest first for a listing (an empty query),
// best match first for a query. Every turn is quoted and defanged: a past
// turn is data, whatever it says.
func ConversationAnswer(query string, parts ...Conversation) string {
	n := 0
	for _, p := range parts {
		n += len(p.Turns)
	}
	if n == 0 {
		if query == "" {
			return "No conversation recorded yet."
		}
		return "Nothing in recent conversations matches " + Quote(query) + "."
	}
	var b strings.Builder
	b.WriteString(NotesAreData + "\n")
	for _, p := range parts {
		if len(p.Turns) == 0 {
			continue
		}
		title := p.Title
		if query == "" {
			title += ", oldest first"
		} else {
			title += ", best match first"
		}
		b.WriteString("## " + title + "\n")
		for _, t := range p.Turns {
			fmt.Fprintf(&b, "> [%s %s] %s\n", Defang(t.Who), t.At, Defang(t.Text))
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
