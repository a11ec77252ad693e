package present

import (
	"fmt"
	"strings"

	"github.com/somni-dev/somni/internal/textcut"
)

// Intention is an intention as the tools show it.
type Intention struct {
	ID, What, Due, Priority string
	Cues                    []string
}

// IntentionLine is one intention on one line: `id: what (due …; cues: …;
// mid priority)`, the due date restated as dueEcho (DayEcho's) when given.
func IntentionLine(it Intention, dueEcho string) string {
	var notes []string
	if dueEcho != "" {
		notes = append(notes, "due "+dueEcho)
	} else if it.Due != "" {
		notes = append(notes, "due "+it.Due)
	}
	if len(it.Cues) > 0 {
		notes = append(notes, "cues: "+strings.Join(it.Cues, ", "))
	}
	notes = append(notes, it.Priority+" priority")
	// cues, due and priority are as a hand edit left them: no controls either
	return textcut.Visible(fmt.Sprintf("%s: %s (%s)", it.ID, Defang(it.What), strings.Join(notes, "; ")))
}

// IntentionAdded is add_intention's answer.
func IntentionAdded(it Intention, dueEcho string) string {
	return "Added intention " + IntentionLine(it, dueEcho)
}

// IntentionClosed is complete_intention's and cancel_intention's answer;
// verb is "Completed" or "Cancelled".
func IntentionClosed(verb string, it Intention) string {
	return verb + " intention " + IntentionLine(it, "")
}

// NoOpenIntention is the answer to closing an id that is not open.
func NoOpenIntention(id string) string {
	return fmt.Sprintf("No open intention %s (already closed or never existed); list_intentions shows the open ones.", id)
}

// IntentionList is list_intentions' answer, in the order given (due first).
func IntentionList(open []Intention) string {
	if len(open) == 0 {
		return "No open intentions."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d open intentions (due first):\n", len(open))
	for _, it := range open {
		b.WriteString("- " + IntentionLine(it, "") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
