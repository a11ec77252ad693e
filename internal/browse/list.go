package browse

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/memory"
)

// ListQuery is memory.list's filter and page.
type ListQuery struct {
	Kind     string // knowledge | episode | skill | intention | identity | "" (all)
	Query    string // "" lists newest first; else ranked by recall's search
	Tag      string
	Since    string // YYYY-MM-DD, inclusive
	Until    string // YYYY-MM-DD, inclusive
	Archived bool   // list what was archived instead of what is active
	Limit    int    // 1..MaxListLimit; 0 ⇒ DefaultListLimit
	Offset   int
}

// ListResult is one page of entries and how many matched in all.
type ListResult struct {
	Total   int    `json:"total"`
	Entries []Item `json:"entries"`
}

// Item is one entry as a list row shows it.
type Item struct {
	Path        string   `json:"path"`
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Score       *float64 `json:"score,omitempty"`
	Stability   *int     `json:"stability,omitempty"`
	LastUsed    string   `json:"lastUsed,omitempty"`
	Created     string   `json:"created,omitempty"`
	Tags        []string `json:"tags"`
	Pinned      bool     `json:"pinned"`
	Archived    bool     `json:"archived"`
	Hit         *Hit     `json:"hit,omitempty"`
	Origin      *Origin  `json:"origin,omitempty"` // a team pool's entry: where it lives
}

// Hit is why a ranked row matched: recall's score and its reason line.
type Hit struct {
	Score float64 `json:"score"`
	Why   string  `json:"why"`
}

var listKinds = map[string][]memory.Kind{
	"":          {memory.KindKnowledge, memory.KindEpisode, memory.KindSkill, memory.KindIntention, memory.KindIdentity},
	"knowledge": {memory.KindKnowledge},
	"episode":   {memory.KindEpisode},
	"skill":     {memory.KindSkill},
	"intention": {memory.KindIntention},
	"identity":  {memory.KindIdentity},
}

// indexKinds are the kinds recall indexes, by list kind ("" ⇒ all of them).
var indexKinds = map[string][]string{
	"":          nil,
	"knowledge": {rank.KindKnowledge},
	"episode":   {rank.KindEpisode},
	"skill":     {rank.KindSkill},
}

// filter is a ListQuery checked and parsed.
type filter struct {
	kinds        []memory.Kind
	tag          string
	since, until time.Time
}

func (q *ListQuery) check() (filter, error) {
	var f filter
	kinds, ok := listKinds[strings.TrimSpace(q.Kind)]
	if !ok {
		return f, invalid("kind %q must be knowledge, episode, skill, intention, identity or empty", q.Kind)
	}
	f.kinds = kinds
	switch {
	case len(q.Query) > MaxQueryBytes:
		return f, invalid("query is %d bytes, over the %d-byte limit", len(q.Query), MaxQueryBytes)
	case len(q.Tag) > MaxTagBytes:
		return f, invalid("tag is %d bytes, over the %d-byte limit", len(q.Tag), MaxTagBytes)
	}
	f.tag = strings.TrimSpace(q.Tag)
	for _, d := range []struct {
		name string
		val  string
		to   *time.Time
	}{{"since", q.Since, &f.since}, {"until", q.Until, &f.until}} {
		if v := strings.TrimSpace(d.val); v != "" {
			t, err := time.Parse(dates.Layout, v) // a calendar day, compared as civil days
			if err != nil {
				return f, invalid("%s %q is not a YYYY-MM-DD date", d.name, d.val)
			}
			*d.to = t
		}
	}
	if !f.until.IsZero() {
		f.until = f.until.AddDate(0, 0, 1) // inclusive: before the next day
	}
	if !f.since.IsZero() && !f.until.IsZero() && !f.since.Before(f.until) {
		return f, invalid("since %s is after until %s", q.Since, q.Until)
	}
	if q.Limit <= 0 {
		q.Limit = DefaultListLimit
	}
	q.Limit = min(q.Limit, MaxListLimit)
	q.Offset = min(max(q.Offset, 0), MaxOffset)
	return f, nil
}

// List answers memory.list. With a query over what recall indexes (active
// knowledge, episodes, skills) the rows are recall's own ranking (the search
// recall_memories runs, without counting the look as use); any other query
// keeps the rows whose name, description or body contain it.
func (b *Browser) List(ctx context.Context, q ListQuery) (ListResult, error) {
	f, err := q.check()
	if err != nil {
		return ListResult{}, err
	}
	var items []Item
	ixKinds, indexed := indexKinds[strings.TrimSpace(q.Kind)]
	if text := strings.TrimSpace(q.Query); text != "" && indexed && !q.Archived && b.search != nil {
		var tags []string
		if f.tag != "" {
			tags = []string{f.tag}
		}
		items, err = b.ranked(ctx, rank.Query{Text: text, Kinds: ixKinds, Tags: tags, Limit: MaxRankedHits}, f)
	} else {
		items, err = b.listed(ctx, f, q.Archived, text)
	}
	if err != nil {
		return ListResult{}, err
	}
	res := ListResult{Total: len(items), Entries: []Item{}}
	if q.Offset < len(items) {
		res.Entries = items[q.Offset:min(len(items), q.Offset+q.Limit)]
	}
	return res, nil
}

// ranked is a query through recall's search; the filters apply after it, as
// they do for the search tools' own type filters.
func (b *Browser) ranked(ctx context.Context, q rank.Query, f filter) ([]Item, error) {
	hits, err := b.search(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("browse: list: %w", err)
	}
	shown := rank.Shown(hits)
	var out []Item
	for i, h := range hits {
		e, err := b.load(h.Doc.Path)
		if err != nil || !f.keep(e) {
			continue // changed since it was indexed, or filtered out
		}
		it := b.item(e)
		it.Hit = &Hit{Score: round3(h.Hybrid), Why: shown[i].Why()}
		out = append(out, it)
	}
	return out, nil
}

