package present

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/textcut"
)

// RecallBodyChars is how much of each entry's body a recall tool's answer
// quotes: the agent has no separate read tool, so the hit must carry it.
const RecallBodyChars = 400

// maxQuoteRunes bounds how much of a caller's words a tool answer repeats:
// enough to recognise them, never a megabyte echoed back into the context.
const maxQuoteRunes = 120

// Quote quotes a caller's words (a query, a name, an id) for a tool
// answer, on one line and clipped.
func Quote(q string) string {
	return strconv.Quote(textcut.Clip(textcut.OneLine(q), maxQuoteRunes, " …"))
}

// Notes is how every recall tool shows memory: the line saying the quoted
// notes are data, then the hits (see RenderHits).
func Notes(hits []Hit, opt RenderOptions) string {
	return NotesAreData + "\n" + RenderHits(hits, opt)
}

// RecallAnswer is recall_memories' answer: the hits best first, or, when
// none is worth showing, what the model can do instead.
func RecallAnswer(query string, hits []Hit, opt RenderOptions) string {
	if len(hits) == 0 {
		return fmt.Sprintf("No memories match %s. Try other key terms, or answer without memory.", Quote(query))
	}
	return fmt.Sprintf("%d memories for %s, best first.\n%s", len(hits), Quote(query), Notes(hits, opt))
}

// SearchAnswer is a search tool's answer: "N <what> for "query", best
// first" with the hits for a query, "N <what>, <listOrder>" for a listing
// (an empty query), none when nothing matched.
func SearchAnswer(hits []Hit, query, what, listOrder, none string, opt RenderOptions) string {
	if len(hits) == 0 {
		return none
	}
	head := fmt.Sprintf("%d %s", len(hits), what)
	if strings.TrimSpace(query) != "" {
		head += " for " + Quote(query) + ", best first"
	} else {
		head += ", " + listOrder
	}
	return head + ".\n" + Notes(hits, opt)
}

// Filters says which filters a search ran with, " (since …, until …,
// tagged …)", as the tool was given them; "" for none.
func Filters(since, until, tags string) string {
	var parts []string
	if since != "" {
		parts = append(parts, "since "+since)
	}
	if until != "" {
		parts = append(parts, "until "+until)
	}
	if tags != "" {
		parts = append(parts, "tagged "+tags)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// DayEcho is "Fri 2026-12-04" for a date given as such and `Fri
// 2026-12-04 from "next friday"` for one given in words: the weekday lets a
// reader catch a wrong guess at a glance, and no parentheses, since tool
// answers already wrap it in theirs.
func DayEcho(day time.Time, said string) string {
	iso := day.Format("Mon ") + dates.Format(day)
	if said == dates.Format(day) {
		return iso
	}
	return iso + " from " + Quote(said)
}

// ShareProposed is share_memory's answer: the proposal waits for a person,
// and how they approve it.
func ShareProposed(name, team, id string) string {
	return fmt.Sprintf("Proposed %s for team %s; it waits for a person's approval and is not in the team's memory until then. "+
		"They approve it with `somni-sidecar share approve %s` or in the Memory tab, or reject it.", Quote(name), team, id)
}
