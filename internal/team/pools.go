package team

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/memory"
)

// ParseFlag reads one --team value, NAME=FOLDER: a pool the host's config
// mounts for this process (a project's cordis.yml ships its pool this way)
// without writing teams.yml. Only folders: cloning is `team add`'s job.
func ParseFlag(v string) (Pool, error) {
	name, folder, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(folder) == "" {
		return Pool{}, fmt.Errorf("--team %q: want NAME=FOLDER, e.g. --team backend=/src/backend/.somni", v)
	}
	name = strings.TrimSpace(name)
	if err := CheckName(name); err != nil {
		return Pool{}, fmt.Errorf("--team %q: %w", v, err)
	}
	abs, err := filepath.Abs(strings.TrimSpace(folder))
	if err != nil {
		return Pool{}, fmt.Errorf("--team %q: %w", v, err)
	}
	return Pool{Name: name, Root: abs}, nil
}

// Mounted is every pool of one process: teams.yml's, then the flags'. A
// flag naming a pool teams.yml has replaces it (the host's config is the
// later word); more than MaxPools is refused.
func Mounted(dataDir string, flags []Pool) ([]Pool, error) {
	pools, err := List(dataDir)
	if err != nil {
		return nil, err
	}
	data, _ := filepath.Abs(dataDir)
	for _, f := range flags {
		if overlaps(data, f.Root) {
			return nil, fmt.Errorf("--team %s=%s overlaps the data dir %s; a team pool lives beside the personal memory, not in it", f.Name, f.Root, data)
		}
		replaced := false
		for i := range pools {
			if pools[i].Name == f.Name {
				pools[i], replaced = f, true
			}
		}
		if !replaced {
			pools = append(pools, f)
		}
	}
	if len(pools) > MaxPools {
		return nil, fmt.Errorf("%d team pools mounted; at most %d", len(pools), MaxPools)
	}
	return pools, nil
}

// overlaps says whether a pool folder and the data dir hold one another:
// the personal memory would be indexed twice, or a pool's writes land in it.
func overlaps(data, folder string) bool {
	return memory.CheckWithin(data, folder) == nil || memory.CheckWithin(folder, data) == nil
}

// Opened is a mounted pool with the store that reads it (Pool.Open) — and,
// for an approved share alone, writes it: the one pairing recall, the
// Memory tab and the share machinery all keep.
type Opened struct {
	Pool
	Store *memory.Store
}

// Of is the pool among ps whose folder holds path.
func Of(ps []Opened, path string) (Opened, bool) {
	for _, pl := range ps {
		if memory.CheckWithin(pl.Root, path) == nil {
			return pl, true
		}
	}
	return Opened{}, false
}

// KeySharedBy is the front-matter key an approved share writes: who shared
// the entry, shown with every result from the pool.
const KeySharedBy = "shared_by"

// RelPath is a path of the pool relative to its folder (knowledge/x/SKILL.md):
// no home directory or checkout path in what a model reads.
func (p Pool) RelPath(path string) string {
	r, err := filepath.Rel(p.Root, path)
	if err != nil {
		return filepath.Base(path)
	}
	return filepath.ToSlash(r)
}

// Origin says where an entry of the pool comes from, for every result
// that shows it: "team NAME", and who shared it when the entry says.
func Origin(p Pool, sharedBy string) string {
	if s := strings.TrimSpace(sharedBy); s != "" {
		return "team " + p.Name + ", shared by " + s
	}
	return "team " + p.Name
}
