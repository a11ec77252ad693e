package team

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/somni-dev/somni/internal/gitsync"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
)

// Bounds of the registry, each a refusal with its own sentence rather than
// a silent cut: a pool is a folder every recall reads, and a person who
// mounts more than a few dozen of them has a config mistake.
const (
	// MaxPools is how many pools one machine mounts.
	MaxPools = 32
	// maxRegistryBytes bounds teams.yml (32 pools of long paths fit in 16 KiB).
	maxRegistryBytes = 64 << 10
	// maxNameLen bounds a pool's name, which becomes a folder and a label.
	maxNameLen = 40
)

// RegistryFile is where `team add` records this machine's pools, in the
// data dir and not under memory/: a pool's path is this machine's, so it
// must not travel with the personal memory's sync.
const RegistryFile = "teams.yml"

// CloneDir is the data dir's folder for team repositories somni cloned.
const CloneDir = "teams"

// Pool is one team's memory as this machine mounts it.
type Pool struct {
	// Name labels every result from the pool ("team backend").
	Name string
	// Root is the pool folder (absolute): knowledge/<name>/SKILL.md and
	// skills/<name>/SKILL.md under it, as in a data dir's memory/.
	Root string
	// Clone is the git repository somni cloned the pool from and syncs
	// (Root is its memory/ folder); "" for a folder the user's own
	// repository holds, whose files they commit with their code.
	Clone string
}

// Remote is the URL of a cloned pool's team repository, credentials left
// out; "" for a folder pool.
func (p Pool) Remote() string {
	if p.Clone == "" {
		return ""
	}
	return gitsync.RemoteURL(p.Clone)
}

// Open opens the pool's entries as a store: the same reader of the format
// as the personal memory, over the pool folder as its own boundary.
func (p Pool) Open(cfg memory.Config) (*memory.Store, error) {
	cfg.DataDir, cfg.MemoryDir, cfg.SkillDir = "", p.Root, filepath.Join(p.Root, "skills")
	st, err := memory.Open(cfg)
	if err != nil {
		return nil, fmt.Errorf("team %s: %w", p.Name, err)
	}
	return st, nil
}

var nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// CheckName says why name cannot name a pool, or nil.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("a team needs a name")
	case len(name) > maxNameLen:
		return fmt.Errorf("team name %q is longer than %d characters", name, maxNameLen)
	case !nameRe.MatchString(name):
		return fmt.Errorf("team name %q: use lower-case letters, digits and '-' (e.g. backend, platform-team)", name)
	}
	return nil
}

// registry is teams.yml as written.
type registry struct {
	Teams []entry `yaml:"teams"`
}

type entry struct {
	Name string `yaml:"name"`
	// Path is a folder pool's folder; Clone a cloned pool's repository,
	// relative to the data dir (its URL stays in the clone's git config,
	// so no credential is written twice).
	Path  string `yaml:"path,omitempty"`
	Clone string `yaml:"clone,omitempty"`
}

const registryHeader = "# somni team pools on this machine: somni-sidecar team add|list|remove edits this file.\n"

// List reads the pools this machine mounts, in the order they were added.
func List(dataDir string) ([]Pool, error) {
	reg, _, _, err := read(dataDir)
	if err != nil {
		return nil, err
	}
	return reg.pools(dataDir), nil
}

func (r registry) pools(dataDir string) []Pool {
	out := make([]Pool, 0, len(r.Teams))
	for _, e := range r.Teams {
		if e.Clone != "" {
			clone := filepath.Join(dataDir, filepath.FromSlash(e.Clone))
			out = append(out, Pool{Name: e.Name, Root: filepath.Join(clone, "memory"), Clone: clone})
			continue
		}
		out = append(out, Pool{Name: e.Name, Root: e.Path})
	}
	return out
}

