package rank

import "github.com/somni-dev/somni/internal/present"

// Shown is hits as package present renders them for a model.
func Shown(hits []Hit) []present.Hit {
	out := make([]present.Hit, len(hits))
	for i, h := range hits {
		d := h.Doc
		out[i] = present.Hit{
			Note: present.Note{
				Name: d.Name, Kind: d.Kind, Type: d.Type, Path: d.Path, When: d.When,
				Description: d.Description, AppliesWhen: d.AppliesWhen, NotAppliesWhen: d.NotAppliesWhen,
				Body: d.Body, Episode: d.Kind == KindEpisode,
			},
			Hybrid: h.Hybrid, Cos: h.Cos, ContextCos: h.ContextCos, Keyword: h.Keyword,
			Literal: h.Literal, Pinned: h.Pinned, PinnedBy: h.PinnedBy, Words: h.Words, SpreadFrom: h.SpreadFrom,
			SupersededBy: h.SupersededBy,
		}
	}
	return out
}
