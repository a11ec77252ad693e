package sidecar

import (
	"context"
	"fmt"
	"os"

	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/team"
)

// pools are the mounted team pools of a server, each with its store.
type pools []team.Opened

// openPools opens a store over every mounted pool. A pool whose folder is
// missing is still mounted (a project checked out later, a clone not yet
// made): it lists nothing until it appears.
func openPools(cfg Config) (pools, error) {
	out := make(pools, 0, len(cfg.Teams))
	for _, p := range cfg.Teams {
		st, err := p.Open(memory.Config{Now: cfg.Now, Logger: cfg.Logger.With(LoggerKey, "somni.team")})
		if err != nil {
			return nil, fmt.Errorf("sidecar: %w", err)
		}
		out = append(out, team.Opened{Pool: p, Store: st})
	}
	return out, nil
}

// recallSource is what the index reads: the personal memory first, then
// every mounted pool, ranked together in one index. Each file is read
// through the store whose boundary holds it.
type recallSource struct {
	stores []*memory.Store
	pools  pools
}

var (
	_ index.Source         = recallSource{}
	_ index.SubtreeScanner = recallSource{}
)

func newRecallSource(personal *memory.Store, ps pools) recallSource {
	src := recallSource{stores: []*memory.Store{personal}, pools: ps}
	for _, p := range ps {
		src.stores = append(src.stores, p.Store)
	}
	return src
}

// Scan implements index.Source.
func (r recallSource) Scan(ctx context.Context) ([]index.FileRef, error) {
	var out []index.FileRef
	for _, st := range r.stores {
		refs, err := storeSource{st}.Scan(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, refs...)
	}
	return out, nil
}

// ScanUnder implements index.SubtreeScanner.
func (r recallSource) ScanUnder(ctx context.Context, p string) ([]index.FileRef, error) {
	st := r.owner(p)
	if st == nil {
		return nil, nil
	}
	return storeSource{st}.ScanUnder(ctx, p)
}

// Load implements index.Source.
func (r recallSource) Load(ctx context.Context, ref index.FileRef) (rank.Doc, error) {
	st := r.owner(ref.Path)
	if st == nil {
		return rank.Doc{}, fmt.Errorf("sidecar: %s is in no mounted memory", ref.Path)
	}
	return storeSource{st}.Load(ctx, ref)
}

// owner is the store whose boundary holds p (the innermost: a cloned pool
// lives in the data dir, beside memory/).
func (r recallSource) owner(p string) *memory.Store {
	var best *memory.Store
	bestLen := -1
	for _, st := range r.stores {
		for _, root := range st.FS().Roots() {
			if memory.CheckWithin(root, p) == nil && len(root) > bestLen {
				best, bestLen = st, len(root)
			}
		}
	}
	return best
}

// shared is the index's Options.Shared: whether p is a mounted pool's
// entry rather than the user's own (team.Of, the one lookup of the pool
// holding a path; the index asks it once per entry it files); nil when no
// pool is mounted, so a memory without pools ranks as it always did.
func (r recallSource) shared() func(string) bool {
	if len(r.pools) == 0 {
		return nil
	}
	return func(p string) bool {
		_, ok := team.Of(r.pools, p)
		return ok
	}
}

// roots are every store's boundary: the index stats a changed path only
// inside them.
func (r recallSource) roots() []string {
	var out []string
	for _, st := range r.stores {
		out = append(out, st.FS().Roots()...)
	}
	return out
}

// watchDirs are the folders the watcher follows: the personal memory's
// (created at start) and each pool's that exist — somni never creates a
// folder in a project's checkout just to watch it; a pool folder made later
// is found by the periodic scan.
func (r recallSource) watchDirs() []string {
	dirs := append([]string(nil), r.stores[0].RecallDirs()...)
	for _, st := range r.stores[1:] {
		for _, d := range st.RecallDirs() {
			if info, err := os.Stat(d); err == nil && info.IsDir() {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// names says where a result's file is, for whoever reads it: personal
// files relative to the data dir (memory/knowledge/…), a pool's entry by
// its origin — "team NAME, shared by WHO: knowledge/…" — so every hit,
// hint and search result says where it comes from.
type names struct {
	store *memory.Store
	pools pools
}

// show is the file as a tool result or a hint names it.
func (n names) show(p string) string {
	if pl, ok := team.Of(n.pools, p); ok {
		return origin(pl, p) + ": " + pl.RelPath(p)
	}
	return n.store.Rel(p)
}

// Origin says where the entry at p comes from: "team NAME, shared by WHO"
// for a team pool's, "" for the personal memory's.
func (s *Server) Origin(p string) string {
	if pl, ok := team.Of(s.pools, p); ok {
		return origin(pl, p)
	}
	return ""
}

// origin labels the pool's entry at p, with who shared it when it says.
func origin(pl team.Opened, p string) string {
	sharedBy := ""
	if e, err := pl.Store.Load(p); err == nil {
		sharedBy = e.Meta.Value(team.KeySharedBy)
	}
	return team.Origin(pl.Pool, sharedBy)
}