// read loads teams.yml through the data dir's boundary, with the version
// a rewrite compares against; a missing file is an empty registry.
func read(dataDir string) (registry, *safefs.FS, safefs.Version, error) {
	var reg registry
	root, err := filepath.Abs(dataDir)
	if err != nil {
		return reg, nil, safefs.Version{}, fmt.Errorf("team: data dir %s: %w", dataDir, err)
	}
	fsys, err := safefs.New(root)
	if err != nil {
		return reg, nil, safefs.Version{}, fmt.Errorf("team: %w", err)
	}
	data, ver, err := fsys.ReadVersion(filepath.Join(root, RegistryFile), maxRegistryBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return reg, fsys, safefs.Version{}, nil
	}
	if err != nil {
		return reg, nil, safefs.Version{}, fmt.Errorf("team: read %s: %w", RegistryFile, err)
	}
	if err := yaml.Unmarshal(data, &reg); err != nil {
		return reg, nil, safefs.Version{}, fmt.Errorf("team: %s is not valid YAML (fix or remove it): %w", filepath.Join(root, RegistryFile), err)
	}
	for _, e := range reg.Teams {
		if err := CheckName(e.Name); err != nil {
			return reg, nil, safefs.Version{}, fmt.Errorf("team: %s: %w", RegistryFile, err)
		}
		if (e.Path == "") == (e.Clone == "") {
			return reg, nil, safefs.Version{}, fmt.Errorf("team: %s: team %s needs one of path: or clone:", RegistryFile, e.Name)
		}
	}
	return reg, fsys, ver, nil
}

// write replaces teams.yml if it is still the version read.
func write(dataDir string, fsys *safefs.FS, prev safefs.Version, reg registry) error {
	root, _ := filepath.Abs(dataDir)
	var b bytes.Buffer
	b.WriteString(registryHeader)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(reg); err != nil {
		return fmt.Errorf("team: encode %s: %w", RegistryFile, err)
	}
	p := filepath.Join(root, RegistryFile)
	if _, err := fsys.Replace(p, b.Bytes(), prev); err != nil {
		return fmt.Errorf("team: write %s (run the command again if another one changed it meanwhile): %w", RegistryFile, err)
	}
	return nil
}

// Add mounts a pool named name: target is the pool folder itself (e.g.
// <project>/.somni, created when missing only if its parent exists) or a
// git remote (a URL, or a path to a bare repository), which is cloned into
// the data dir's teams/<name> and synced like the personal memory.
func Add(ctx context.Context, dataDir, name, target string, opts ...gitsync.Option) (Pool, error) {
	if err := CheckName(name); err != nil {
		return Pool{}, err
	}
	if strings.TrimSpace(target) == "" {
		return Pool{}, errors.New("give the pool's folder (e.g. ./.somni in your project) or the team repository's git URL")
	}
	reg, fsys, ver, err := read(dataDir)
	if err != nil {
		return Pool{}, err
	}
	if len(reg.Teams) >= MaxPools {
		return Pool{}, fmt.Errorf("this machine already mounts %d team pools, the most it takes; remove one first", MaxPools)
	}
	for _, e := range reg.Teams {
		if e.Name == name {
			return Pool{}, fmt.Errorf("a team named %s is already mounted (somni-sidecar team list)", name)
		}
	}
	data, _ := filepath.Abs(dataDir)
	var e entry
	if folder, ok, err := poolFolder(data, target); err != nil {
		return Pool{}, err
	} else if ok {
		for _, o := range reg.Teams {
			if o.Path == folder {
				return Pool{}, fmt.Errorf("%s is already mounted as team %s", folder, o.Name)
			}
		}
		e = entry{Name: name, Path: folder}
	} else {
		rel := CloneDir + "/" + name
		clone := filepath.Join(data, CloneDir, name)
		if _, err := os.Lstat(clone); err == nil {
			return Pool{}, fmt.Errorf("%s already exists; remove it or choose another team name", clone)
		}
		if err := os.MkdirAll(clone, 0o755); err != nil {
			return Pool{}, fmt.Errorf("team %s: create %s: %w", name, clone, err)
		}
		if _, err := gitsync.Init(ctx, clone, target, opts...); err != nil {
			_ = os.RemoveAll(clone) // nothing of it was mounted; a retry starts clean
			return Pool{}, fmt.Errorf("team %s: %w", name, err)
		}
		e = entry{Name: name, Clone: rel}
	}
	reg.Teams = append(reg.Teams, e)
	if err := write(data, fsys, ver, reg); err != nil {
		return Pool{}, err
	}
	return registry{Teams: []entry{e}}.pools(data)[0], nil
}

