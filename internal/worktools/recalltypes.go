package worktools

import (
	"strings"

	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/memory"
)

// RecallTypes is a parsed recall `types` list: the index kinds it names
// (knowledge, skill, episode, singular or plural) and every other word as an
// entry type. The recall tool and `somni-sidecar recall --types` both parse
// with it, so one list means the same on either path.
type RecallTypes struct {
	Kinds      []string
	EntryTypes []string
}

// ParseRecallTypes reads a comma list (ASCII or CJK commas, optional
// brackets and quotes, any case); an empty list asks for everything.
func ParseRecallTypes(list string) RecallTypes {
	var t RecallTypes
	for _, w := range memory.SplitList(strings.ToLower(list)) {
		if k, ok := rank.ParseKind(w); ok {
			t.Kinds = append(t.Kinds, k)
		} else {
			t.EntryTypes = append(t.EntryTypes, w)
		}
	}
	return t
}

// Unknown lists the entry types that are neither a knowledge type the
// store writes (memory.KnowledgeTypes) nor the type of any memory, has
// saying whether one has it: a mistyped word, which a person would
// otherwise read as "no matching memories". Hand-written types count.
func (t RecallTypes) Unknown(has func(entryType string) (bool, error)) ([]string, error) {
	var unknown []string
	for _, w := range t.EntryTypes {
		if containsFold(memory.KnowledgeTypes, w) {
			continue
		}
		ok, err := has(w)
		if err != nil {
			return nil, err
		}
		if !ok {
			unknown = append(unknown, w)
		}
	}
	return unknown, nil
}

// RecallTypesHelp says what a types list may name.
func RecallTypesHelp() string {
	return "knowledge, skill, episode, or an entry type: " + strings.Join(memory.KnowledgeTypes, ", ")
}

// entryTypeOverfetch widens the search when several entry types are asked
// for: the index filters on one entry type only, so the rest are filtered
// after ranking and need spare hits to still fill the limit.
const entryTypeOverfetch = 5

// Narrow returns q restricted to the kinds and, for a single entry type, to
// that type; for several it widens Limit so Filter can still fill q.Limit.
func (t RecallTypes) Narrow(q rank.Query) rank.Query {
	q.Kinds = append(q.Kinds, t.Kinds...)
	switch {
	case len(t.EntryTypes) == 1:
		q.EntryType = t.EntryTypes[0]
	case len(t.EntryTypes) > 1:
		q.Limit *= entryTypeOverfetch
	}
	return q
}

// Filter keeps at most limit hits of the asked entry types when the index
// could not filter them itself (several types); otherwise hits pass as they
// are.
func (t RecallTypes) Filter(hits []rank.Hit, limit int) []rank.Hit {
	if len(t.EntryTypes) <= 1 {
		return hits
	}
	return filterHits(hits, func(d rank.Doc) bool { return containsFold(t.EntryTypes, d.Type) }, limit)
}
