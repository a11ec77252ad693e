package rank

import "github.com/somni-dev/somni/internal/dates"

// maxEntryDays bounds the date ranges one entry keeps: its own day and
// the first dates its text names; a text naming dozens is a list or a log,
// and every range costs memory at 10k entries.
const maxEntryDays = 4

// entryDays is what an entry says about time: its own day (Doc.When) and
// the days its description and body name (dates.TextDays).
func entryDays(d Doc) []dates.Days {
	return dates.TextDays(d.Description+"\n"+d.Body, d.When, maxEntryDays)
}
