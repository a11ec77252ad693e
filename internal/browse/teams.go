package browse

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/team"
	"github.com/somni-dev/somni/internal/textcut"
)

// TeamPrefix opens the wire path of a team pool's entry:
// team:NAME/knowledge/x/SKILL.md (NAME the pool, the rest relative to its
// folder). No path of the data directory starts so, and the tab opens one
// like any other; only memory.read takes it — a pool is written by an
// approved share alone.
const TeamPrefix = "team:"

// Pool is a mounted team pool as the tab reads it: listed, searched and
// read through its own store (its folder is its boundary), never written.
type Pool = team.Opened

// Origin says where a team pool's entry lives, on its list row and when it
// is read; absent for the personal memory's.
type Origin struct {
	Team     string `json:"team"`
	SharedBy string `json:"sharedBy,omitempty"` // who shared it, when the entry says
	Path     string `json:"path"`               // in the pool's folder: knowledge/NAME/SKILL.md
	// Cloned: the pool is a team repository somni syncs (`team sync`);
	// else a folder of the project's own repository, changed with its code.
	Cloned bool `json:"cloned"`
}

// WithPools makes the browser read the mounted team pools beside the
// personal memory: ranked hits from them, their entries in the listing,
// their files read-only.
func (b *Browser) WithPools(ps []Pool) *Browser {
	b.pools = append([]Pool(nil), ps...)
	return b
}

// WirePath names a file as the tab does: a pool's entry as
// team:NAME/REL, anything else relative to the data directory (Store.Rel).
func (b *Browser) WirePath(abs string) string {
	if pl, ok := b.poolOf(abs); ok {
		return TeamPrefix + pl.Name + "/" + pl.RelPath(abs)
	}
	return b.store.Rel(abs)
}

// poolOf is the mounted pool whose folder holds abs.
func (b *Browser) poolOf(abs string) (Pool, bool) { return team.Of(b.pools, abs) }

// origin is where the pool's entry e lives.
func originOf(pl Pool, e *memory.Entry) *Origin {
	return &Origin{Team: pl.Name, SharedBy: strings.TrimSpace(e.Meta.Value(team.KeySharedBy)),
		Path: pl.RelPath(e.Path), Cloned: pl.Clone != ""}
}

// load reads the entry at abs through the store whose boundary holds it:
// a pool's, else the personal one.
func (b *Browser) load(abs string) (*memory.Entry, error) {
	if pl, ok := b.poolOf(abs); ok {
		return pl.Store.Load(abs)
	}
	return b.store.Load(abs)
}

// poolEntries are the active knowledge and skills of every mounted pool
// among kinds (a pool holds no episodes, intentions or profiles).
func (b *Browser) poolEntries(ctx context.Context, kinds []memory.Kind) ([]*memory.Entry, error) {
	var scan []memory.Kind
	for _, k := range kinds {
		if k == memory.KindKnowledge || k == memory.KindSkill {
			scan = append(scan, k)
		}
	}
	if len(scan) == 0 {
		return nil, nil
	}
	var out []*memory.Entry
	for _, pl := range b.pools {
		es, _, err := pl.Store.List(ctx, scan...)
		if err != nil {
			return nil, fmt.Errorf("browse: list team %s: %w", pl.Name, err)
		}
		out = append(out, es...)
	}
	return out, nil
}

// teamFile turns team:NAME/REL into the pool and the file it names,
// refused (ErrBadPath) for a team not mounted or a path leaving its folder.
func (b *Browser) teamFile(rel string) (Pool, string, error) {
	name, inPool, _ := strings.Cut(strings.TrimPrefix(rel, TeamPrefix), "/")
	clean, err := cleanRel(inPool)
	if err != nil {
		return Pool{}, "", err
	}
	for _, pl := range b.pools {
		if pl.Name != name {
			continue
		}
		abs := filepath.Join(pl.Root, clean)
		if memory.CheckWithin(pl.Root, abs) != nil {
			return Pool{}, "", fmt.Errorf("%w: %q leads outside team %s's folder", ErrBadPath, rel, pl.Name)
		}
		return pl, abs, nil
	}
	return Pool{}, "", fmt.Errorf("%w: no team %q is mounted", ErrBadPath, textcut.Clip(name, 40, "…"))
}

// readTeam is Read for a pool's entry: its text and front-matter, where it
// lives (Origin), no strength (a shared entry carries no lifecycle numbers).
func (b *Browser) readTeam(rel string) (Document, error) {
	pl, abs, err := b.teamFile(rel)
	if err != nil {
		return Document{}, err
	}
	doc := Document{Path: TeamPrefix + pl.Name + "/" + pl.RelPath(abs), FrontMatter: []Field{}, Strength: []Point{},
		Origin: &Origin{Team: pl.Name, Path: pl.RelPath(abs), Cloned: pl.Clone != ""}}
	e, err := pl.Store.Load(abs)
	var pe *frontmatter.ParseError
	if errors.As(err, &pe) {
		raw, rerr := pl.Store.FS().ReadFile(abs, memory.MaxEntryBytes)
		if rerr != nil {
			return Document{}, fileErr(doc.Path, rerr)
		}
		doc.Raw, doc.Version, doc.Problem = string(raw), Token(raw), pe.Error()
		return doc, nil
	}
	if err != nil {
		return Document{}, fileErr(doc.Path, err)
	}
	doc.Kind, doc.Name, doc.Raw, doc.Version = string(e.Kind), e.Name, string(e.Raw()), Token(e.Raw())
	doc.Body, doc.Archived, doc.Origin = e.Body, e.Archived, originOf(pl, e)
	for _, k := range e.Meta.Keys() {
		doc.FrontMatter = append(doc.FrontMatter, Field{Key: k, Value: e.Meta.Value(k)})
	}
	return doc, nil
}
