package dates

import (
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/textseg"
)

// Question is what a search's question says about time, resolved against
// now: the days it asks about, the stretches it limits itself to, and the
// question as the rest of a ranking should read it.
//
// Measured on LifeBench zh's tuning half (hit@5 off / hash; BM25 0.75 in
// the same run) and the dialogue eval's tuning halves (temporal R@5, off:
// en entries / zh entries / en log / zh log), each step on the last:
// before, 0.59 / 0.60 and 0.54 / 0.76 / 0.69 / 0.72. The numbers a date is
// written with ("2025", "10" of 2025年5月10日) pinned every record holding
// them, and 4-digit ones added the symbol bonus: taken as date evidence
// only (Syms), 0.83 / 0.83 and 0.58 / 0.80 / 0.69 / 0.72. An entry whose
// text names the whole year or month overlapped any day asked; asking one
// of its days to lie inside the days asked (AnyWithin), 0.84 / 0.84
// (hit@10 0.85 → 0.92) and 0.62 / 0.76 / 0.69 / 0.74. The date's words no
// keyword terms either (Words: they counted twice, as words and as the
// date), 0.86 / 0.86 and 0.65 / 0.74 / 0.73 / 0.72.
type Question struct {
	Days, Bounds []Days // QueryDays
	// Syms are the exact symbols its dates are written with, lowercased
	// ("2025" and "10" of 2025年5月10日): the date speaks for them, so a
	// ranking pins no entry by them.
	Syms []string
	// Words is the question with its dates blanked, the text keyword
	// evidence is read from: a date asked about is matched as a date, and a
	// bound's date is where the question stops looking, so an entry naming
	// it ("In March we moved" for "before March 2026") is no closer to the
	// answer. As words, the date's figures outweighed the date itself.
	Words string
}

// ReadQuestion reads text's dates and bounds (QueryDays), running the
// date rules once: a recall's query goes through it.
func ReadQuestion(text string, now time.Time) Question {
	q := Question{Words: text}
	bs, spans := FindBounds(text, now)
	q.Days, q.Bounds = queryDays(bs, spans)
	named := make([]string, 0, len(bs)+len(spans))
	for _, b := range bs {
		named = append(named, b.Text)
	}
	for _, sp := range spans {
		named = append(named, sp.Text)
	}
	for _, w := range named {
		if strings.Trim(w, "0123456789") == "" {
			// a bare number read as a year ("port 2024", "error 1999") may
			// as well be a port or a code: it stays a word and a symbol
			continue
		}
		// w is as written unless lowercasing changed the text's byte
		// lengths (FindSpans); such a date's words then stay
		q.Words = strings.Replace(q.Words, w, " ", 1)
		for _, sym := range textseg.Symbols(w) {
			q.Syms = append(q.Syms, strings.ToLower(sym))
		}
	}
	return q
}