// poolFolder says whether target names a pool folder (ok) rather than a
// git remote, and returns it absolute. A bare repository is a remote even
// as a path; a path whose parent exists but not itself is created (the
// usual first `team add shared ./.somni` of a project).
func poolFolder(data, target string) (string, bool, error) {
	if strings.Contains(target, "://") || scpLike(target) {
		return "", false, nil
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", false, fmt.Errorf("pool folder %s: %w", target, err)
	}
	info, err := os.Stat(abs)
	switch {
	case err == nil && !info.IsDir():
		return "", false, fmt.Errorf("%s is a file; give the pool's folder or the team repository's git URL", abs)
	case err == nil && isBareRepo(abs):
		return "", false, nil
	case errors.Is(err, fs.ErrNotExist):
		if parent, perr := os.Stat(filepath.Dir(abs)); perr != nil || !parent.IsDir() {
			return "", false, fmt.Errorf("no folder %s (nor its parent); give an existing folder or a git URL", abs)
		}
		if err := os.Mkdir(abs, 0o755); err != nil {
			return "", false, fmt.Errorf("create the pool folder %s: %w", abs, err)
		}
	case err != nil:
		return "", false, fmt.Errorf("pool folder %s: %w", abs, err)
	}
	if overlaps(data, abs) {
		return "", false, fmt.Errorf("%s overlaps the data dir %s; a team pool lives beside the personal memory, not in it", abs, data)
	}
	return abs, true, nil
}

// scpLike is git's scp-like remote syntax, user@host:path or host:path,
// told from a Windows drive path (C:\…) by the length before the colon.
func scpLike(s string) bool {
	i := strings.Index(s, ":")
	if i < 2 || strings.ContainsAny(s[:i], `/\`) {
		return false
	}
	return true
}

func isBareRepo(dir string) bool {
	for _, p := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return false
		}
	}
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return err != nil
}

// Removed is what Remove did.
type Removed struct {
	Pool Pool
	// KeptClone is set when a cloned pool's repository was kept because it
	// holds what its remote does not have yet (say so, with the folder).
	KeptClone bool
}

// Remove unmounts the pool named name. A folder pool's files are the
// project's and stay; a cloned pool's repository is deleted when it is in
// step with its remote, and kept (KeptClone) otherwise.
func Remove(ctx context.Context, dataDir, name string, opts ...gitsync.Option) (Removed, error) {
	reg, fsys, ver, err := read(dataDir)
	if err != nil {
		return Removed{}, err
	}
	data, _ := filepath.Abs(dataDir)
	for i, e := range reg.Teams {
		if e.Name != name {
			continue
		}
		p := registry{Teams: []entry{e}}.pools(data)[0]
		reg.Teams = append(reg.Teams[:i:i], reg.Teams[i+1:]...)
		if err := write(data, fsys, ver, reg); err != nil {
			return Removed{}, err
		}
		out := Removed{Pool: p}
		if p.Clone != "" {
			st, err := gitsync.Status(ctx, p.Clone, opts...)
			if err != nil || !st.InStep {
				out.KeptClone = true
			} else if err := os.RemoveAll(p.Clone); err != nil {
				return out, fmt.Errorf("team %s unmounted, but its clone %s could not be deleted: %w", name, p.Clone, err)
			}
		}
		return out, nil
	}
	names := make([]string, 0, len(reg.Teams))
	for _, e := range reg.Teams {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return Removed{}, fmt.Errorf("no team named %s is mounted (none is)", name)
	}
	return Removed{}, fmt.Errorf("no team named %s is mounted (mounted: %s)", name, strings.Join(names, ", "))
}
