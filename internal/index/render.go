package index

import (
	"fmt"
	"strings"
)

// Why says in a few words why a hit matched, for the model reading it.
func (h Hit) Why() string {
	var parts []string
	if h.Pinned {
		parts = append(parts, fmt.Sprintf("exact `%s`", h.PinnedBy))
	}
	if h.Literal {
		parts = append(parts, "whole query appears")
	}
	if len(h.Terms) > 0 && h.Keyword > 0 {
		parts = append(parts, "words: "+strings.Join(h.Terms, ", "))
	}
	switch {
	case h.SpreadFrom != "":
	case h.ContextCos > h.Cos:
		parts = append(parts, fmt.Sprintf("answers a question close in meaning (cos %.2f)", h.ContextCos))
	case h.Cos != 0:
		parts = append(parts, fmt.Sprintf("meaning cos %.2f", h.Cos))
	}
	if h.SpreadFrom != "" {
		parts = append(parts, "linked from "+h.SpreadFrom)
	}
	if len(parts) == 0 {
		return "listed by filter"
	}
	return strings.Join(parts, "; ")
}

// RenderHits renders hits as compact Markdown for a model: one bullet per
// hit with name, kind/type, description, path and why it matched.
// bodyChars > 0 appends that many runes of each body (for conversation
// turns and episodes, where the body is the content).
func RenderHits(hits []Hit, bodyChars int) string {
	if len(hits) == 0 {
		return "No matching memories."
	}
	var b strings.Builder
	for i, h := range hits {
		d := h.Doc
		kind := d.Kind
		if d.Type != "" && !strings.EqualFold(d.Type, d.Kind) {
			kind += "/" + d.Type
		}
		fmt.Fprintf(&b, "%d. **%s** (%s, %.2f)", i+1, oneLine(d.Name), kind, h.Hybrid)
		if d.Description != "" {
			fmt.Fprintf(&b, " — %s", oneLine(d.Description))
		}
		b.WriteByte('\n')
		if !d.When.IsZero() {
			fmt.Fprintf(&b, "   when: %s\n", d.When.Format("2006-01-02 15:04"))
		}
		if d.AppliesWhen != "" {
			fmt.Fprintf(&b, "   applies when: %s\n", oneLine(d.AppliesWhen))
		}
		if d.NotAppliesWhen != "" {
			fmt.Fprintf(&b, "   not when: %s\n", oneLine(d.NotAppliesWhen))
		}
		if bodyChars > 0 && strings.TrimSpace(d.Body) != "" {
			body := []rune(strings.TrimSpace(d.Body))
			cut := ""
			if len(body) > bodyChars {
				body, cut = body[:bodyChars], " …"
			}
			fmt.Fprintf(&b, "   > %s%s\n", oneLine(string(body)), cut)
		}
		fmt.Fprintf(&b, "   path: %s · why: %s\n", d.Path, h.Why())
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
