package doctor

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/memory"
)

// dateKeys are the front-matter keys that must hold ISO dates.
var dateKeys = []string{memory.KeyCreated, memory.KeyLastUsed, memory.KeyLastDecay}

// checkEntries reports what is wrong across and inside parsed entries:
// names used twice, `related:` links to nothing, missing parts, bad dates.
func checkEntries(entries []*memory.Entry) []Finding {
	var out []Finding
	names := map[string][]*memory.Entry{} // lower-cased name → entries
	known := map[string]bool{}            // names and directory names a link may use
	for _, e := range entries {
		key := strings.ToLower(e.Name)
		names[key] = append(names[key], e)
		known[key] = true
		known[strings.ToLower(filepath.Base(filepath.Dir(e.Path)))] = true
	}
	for _, es := range names {
		if len(es) < 2 {
			continue
		}
		for _, e := range es {
			var others []string
			for _, o := range es {
				if o != e {
					others = append(others, o.Path)
				}
			}
			out = append(out, Finding{Path: e.Path, Kind: "duplicate-name",
				Reason: fmt.Sprintf("name %q is also used by %s", e.Name, strings.Join(others, ", "))})
		}
	}
	for _, e := range entries {
		out = append(out, CheckEntry(e, known)...)
	}
	return out
}

// CheckEntry reports one entry's missing parts, orphan links and bad dates;
// known holds the names a link may use.
func CheckEntry(e *memory.Entry, known map[string]bool) []Finding {
	var out []Finding
	if miss := e.Incomplete(); miss != "" {
		out = append(out, Finding{Path: e.Path, Kind: "incomplete", Reason: "no " + miss + " (a file cut short by an editor or a sync tool?)"})
	}
	for _, r := range e.Related() {
		if !known[strings.ToLower(r)] {
			out = append(out, Finding{Path: e.Path, Kind: "orphan-link", Reason: fmt.Sprintf("related: %q names no entry", r)})
		}
	}
	for _, k := range dateKeys {
		if v, ok := e.Meta.Get(k); ok && strings.TrimSpace(v) != "" && !dates.IsDate(v) {
			out = append(out, Finding{Path: e.Path, Kind: "bad-date", Reason: fmt.Sprintf("%s: %q is not a YYYY-MM-DD date", k, v)})
		}
	}
	if e.Kind == memory.KindIntention {
		if v := e.BodyField(memory.FieldDue); v != "" && !dates.IsDate(v) {
			out = append(out, Finding{Path: e.Path, Kind: "bad-date", Reason: fmt.Sprintf("due: %q is not a YYYY-MM-DD date", v)})
		}
	}
	if e.Kind == memory.KindEpisode {
		if v := e.BodyField(memory.FieldWhen); v != "" && dates.ParseTime(v).IsZero() {
			out = append(out, Finding{Path: e.Path, Kind: "bad-date", Reason: fmt.Sprintf("when: %q is not a date", v)})
		}
	}
	return out
}
