package browse

import (
	"context"
	"errors"
	"strings"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// Document is memory.read's answer: one file whole, and its parts.
type Document struct {
	Path        string  `json:"path"`
	Kind        string  `json:"kind"`
	Name        string  `json:"name"`
	Raw         string  `json:"raw"`
	Version     string  `json:"version"`
	FrontMatter []Field `json:"frontMatter"`
	Body        string  `json:"body"`
	Pinned      bool    `json:"pinned"`
	Archived    bool    `json:"archived"`
	Strength    []Point `json:"strength"`
	// Problem says why the file does not parse (its text is still shown,
	// so a person can mend it with memory.write).
	Problem string `json:"problem,omitempty"`
	// Origin is where a team pool's entry lives (read-only here); absent
	// for the personal memory's.
	Origin *Origin `json:"origin,omitempty"`
}

// Field is one front-matter key and its value, in file order.
type Field struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Read answers memory.read: any file of the store's layout (entries,
// profiles, session and dream logs), read through the boundary and bounded
// like every store read; or a mounted team pool's entry (team:NAME/REL),
// through the pool's own store.
func (b *Browser) Read(ctx context.Context, rel string) (Document, error) {
	if strings.HasPrefix(rel, TeamPrefix) {
		return b.readTeam(rel)
	}
	f, err := b.resolve(rel)
	if err != nil {
		return Document{}, err
	}
	doc := Document{Path: f.rel, Kind: string(f.kind), Archived: f.archived, FrontMatter: []Field{}, Strength: []Point{}}
	e, err := b.store.Load(f.abs)
	var pe *frontmatter.ParseError
	if errors.As(err, &pe) {
		raw, rerr := b.store.FS().ReadFile(f.abs, memory.MaxEntryBytes)
		if rerr != nil {
			return Document{}, fileErr(f.rel, rerr)
		}
		doc.Raw, doc.Version, doc.Problem = string(raw), Token(raw), pe.Error()
		return doc, nil
	}
	if err != nil {
		return Document{}, fileErr(f.rel, err)
	}
	doc.Name, doc.Raw, doc.Version = e.Name, string(e.Raw()), Token(e.Raw())
	doc.Body, doc.Pinned = e.Body, e.Pinned()
	for _, k := range e.Meta.Keys() {
		doc.FrontMatter = append(doc.FrontMatter, Field{Key: k, Value: e.Meta.Value(k)})
	}
	doc.Strength = b.strength(ctx, e)
	return doc, nil
}
