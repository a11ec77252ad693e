package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/safefs"
)

// ErrNotFound is returned (wrapped) when a named entry, intention or file does not exist.
var ErrNotFound = errors.New("not found")

// Config says where the data lives; the command reads env/flags and fills it in.
type Config struct {
	// DataDir is the data root (compat default ~/.dsh/somni, resolved by the caller).
	DataDir string
	// MemoryDir defaults to <DataDir>/memory.
	MemoryDir string
	// SkillDir defaults to <DataDir>/skills.
	SkillDir string
	// Now is the clock (nil ⇒ time.Now); dates use its local calendar day.
	Now func() time.Time
	// Logger receives warnings about skipped files (nil ⇒ slog.Default()).
	Logger *slog.Logger
}

// Problem is a file that was skipped because it could not be parsed; it is never rewritten.
type Problem struct {
	Path   string
	Line   int
	Reason string
	// Refused is set when the data directory's boundary refused the file (a
	// link out, not a regular file, over its size bound) rather than it
	// failing to parse.
	Refused bool
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Reason)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Reason)
}

// Store is the Markdown memory directory. It is safe for concurrent use; mutations are serialised.
type Store struct {
	dirs layout     // where everything lives, computed once in Open
	fs   *safefs.FS // the boundary every file access goes through
	now  func() time.Time
	log  *slog.Logger

	mu sync.Mutex // serialises every mutation (names, ids, moves) in this process
	xf *os.File   // memory/.somni.lock, the write lock across processes (see lock); guarded by mu

	warnMu sync.Mutex
	warned map[string]time.Time // broken path → mtime already warned about
}

