package rank

import (
	"sort"
	"strings"
)

// passes applies the query's filters to a doc.
func passes(q *Query, d *Doc) bool {
	if len(q.Kinds) > 0 {
		ok := false
		for _, k := range q.Kinds {
			if strings.EqualFold(k, d.Kind) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if q.EntryType != "" && !strings.EqualFold(q.EntryType, d.Type) {
		return false
	}
	if !q.Since.IsZero() && (d.When.IsZero() || d.When.Before(q.Since)) {
		return false
	}
	if !q.Until.IsZero() && (d.When.IsZero() || d.When.After(q.Until)) {
		return false
	}
	if len(q.Tags) > 0 {
		ok := false
		for _, want := range q.Tags {
			for _, have := range d.Tags {
				if strings.EqualFold(strings.TrimSpace(want), strings.TrimSpace(have)) {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// listRecent answers an empty query (a listing, or search_episodes with
// only filters): every entry passing the filters, episodes newest first,
// then strongest.
func listRecent(c *Corpus, q *Query, limit int) []Hit {
	var es []*Entry
	for _, e := range c.slots {
		if e != nil && passes(q, &e.Doc) {
			es = append(es, e)
		}
	}
	sort.Slice(es, func(i, j int) bool {
		a, b := &es[i].Doc, &es[j].Doc
		// episodes list newest first; knowledge and skills carry a date
		// too (when they were recorded) but list strongest first
		if a.Kind == KindEpisode && b.Kind == KindEpisode && !a.When.Equal(b.When) {
			return a.When.After(b.When)
		}
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Path < b.Path
	})
	hits := make([]Hit, 0, min(limit, len(es)))
	for _, e := range es[:min(limit, len(es))] {
		hits = append(hits, Hit{Doc: e.Doc})
	}
	return hits
}
