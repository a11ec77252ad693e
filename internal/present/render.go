package present

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/textcut"
)

// Bounds of one rendered hit: a header line, a line saying why it matched
// and at most noteLines quoted lines of the note (description, when it
// applies, then the body), so a result of 5 hits stays under 40 lines
// however long the memories are.
const noteLines = 6

// Note is a recalled memory as a rendering shows it.
type Note struct {
	Name, Kind, Type string
	Path             string // as stored; RenderOptions.ShowPath names it for the reader
	When             time.Time
	Description      string
	AppliesWhen      string
	NotAppliesWhen   string
	Body             string
	Episode          bool // Body is an episode's: its "- key: value" details fold into one line
}

// Hit is one recall hit as a rendering shows it: the note and what the
// scorer found about it (rank.Hit says what each number is).
type Hit struct {
	Note
	Hybrid     float64
	Cos        float64
	ContextCos float64
	Keyword    float64
	Literal    bool
	Pinned     bool
	PinnedBy   string
	Words      []string // the query's own words that matched
	SpreadFrom string
	// SupersededBy names the newer memory that changed what this one says.
	SupersededBy string
}

// RenderOptions says how much of each hit a rendering shows and how it
// names files.
type RenderOptions struct {
	// BodyChars > 0 quotes up to that many runes of each body: the model
	// has no read tool for memory files, so the hit carries the content.
	BodyChars int
	// ShowPath names a hit's file for the reader (relative to the data
	// directory: no home directory in what the model reads); nil ⇒ as stored.
	ShowPath func(string) string
}

// Why says in words a reader understands why a hit matched: the query's
// own words that matched (not their stems), the exact symbol that pinned it,
// or that it came by meaning or by a link; "" for a plain listing. A hit a
// newer memory changed says so last, whatever brought it.
func (h Hit) Why() string {
	var parts []string
	var q []string
	for _, w := range h.Words {
		// a word of the exact symbol is said once, as part of the symbol
		if !(h.Pinned && strings.Contains(strings.ToLower(h.PinnedBy), strings.ToLower(w))) {
			q = append(q, strconv.Quote(Defang(w)))
		}
	}
	if len(q) > 0 && h.Keyword > 0 {
		parts = append(parts, "matched "+strings.Join(q, ", "))
	}
	if h.Pinned {
		parts = append(parts, "exact: "+Defang(h.PinnedBy))
	}
	if h.Literal {
		parts = append(parts, "holds the whole query")
	}
	if len(parts) == 0 && h.SpreadFrom == "" {
		switch {
		case h.ContextCos > h.Cos:
			parts = append(parts, "answers a question close in meaning")
		case h.Cos != 0:
			parts = append(parts, "close in meaning")
		}
	}
	if h.SpreadFrom != "" {
		parts = append(parts, "linked from "+ShowName(h.SpreadFrom))
	}
	if h.SupersededBy != "" {
		parts = append(parts, "superseded by "+ShowName(h.SupersededBy))
	}
	return strings.Join(parts, "; ")
}

// RenderHits renders hits for a model as numbered notes: a header line with
// name, kind/type, score, date and file, a line saying why it matched, then
// the note itself as quoted lines (see QuoteNote). The caller puts the
// NotesAreData line above it.
func RenderHits(hits []Hit, opt RenderOptions) string {
	if len(hits) == 0 {
		return "No matching memories."
	}
	show := opt.ShowPath
	if show == nil {
		show = func(p string) string { return p }
	}
	var b strings.Builder
	for i, h := range hits {
		d := h.Note
		kind := d.Kind
		if d.Type != "" && !strings.EqualFold(d.Type, d.Kind) {
			kind += "/" + d.Type
		}
		meta := []string{Defang(kind)}
		if !d.When.IsZero() {
			layout := dates.MinuteLayout
			if h, m, _ := d.When.Clock(); h == 0 && m == 0 {
				layout = dates.Layout // a day (`created: 2026-11-20`), not a moment
			}
			meta = append(meta, d.When.Format(layout))
		}
		if h.Hybrid > 0 {
			meta = append(meta, fmt.Sprintf("%.2f", h.Hybrid))
		}
		fmt.Fprintf(&b, "%d. %s (%s) · %s\n", i+1, ShowName(d.Name), strings.Join(meta, ", "), Defang(show(d.Path)))
		if why := h.Why(); why != "" {
			b.WriteString("   " + why + "\n")
		}
		if note := QuoteNote("   ", quotedText(d, opt.BodyChars), noteLines, max(opt.BodyChars, 0)+noteFieldRunes); note != "" {
			b.WriteString(note + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// noteFieldRunes is what the one-line fields (description, applies when,
// not when) may add to the body's rune budget.
const noteFieldRunes = 400

// quotedText is what a hit quotes: its description, when it applies, and
// with bodyChars > 0 its body (episodes: the detail fields on one line).
func quotedText(d Note, bodyChars int) string {
	var lines []string
	desc := textcut.OneLine(d.Description) // "" when the description is blank
	if desc != "" {
		lines = append(lines, desc)
	}
	if d.AppliesWhen != "" {
		lines = append(lines, "applies when: "+textcut.OneLine(d.AppliesWhen))
	}
	if d.NotAppliesWhen != "" {
		lines = append(lines, "not when: "+textcut.OneLine(d.NotAppliesWhen))
	}
	if bodyChars > 0 {
		body := d.Body
		if d.Episode {
			body = episodeDetails(body)
		}
		body, cut := textcut.Prefix(strings.TrimSpace(body), bodyChars)
		for _, l := range strings.Split(body, "\n") {
			if one := textcut.OneLine(l); one != "" && one != desc {
				lines = append(lines, l)
			}
		}
		if cut && len(lines) > 0 {
			lines[len(lines)-1] += " …"
		}
	}
	return strings.Join(lines, "\n")
}

// episodeDetails folds an episode body's "- key: value" detail lines into
// one line, without when (the header shows it), source (a log id the model
// cannot use) and salience (the dreamer's bookkeeping); other lines stay.
func episodeDetails(body string) string {
	var fields, rest []string
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		k, v, ok := strings.Cut(strings.TrimPrefix(t, "- "), ": ")
		if ok && strings.HasPrefix(t, "- ") && !strings.ContainsAny(k, " \t") {
			if !hiddenEpisodeField[k] && strings.TrimSpace(v) != "" {
				fields = append(fields, k+": "+strings.TrimSpace(v))
			}
			continue
		}
		rest = append(rest, l)
	}
	if len(fields) == 0 {
		return body
	}
	return strings.Join(append([]string{strings.Join(fields, "; ")}, rest...), "\n")
}

var hiddenEpisodeField = map[string]bool{"when": true, "source": true, "salience": true}