// listed is every entry of the filter's kinds, newest first.
func (b *Browser) listed(ctx context.Context, f filter, archived bool, text string) ([]Item, error) {
	entries, err := b.entries(ctx, f.kinds, archived)
	if err != nil {
		return nil, err
	}
	type row struct {
		at time.Time
		it Item
	}
	var rows []row
	for _, e := range entries {
		if !f.keep(e) || text != "" && !contains(e, text) {
			continue
		}
		rows = append(rows, row{dayOf(e), b.item(e)})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if !rows[i].at.Equal(rows[j].at) {
			return rows[i].at.After(rows[j].at)
		}
		return rows[i].it.Path < rows[j].it.Path
	})
	out := make([]Item, len(rows))
	for i, r := range rows {
		out[i] = r.it
	}
	return out, nil
}

// entries loads the active (or archived) entries of kinds, the mounted
// team pools' active ones with them; files that do not parse are doctor's
// to report and are left out here.
func (b *Browser) entries(ctx context.Context, kinds []memory.Kind, archived bool) ([]*memory.Entry, error) {
	var out []*memory.Entry
	var scan []memory.Kind
	for _, k := range kinds {
		if k == memory.KindIdentity {
			if !archived {
				out = append(out, b.profiles()...)
			}
			continue
		}
		scan = append(scan, k)
	}
	if len(scan) == 0 {
		return out, nil
	}
	if !archived {
		es, _, err := b.store.List(ctx, scan...)
		if err != nil {
			return nil, fmt.Errorf("browse: list: %w", err)
		}
		shared, err := b.poolEntries(ctx, scan)
		if err != nil {
			return nil, err
		}
		return append(append(out, es...), shared...), nil
	}
	for _, dir := range b.archiveDirs() {
		err := b.store.FS().WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "SKILL.md" && d.Name() != "INTENT.md" {
				return nil // a missing archive, or not an entry file
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if e, err := b.store.Load(p); err == nil && e.Archived && containsKind(scan, e.Kind) {
				out = append(out, e)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("browse: list archived: %w", err)
		}
	}
	return out, nil
}

// archiveDirs are where archived entries go (memory.Store's archive moves).
func (b *Browser) archiveDirs() []string {
	m := b.store.MemoryDir()
	return []string{filepath.Join(m, "archived"), filepath.Join(m, "episodes", "archived"),
		filepath.Join(m, "intentions", "archived"), filepath.Join(b.store.SkillDir(), "archived")}
}

// profiles are the identity files: the agent's about_me.md and each user's about_user.md.
func (b *Browser) profiles() []*memory.Entry {
	m := b.store.MemoryDir()
	paths := []string{filepath.Join(m, "about_me.md"), filepath.Join(m, "about_user.md")}
	des, _ := b.store.FS().ReadDir(filepath.Join(m, "users"))
	for _, de := range des {
		if de.IsDir() && !strings.HasPrefix(de.Name(), ".") {
			paths = append(paths, filepath.Join(m, "users", de.Name(), "about_user.md"))
		}
	}
	var out []*memory.Entry
	for _, p := range paths {
		if e, err := b.store.Load(p); err == nil {
			out = append(out, e)
		}
	}
	return out
}

func (f filter) keep(e *memory.Entry) bool {
	if !containsKind(f.kinds, e.Kind) {
		return false
	}
	if f.tag != "" && !containsFold(e.Tags(), f.tag) {
		return false
	}
	if f.since.IsZero() && f.until.IsZero() {
		return true
	}
	at := civil(dayOf(e))
	return (f.since.IsZero() || !at.Before(f.since)) && (f.until.IsZero() || at.Before(f.until))
}

// dayOf is when an entry dates from: when it happened or was created, else
// when its file last changed.
func dayOf(e *memory.Entry) time.Time {
	if t := e.When(); !t.IsZero() {
		return t
	}
	if t, ok := e.Created(); ok {
		return t
	}
	return e.ModTime
}

// item is e's list row, with its origin when a team pool holds it.
func (b *Browser) item(e *memory.Entry) Item {
	it := Item{Path: b.WirePath(e.Path), Name: e.Name, Kind: string(e.Kind), Type: e.Type(),
		Description: e.Description(), Tags: e.Tags(), Pinned: e.Pinned(), Archived: e.Archived}
	if it.Tags == nil {
		it.Tags = []string{}
	}
	if _, ok := e.Meta.Get(memory.KeyScore); ok {
		sc := e.Score()
		it.Score = &sc
	}
	if _, ok := e.Meta.Get(memory.KeyStability); ok {
		st := e.Stability()
		it.Stability = &st
	}
	if t, ok := e.LastUsed(); ok {
		it.LastUsed = t.Format(dates.Layout)
	}
	if t, ok := e.Created(); ok {
		it.Created = t.Format(dates.Layout)
	}
	if pl, ok := b.poolOf(e.Path); ok {
		it.Origin = originOf(pl, e)
	}
	return it
}

func contains(e *memory.Entry, text string) bool {
	t := strings.ToLower(text)
	return strings.Contains(strings.ToLower(e.Name), t) || strings.Contains(strings.ToLower(e.Description()), t) ||
		strings.Contains(strings.ToLower(e.Body), t)
}

func containsKind(ks []memory.Kind, k memory.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(strings.TrimSpace(x), s) {
			return true
		}
	}
	return false
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }
