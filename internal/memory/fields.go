package memory

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
)

// Keys recall reads besides the standard ones; only this package names them,
// so the index and doctor never learn where an entry keeps a field.
const (
	KeyRelated        = "related"
	KeyTags           = "tags"
	KeyAppliesWhen    = "applies_when"
	KeyNotAppliesWhen = "not_applies_when"
	// A fact that changed is a new entry listing the ones it replaces under
	// supersedes (written like related:); each replaced entry is kept and
	// names its successor under superseded_by, so recall can tell what holds
	// now from what held before.
	KeySupersedes   = "supersedes"
	KeySupersededBy = "superseded_by"
	// Episodes keep these as `- key: value` body lines.
	FieldWhen = "when"
	FieldDue  = "due"
)

// Related returns the names the `related:` list links to.
func (e *Entry) Related() []string { return SplitList(e.Meta.Value(KeyRelated)) }

// Supersedes returns the names of the entries this one replaces.
func (e *Entry) Supersedes() []string { return SplitList(e.Meta.Value(KeySupersedes)) }

// SupersededBy returns the name of the entry that replaced this one, "" while
// it is current. A hand-written list (`[a]`) is read leniently: its first name.
func (e *Entry) SupersededBy() string {
	if names := SplitList(e.Meta.Value(KeySupersededBy)); len(names) > 0 {
		return names[0]
	}
	return ""
}

// linkName is how another entry's list names e: its name, unless a list
// would split it (a comma in it), then its directory name, which never
// holds one (SafeName) and which links resolve too.
func linkName(e *Entry) string {
	if l := SplitList(e.Name); len(l) == 1 && l[0] == e.Name {
		return e.Name
	}
	return filepath.Base(filepath.Dir(e.Path))
}

// AppliesWhen returns the situation the entry is meant for ("" when unsaid).
func (e *Entry) AppliesWhen() string { return e.Meta.Value(KeyAppliesWhen) }

// NotAppliesWhen returns the situation the entry must not be used in.
func (e *Entry) NotAppliesWhen() string { return e.Meta.Value(KeyNotAppliesWhen) }

// Tags returns the entry's tags: an episode lists them in its body (the
// compat writer puts every episode detail there), other entries in the
// front-matter.
func (e *Entry) Tags() []string {
	if e.Kind == KindEpisode {
		return SplitList(e.BodyField(KeyTags))
	}
	return SplitList(e.Meta.Value(KeyTags))
}

// When returns the entry's date: when an episode happened (its `- when:`
// line), else the day the entry was created, for episodes, knowledge and
// skills; zero for intentions (their day is `due`) and when nothing reads
// as a date. Recall treats it as evidence for questions about a time
// ("what did we decide last May?").
func (e *Entry) When() time.Time {
	switch e.Kind {
	case KindEpisode:
		if t := dates.ParseTime(e.BodyField(FieldWhen)); !t.IsZero() {
			return t
		}
	case KindKnowledge, KindSkill:
	default:
		return time.Time{}
	}
	if t, ok := e.Created(); ok {
		return t
	}
	return time.Time{}
}

// SplitList reads a list field written as `a, b`, `[a, "b"]` or `a，b` into
// trimmed items: people and the Python sidecar write all three.
func SplitList(v string) []string {
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	if v == "" {
		return nil
	}
	var out []string
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '，' || r == '、' }) {
		p = strings.Trim(strings.TrimSpace(p), `"'`)
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