// Open prepares a store over cfg; directories are created lazily on first write.
func Open(cfg Config) (*Store, error) {
	if cfg.DataDir == "" && (cfg.MemoryDir == "" || cfg.SkillDir == "") {
		return nil, errors.New("memory: open: DataDir is required unless MemoryDir and SkillDir are both set")
	}
	abs := func(p string) (string, error) {
		if p == "" {
			return "", nil
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("memory: open: resolve %s: %w", p, err)
		}
		return a, nil
	}
	s := &Store{now: cfg.Now, log: cfg.Logger, warned: map[string]time.Time{}}
	data, err := abs(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	mem, err := abs(cfg.MemoryDir)
	if err != nil {
		return nil, err
	}
	skills, err := abs(cfg.SkillDir)
	if err != nil {
		return nil, err
	}
	if mem == "" {
		mem = filepath.Join(data, "memory")
	}
	if skills == "" {
		skills = filepath.Join(data, "skills")
	}
	s.dirs = newLayout(data, mem, skills)
	if s.fs, err = safefs.New(s.dirs.memory, s.dirs.skills); err != nil {
		return nil, fmt.Errorf("memory: open: %w", err)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s, nil
}

// DataDir returns the absolute data root.
func (s *Store) DataDir() string { return s.dirs.data }

// MemoryDir returns the absolute memory root.
func (s *Store) MemoryDir() string { return s.dirs.memory }

// SkillDir returns the absolute skills root.
func (s *Store) SkillDir() string { return s.dirs.skills }

// FS returns the boundary every file access of the data directory goes through.
func (s *Store) FS() *safefs.FS { return s.fs }

// Logger returns where the store's warnings go.
func (s *Store) Logger() *slog.Logger { return s.log }

// Now returns the store's clock reading.
func (s *Store) Now() time.Time { return s.now() }

func (s *Store) today() string { return s.now().Format(dateLayout) }

// RecallDirs are the folders holding what recall searches (knowledge,
// episodes, skills), for a caller that watches them for hand edits.
func (s *Store) RecallDirs() []string {
	return []string{s.dirs.knowledge, s.dirs.episodes, s.dirs.skills}
}

// StrategyOverridePath is skills/base_skill/memory-extraction/SKILL.md, the user's override of the dreamer prompt.
func (s *Store) StrategyOverridePath() string {
	return s.dirs.strategyOverride
}

// StrategyOverride reads the user's override of the dreamer prompt (fs.ErrNotExist when there is none).
func (s *Store) StrategyOverride() ([]byte, error) {
	return s.fs.ReadFile(s.StrategyOverridePath(), MaxEntryBytes)
}

// Scan walks the active entries cheaply (no file reads) and returns their refs sorted by path.
// With no kinds it returns knowledge, episodes and skills — what recall indexes.
func (s *Store) Scan(ctx context.Context, kinds ...Kind) ([]Ref, error) {
	var refs refBlocks
	for _, r := range s.dirs.roots(s.fs, kinds) {
		err := s.walkRoot(ctx, r, r.dir, func(path string, info fs.FileInfo) {
			refs.add(Ref{Path: path, Kind: r.kind, ModTime: info.ModTime(), Size: info.Size()})
		})
		if err != nil {
			return nil, err
		}
	}
	return refs.sorted(), nil
}

// refBlocks collects a scan's refs in blocks that are never copied while
// it grows: appended to one slice, a large store's refs were copied
// several times over, as a large slice grows by a quarter at a time
// (docs/ARCHITECTURE.md, Measurements).
type refBlocks struct {
	full [][]Ref
	cur  []Ref
	n    int
}

func (b *refBlocks) add(r Ref) {
	if len(b.cur) == cap(b.cur) {
		if b.cur != nil {
			b.full = append(b.full, b.cur)
		}
		b.cur = make([]Ref, 0, min(max(2*cap(b.cur), 256), 16384))
	}
	b.cur = append(b.cur, r)
	b.n++
}

// sorted is every ref added, sorted by path (a walk lists each folder in
// name order, which is already path order unless a name sorts below the
// separator, as "a-b" does below "a/b").
func (b *refBlocks) sorted() []Ref {
	if b.n == 0 {
		return nil
	}
	out := make([]Ref, 0, b.n)
	for _, bl := range b.full {
		out = append(out, bl...)
	}
	out = append(out, b.cur...)
	byPath := func(x, y Ref) int { return strings.Compare(x.Path, y.Path) }
	if !slices.IsSortedFunc(out, byPath) {
		slices.SortFunc(out, byPath)
	}
	return out
}

// ScanUnder is Scan limited to p and what lies below it: the refs Scan would
// return whose path is p or under directory p. A file watcher names one changed
// path, and rescanning only that subtree keeps a hand edit from costing a walk of
// the whole store. A p outside every root, missing, or in a skipped directory
// (archived, hidden) yields nothing.
func (s *Store) ScanUnder(ctx context.Context, p string, kinds ...Kind) ([]Ref, error) {
	p = filepath.Clean(p)
	var refs refBlocks
	for _, r := range s.dirs.roots(s.fs, kinds) {
		start, ok := scanStart(r, p)
		if !ok || r.kind == KindSkill && s.dirs.isStrategyOverride(start) {
			continue
		}
		err := s.walkRoot(ctx, r, start, func(path string, info fs.FileInfo) {
			refs.add(Ref{Path: path, Kind: r.kind, ModTime: info.ModTime(), Size: info.Size()})
		})
		if err != nil {
			return nil, err
		}
	}
	return refs.sorted(), nil
}

// scanStart says where a walk of root r for path p begins: the whole root when
// p contains it, p itself when p lies inside the root on a path the walk would
// not skip, nothing otherwise.
func scanStart(r root, p string) (string, bool) {
	if rel, err := filepath.Rel(p, r.dir); err == nil && !strings.HasPrefix(rel, "..") {
		return r.dir, true // p is the root or above it
	}
	rel, err := filepath.Rel(r.dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	segs := strings.Split(rel, string(filepath.Separator))
	if segs[0] == "archived" {
		return "", false
	}
	for _, seg := range segs {
		if strings.HasPrefix(seg, ".") {
			return "", false
		}
	}
	return p, true
}

// walkRoot visits every entry file of r at or below start (r.dir for the
// whole root), skipping archived/ and hidden directories.
func (s *Store) walkRoot(ctx context.Context, r root, start string, visit func(string, fs.FileInfo)) error {
	err := s.fs.WalkNamed(start, r.file, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if path == start && !safefs.IsRefusal(err) {
				return err
			}
			s.log.Warn("memory: cannot read directory, skipped", "path", path, "err", err)
			return nil
		}
		if d.IsDir() {
			if path == r.dir {
				return nil
			}
			name := d.Name()
			if strings.HasPrefix(name, ".") || (name == "archived" && filepath.Dir(path) == r.dir) {
				return filepath.SkipDir
			}
			if r.kind == KindSkill && s.dirs.isStrategyOverride(path) {
				return filepath.SkipDir
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			return nil
		}
		if d.Name() != r.file || path == filepath.Join(r.dir, r.file) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished between readdir and stat
		}
		visit(path, info)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("memory: scan %s: %w", r.dir, err)
	}
	return nil
}

// Load reads and parses one entry file. Files outside the memory and skill roots are refused.
func (s *Store) Load(path string) (*Entry, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("memory: load %s: %w", path, err)
	}
	kind, learned, archived, ok := s.dirs.classify(abs)
	if !ok {
		return nil, fmt.Errorf("memory: load %s: %w", path, errOutside(abs))
	}
	data, ver, err := s.fs.ReadVersion(abs, MaxEntryBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("memory: load %s: %w", path, ErrNotFound)
		}
		return nil, fmt.Errorf("memory: load %s: %w", path, err)
	}
	doc, err := frontmatter.Parse(abs, data)
	if err != nil {
		return nil, err
	}
	info := ver.Info()
	e := &Entry{Kind: kind, Path: abs, Meta: doc.Meta, Body: doc.Body, Learned: learned, Archived: archived,
		ModTime: info.ModTime(), Size: info.Size(), version: ver, framed: doc.HasFrontMatter}
	e.Name = strings.TrimSpace(doc.Meta.Value(KeyName))
	if e.Name == "" {
		e.Name = filepath.Base(filepath.Dir(abs))
	}
	return e, nil
}

func errOutside(path string) error {
	return fmt.Errorf("%w: %s is not inside the memory or skill directories", ErrUnsafeName, path)
}

// List loads every active entry of the given kinds (default knowledge, episodes, skills).
// Files that cannot be parsed are skipped, reported as problems and logged once as a warning.
func (s *Store) List(ctx context.Context, kinds ...Kind) ([]*Entry, []Problem, error) {
	refs, err := s.Scan(ctx, kinds...)
	if err != nil {
		return nil, nil, err
	}
	entries := make([]*Entry, 0, len(refs))
	var problems []Problem
	for i, ref := range refs {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("memory: list: %w", err)
			}
		}
		e, err := s.Load(ref.Path)
		if err != nil {
			if p, ok := s.NoteProblem(ref.Path, err); ok {
				problems = append(problems, p)
			}
			continue
		}
		entries = append(entries, e)
	}
	return entries, problems, nil
}

// NoteProblem converts a load error into a Problem and logs it once per file version.
func (s *Store) NoteProblem(path string, err error) (Problem, bool) {
	if errors.Is(err, ErrNotFound) {
		return Problem{}, false // removed while we were listing
	}
	p := Problem{Path: path, Reason: err.Error(), Refused: safefs.IsRefusal(err)}
	var pe *frontmatter.ParseError
	if errors.As(err, &pe) {
		p.Line, p.Reason = pe.Line, pe.Reason
	}
	var mt time.Time
	if info, statErr := s.fs.Stat(path); statErr == nil {
		mt = info.ModTime()
	}
	s.warnMu.Lock()
	last, seen := s.warned[path]
	if !seen || !last.Equal(mt) {
		s.warned[path] = mt
		s.log.Warn("memory: skipped unparsable file", "file", fmt.Sprintf("%s:%d", p.Path, p.Line), "reason", p.Reason)
	}
	s.warnMu.Unlock()
	return p, true
}

// Find returns the active entry (knowledge, skill, episode or intention) whose name or directory is name.
// Knowledge wins over learned skills, which win over other skills, episodes and intentions.
func (s *Store) Find(ctx context.Context, name string) (*Entry, error) {
	n := strings.TrimSpace(name)
	safe, err := SafeName(n)
	if err != nil {
		return nil, fmt.Errorf("memory: find %q: %w", name, err)
	}
	order := []Kind{KindKnowledge, KindSkill, KindEpisode, KindIntention}
	// Fast path: the directory named after the name.
	for _, r := range s.dirs.roots(s.fs, order) {
		for _, cand := range []string{n, safe} {
			if strings.ContainsAny(cand, `/\`) || cand == ".." || cand == "." {
				continue
			}
			p := filepath.Join(r.dir, cand, r.file)
			if p == s.StrategyOverridePath() {
				continue
			}
			if _, err := s.fs.Stat(p); err == nil {
				return s.Load(p)
			}
		}
	}
	// Slow path: a front-matter name that differs from its directory.
	for _, k := range order {
		entries, _, err := s.List(ctx, k)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Name == n || strings.EqualFold(e.Name, n) || sameEntryName(filepath.Base(filepath.Dir(e.Path)), n) {
				return e, nil
			}
		}
	}
	return nil, fmt.Errorf("memory: find %q: %w", name, ErrNotFound)
}

// Save writes e atomically: a new entry is created (never over an existing
// file), a loaded one is replaced only if the file still holds what was loaded
// (else an error wrapping safefs.ErrChanged; rewrite re-reads and retries).
// Paths outside the store are refused.
func (s *Store) Save(e *Entry) error {
	if e == nil || e.Meta == nil {
		return errors.New("memory: save: nil entry")
	}
	abs, err := filepath.Abs(e.Path)
	if err != nil {
		return fmt.Errorf("memory: save %s: %w", e.Path, err)
	}
	if _, _, _, ok := s.dirs.classify(abs); !ok {
		return fmt.Errorf("memory: save %s: %w", e.Path, errOutside(abs))
	}
	out := e.render()
	ver, err := s.ReplaceLocked(abs, out, e.version)
	if err != nil {
		if !e.version.Exists() && errors.Is(err, safefs.ErrChanged) {
			return fmt.Errorf("memory: save %s: %w", s.Rel(abs), fs.ErrExist)
		}
		return err
	}
	e.Path = abs
	if !bytes.Equal(ver.Data(), out) {
		// Redacted on the way to disk: e must hold what the file says.
		fresh, err := s.Load(abs)
		if err != nil {
			return fmt.Errorf("memory: reread %s: %w", abs, err)
		}
		*e = *fresh
		return nil
	}
	// A second Save of e compares against what this one wrote, without reading it back.
	e.version, e.framed = ver, true
	e.ModTime, e.Size = ver.Info().ModTime(), ver.Info().Size()
	return nil
}
