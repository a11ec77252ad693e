package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/textseg"
)

// ErrExists is returned (wrapped in *DuplicateError) when a create would duplicate an existing entry.
var ErrExists = errors.New("already exists")

// ErrInvalid is wrapped by every refusal of bad input (missing field, unknown type, protected skill …).
var ErrInvalid = errors.New("invalid input")

// DuplicateError reports a create refused because Existing already covers it; update that instead.
type DuplicateError struct {
	Existing *Entry
	// Why says how it matched: "same name", "same directory name" or "similar description".
	Why string
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("memory: %q %s already exists (%s): update it instead of creating a copy",
		e.Existing.Name, e.Existing.Kind, e.Why)
}

func (e *DuplicateError) Unwrap() error { return ErrExists }

func invalid(format string, args ...any) error {
	return fmt.Errorf("memory: %w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// maxDescriptionRunes bounds descriptions; they are one-line summaries injected into prompts.
const maxDescriptionRunes = 500

// CheckDescription trims desc and refuses an empty or overlong one (ErrInvalid).
func CheckDescription(desc string) (string, error) {
	d := strings.TrimSpace(desc)
	if d == "" {
		return "", invalid("description is required")
	}
	if utf8.RuneCountInString(d) > maxDescriptionRunes {
		return "", invalid("description is longer than %d characters; keep it to one line and put details in the body", maxDescriptionRunes)
	}
	return d, nil
}

// Draft is a new entry before it is saved: what NewEntry stamps with the
// compat lifecycle keys.
type Draft struct {
	Kind              Kind
	Path              string
	Name, Description string
	Type              string // the front-matter type
	Score             float64
	Body              string
}

// NewEntry builds a fresh entry from d with the compat keys set, created,
// last used and last decayed today; Save writes it.
func (s *Store) NewEntry(d Draft) *Entry {
	today := s.today()
	m := frontmatter.New()
	m.Set(KeyName, d.Name)
	m.Set(KeyDescription, d.Description)
	m.Set(KeyType, d.Type)
	m.Set(KeyStability, "0")
	m.Set(KeyScore, FormatScore(d.Score))
	m.Set(KeyCreated, today)
	m.Set(KeyLastUsed, today)
	m.Set(KeyLastDecay, today)
	return &Entry{Kind: d.Kind, Name: d.Name, Path: d.Path, Meta: m, Body: d.Body}
}

// FindDuplicate returns an active entry of kind that a new item called name with description desc would
// duplicate: the same name, the same safe directory name, or a description with high token overlap. The entry
// at path except ("" for none) is passed over: the one a new entry supersedes shares its topic by design.
func (s *Store) FindDuplicate(ctx context.Context, kind Kind, name, desc, except string) (*Entry, string, error) {
	safe, err := SafeName(name)
	if err != nil {
		return nil, "", err
	}
	kinds := []Kind{kind}
	if kind == KindKnowledge || kind == KindSkill {
		kinds = []Kind{KindKnowledge, KindSkill} // a fact and a skill of the same name would shadow each other
	}
	entries, _, err := s.List(ctx, kinds...)
	if err != nil {
		return nil, "", err
	}
	want := tokenSet(desc)
	var best *Entry
	bestSim := 0.0
	for _, e := range entries {
		if except != "" && e.Path == except {
			continue
		}
		if e.Name == name || strings.EqualFold(e.Name, strings.TrimSpace(name)) {
			return e, "same name", nil
		}
		if sameEntryName(filepath.Base(filepath.Dir(e.Path)), safe) {
			return e, "same directory name", nil
		}
		if sim := jaccard(want, tokenSet(e.Description())); sim > bestSim {
			best, bestSim = e, sim
		}
	}
	if best != nil && bestSim >= DuplicateSimilarity && len(want) >= 3 {
		return best, fmt.Sprintf("similar description, %.0f%% token overlap", bestSim*100), nil
	}
	return nil, "", nil
}

// DuplicateSimilarity is the description token overlap (Jaccard) at which a new item counts as a duplicate.
const DuplicateSimilarity = 0.7

// tokenSet is the set of text's lexical terms (textseg, the same terms recall matches on).
func tokenSet(text string) map[string]struct{} {
	out := map[string]struct{}{}
	for _, t := range textseg.Tokenize(text) {
		if utf8.RuneCountInString(t) >= 2 {
			out[t] = struct{}{}
		}
	}
	return out
}

func jaccard(a, b map[string]struct{}) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if _, ok := b[t]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// KnowledgeInput is a new knowledge entry, as CreateKnowledge, SupersedeKnowledge and CheckKnowledge take it.
type KnowledgeInput struct {
	Name        string // the entry's name and folder: a safe name without a secret, not "archived"
	Type        string // one of KnowledgeTypes; "" is experience
	Description string // one line, at most 500 characters: recall matches it first
	Body        string // the details in Markdown; required
	// Verified is false for what the session did not confirm: a lower start score and the unverified banner.
	Verified bool
}

// CreateKnowledge creates knowledge/<name>/SKILL.md. A same-named or near-duplicate item is not copied:
// the error is a *DuplicateError carrying the existing entry.
func (s *Store) CreateKnowledge(ctx context.Context, in KnowledgeInput) (*Entry, error) {
	return s.createSemantic(ctx, KindKnowledge, s.dirs.knowledge, in, nil)
}

// MarkError comes with the new entry from SupersedeKnowledge when the new entry was written but the one it
// supersedes could not be marked superseded_by it: the link then stands in the new entry's supersedes alone.
type MarkError struct {
	Old string // the unmarked entry's path
	Err error
}

func (e *MarkError) Error() string {
	return fmt.Sprintf("memory: mark %s superseded: %v", e.Old, e.Err)
}

func (e *MarkError) Unwrap() error { return e.Err }

// SupersedeKnowledge creates a knowledge entry like CreateKnowledge, as the one replacing the
// existing knowledge entry old because the fact changed: the new entry is written with `supersedes: old`,
// then old, kept, gets `superseded_by: <in.Name>` (an earlier successor is overwritten: the newest wins) through
// the compare-and-swap rewrite, both under one hold of the write lock. When old is not an existing
// knowledge entry nothing is written (ErrNotFound); old is no duplicate of its successor, which restates
// its topic by design. When old cannot be marked after the new entry was written, the new entry is
// returned with a *MarkError: the new fact is kept rather than lost to a failure on the old file.
func (s *Store) SupersedeKnowledge(ctx context.Context, old string, in KnowledgeInput) (*Entry, error) {
	prev, err := s.findKind(ctx, old, KindKnowledge)
	if err != nil {
		return nil, err
	}
	if sameEntryName(prev.Name, in.Name) || sameEntryName(filepath.Base(filepath.Dir(prev.Path)), in.Name) {
		return nil, invalid("the entry superseding %q needs a name of its own", prev.Name)
	}
	return s.createSemantic(ctx, KindKnowledge, s.dirs.knowledge, in, prev)
}

// SkillInput is a new learned skill, as CreateSkill takes it.
type SkillInput struct {
	Name        string // the skill's name and folder: a safe name without a secret, not "archived"
	Description string // one line, at most 500 characters: when to use the skill
	Body        string // the procedure in Markdown; required
	// Verified is false for a procedure that did not fully work: a lower start score and the unverified banner.
	Verified bool
}

// CreateSkill creates skills/agent_learned_skills/<name>/SKILL.md, refusing duplicates like CreateKnowledge.
func (s *Store) CreateSkill(ctx context.Context, in SkillInput) (*Entry, error) {
	return s.createSemantic(ctx, KindSkill, s.dirs.learned, KnowledgeInput{
		Name: in.Name, Type: "skill", Description: in.Description, Body: in.Body, Verified: in.Verified,
	}, nil)
}

// KnowledgeTypes are the knowledge `type` values the dreamer may use.
var KnowledgeTypes = []string{"experience", "fact", "decision", "pitfall", "preference", "user", "procedure", "insight"}

// CheckKnowledge runs CreateKnowledge's checks of its input without writing anything: the name
// (a folder name without a secret, not "archived"), the entry type, the one-line description and a
// body (Verified is not checked). Nil when a knowledge entry of these fields could be created, a duplicate
// aside; a share proposal is checked by it so that its approval is not refused for what could be said at once.
func CheckKnowledge(in KnowledgeInput) error {
	in.Name = strings.TrimSpace(in.Name)
	_, _, _, err := checkSemantic(KindKnowledge, in)
	return err
}

// checkSemantic checks a new knowledge entry's or learned skill's input (a skill's
// Type is "skill") and returns its folder name, its description trimmed and its type as written.
func checkSemantic(kind Kind, in KnowledgeInput) (dir, desc, entryType string, err error) {
	dir, err = entryDirName(in.Name)
	if err != nil {
		return "", "", "", fmt.Errorf("memory: create %s: %w", kind, err)
	}
	if desc, err = CheckDescription(in.Description); err != nil {
		return "", "", "", err
	}
	typ := strings.ToLower(strings.TrimSpace(in.Type))
	if kind == KindKnowledge {
		if typ == "" {
			typ = "experience"
		}
		if typ == "episode" || typ == "intention" || typ == "identity" || typ == "skill" {
			return "", "", "", invalid("entry_type %q is not a knowledge type (use one of %s)", typ, strings.Join(KnowledgeTypes, ", "))
		}
		if len(typ) > 40 || strings.ContainsAny(typ, " \n:/\\") {
			return "", "", "", invalid("entry_type %q is not a single word", typ)
		}
	}
	if strings.TrimSpace(in.Body) == "" {
		return "", "", "", invalid("body is required")
	}
	return dir, desc, typ, nil
}

// createSemantic creates a knowledge entry or a learned skill (in of Type "skill") under rootDir;
// prev, when set, is the entry it supersedes.
func (s *Store) createSemantic(ctx context.Context, kind Kind, rootDir string, in KnowledgeInput, prev *Entry) (*Entry, error) {
	in.Name = strings.TrimSpace(in.Name)
	dir, desc, typ, err := checkSemantic(kind, in)
	if err != nil {
		return nil, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	except := ""
	if prev != nil {
		// Found before the lock: it must still be there (archived meanwhile:
		// ErrNotFound), or nothing is written.
		fresh, err := s.Load(prev.Path)
		if err != nil {
			return nil, fmt.Errorf("memory: supersede %q: %w", prev.Name, err)
		}
		prev, except = fresh, fresh.Path
	}
	if dup, why, err := s.FindDuplicate(ctx, kind, in.Name, desc, except); err != nil {
		return nil, err
	} else if dup != nil {
		return nil, &DuplicateError{Existing: dup, Why: why}
	}
	dir = existingSpelling(s.fs, dir, rootDir) // an unreadable entry spelled in other case is still this name
	path, err := within(rootDir, dir, "SKILL.md")
	if err != nil {
		return nil, err
	}
	if s.fs.Exists(path) {
		e, lerr := s.Load(path)
		if lerr != nil {
			return nil, fmt.Errorf("memory: create %s: %s exists but cannot be read: %w", in.Name, path, lerr)
		}
		return nil, &DuplicateError{Existing: e, Why: "same directory name"}
	}
	if !in.Verified && !strings.HasPrefix(in.Body, UnverifiedBanner) {
		in.Body = UnverifiedBanner + in.Body
	}
	e := s.NewEntry(Draft{Kind: kind, Path: path, Name: in.Name, Description: desc, Type: typ,
		Score: SemanticBirthScore(in.Verified), Body: ensureTrailingNewline(in.Body)})
	if kind == KindSkill {
		e.Learned = true
	}
	if !in.Verified {
		e.Meta.Set("verified", "false")
	}
	if prev != nil {
		e.Meta.Set(KeySupersedes, linkName(prev))
	}
	// The write makes the entry's folder first: when the file then fails
	// (a full disk), the empty folder would stay behind for scans and the
	// next dream to trip over, so it goes (Remove takes only an empty one).
	made := !s.fs.Exists(filepath.Dir(path))
	if err := s.Save(e); err != nil {
		if made {
			_ = s.fs.Remove(filepath.Dir(path))
		}
		return nil, err
	}
	if prev == nil {
		return e, nil
	}
	// prev, kept, names its successor: written into the file as it is on
	// disk, a compare-and-swap like every rewrite.
	by := linkName(e)
	err = s.RewriteLocked(&Entry{Path: prev.Path}, func(old *Entry) error {
		if old.Meta.Value(KeySupersededBy) == by {
			return ErrNoChange
		}
		old.Meta.Set(KeySupersededBy, by)
		return nil
	})
	if err != nil {
		return e, &MarkError{Old: prev.Path, Err: err}
	}
	return e, nil
}

func ensureTrailingNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// KnowledgeUpdate is a change to an existing knowledge entry, as UpdateKnowledge takes it.
type KnowledgeUpdate struct {
	Name           string  // the existing entry's name
	Description    string  // the new one-line description; "" keeps the old one
	Body           string  // the new full body; "" keeps the old one
	StabilityDelta int     // added to stability, within ±5
	ScoreDelta     float64 // added to score, within ±0.5
}

// UpdateKnowledge changes an existing knowledge entry, applies the deltas and reinforces it with
// record_usage — an update re-confirms the memory.
func (s *Store) UpdateKnowledge(ctx context.Context, in KnowledgeUpdate) (*Entry, error) {
	e, err := s.findKind(ctx, in.Name, KindKnowledge)
	if err != nil {
		return nil, err
	}
	return s.update(e, SkillUpdate{Description: in.Description, Body: in.Body,
		StabilityDelta: in.StabilityDelta, ScoreDelta: in.ScoreDelta}, nil)
}

// SkillUpdate is a change to an existing skill, as UpdateSkill takes it.
type SkillUpdate struct {
	Name        string // the existing skill's name
	Description string // the new one-line description; "" keeps the old one
	// Body is the new full body; "" keeps the old one. Outside agent_learned_skills it may only grow.
	Body           string
	MergeNote      string  // what was merged and why: appended to the body as a dated note; "" for none
	StabilityDelta int     // added to stability, within ±5
	ScoreDelta     float64 // added to score, within ±0.5
}

// UpdateSkill changes an existing skill like UpdateKnowledge. Skills outside agent_learned_skills are the
// user's: a body that would make them shorter is refused, and so is any change to a skill saying
// `auto_merge: false`.
func (s *Store) UpdateSkill(ctx context.Context, in SkillUpdate) (*Entry, error) {
	e, err := s.findKind(ctx, in.Name, KindSkill)
	if err != nil {
		return nil, err
	}
	// Checked against the file as it is when the update is applied, not as it was when found.
	guard := func(e *Entry) error {
		if autoMergeOff(e) {
			return invalid("skill %q says auto_merge: false; it may only be edited by hand", e.Name)
		}
		if !e.Learned && strings.TrimSpace(in.Body) != "" && utf8.RuneCountInString(in.Body) < utf8.RuneCountInString(e.Body) {
			return invalid("skill %q is not a learned skill; the new body (%d chars) would shorten it (%d chars) — send the full text with your additions",
				e.Name, utf8.RuneCountInString(in.Body), utf8.RuneCountInString(e.Body))
		}
		return nil
	}
	if err := guard(e); err != nil {
		return nil, err
	}
	return s.update(e, in, guard)
}

// autoMergeOff reports a skill whose owner said `auto_merge: false` (any YAML spelling of false).
func autoMergeOff(e *Entry) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(e.Meta.Value(KeyAutoMerge)), `"'`)) {
	case "false", "no", "off", "n", "0":
		return true
	}
	return false
}

func (s *Store) findKind(ctx context.Context, name string, kind Kind) (*Entry, error) {
	if strings.TrimSpace(name) == "" {
		return nil, invalid("name is required")
	}
	e, err := s.Find(ctx, name)
	if err != nil {
		return nil, err
	}
	if e.Kind != kind {
		return nil, fmt.Errorf("memory: %q is a %s, not a %s: %w", name, e.Kind, kind, ErrNotFound)
	}
	return e, nil
}

// maxDelta bounds the deltas a caller may apply in one update.
const (
	maxStabilityDelta = 5
	maxScoreDelta     = 0.5
)

// update applies in's changes (a knowledge entry's come without a merge note; in.Name is not read) to the
// entry as it is on disk under the store lock (so nothing changed since e was found is lost, and an entry
// archived meanwhile is not recreated); guard, when set, re-checks it.
func (s *Store) update(e *Entry, in SkillUpdate, guard func(*Entry) error) (*Entry, error) {
	if in.StabilityDelta < -maxStabilityDelta || in.StabilityDelta > maxStabilityDelta {
		return nil, invalid("stability_delta %d is outside ±%d", in.StabilityDelta, maxStabilityDelta)
	}
	if math.IsNaN(in.ScoreDelta) || in.ScoreDelta < -maxScoreDelta || in.ScoreDelta > maxScoreDelta {
		return nil, invalid("score_delta %v is outside ±%v", in.ScoreDelta, maxScoreDelta)
	}
	desc := ""
	if d := strings.TrimSpace(in.Description); d != "" {
		var err error
		if desc, err = CheckDescription(d); err != nil {
			return nil, err
		}
	}
	unlock, err := s.mustLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	err = s.RewriteLocked(e, func(e *Entry) error {
		if guard != nil {
			if err := guard(e); err != nil {
				return err
			}
		}
		if desc != "" {
			e.Meta.Set(KeyDescription, desc)
		}
		if strings.TrimSpace(in.Body) != "" {
			e.Body = ensureTrailingNewline(in.Body)
		}
		if note := strings.TrimSpace(in.MergeNote); note != "" {
			e.Body = ensureTrailingNewline(e.Body) + "\n> merge note (" + s.today() + "): " + strings.ReplaceAll(note, "\n", " ") + "\n"
		}
		if in.StabilityDelta != 0 {
			e.SetStability(e.Stability() + in.StabilityDelta)
		}
		if in.ScoreDelta != 0 {
			e.SetScore(e.Score() + in.ScoreDelta)
		}
		return usageChange(s.today())(e)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Archive moves the named knowledge, skill, episode or intention to its archive directory (never deletes).
// Skills outside agent_learned_skills go to skills/archived/; a skill saying auto_merge: false is refused.
func (s *Store) Archive(ctx context.Context, name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", invalid("name is required")
	}
	e, err := s.Find(ctx, name)
	if err != nil {
		return "", err
	}
	return Editor{s}.ArchiveEntry(ctx, e.Path, nil)
}

// Editor is the store as a person's editor (the web Memory tab) sees it: entries by path,
// each change a compare-and-swap under the write lock.
type Editor struct{ s *Store }

// EditorOf returns s's editor.
func EditorOf(s *Store) Editor { return Editor{s} }

// Kind says what the file at path is, by its location; ok is false outside the store's layout.
func (ed Editor) Kind(path string) (k Kind, archived, ok bool) { return ed.s.KindOf(path) }

// ArchiveEntry is Archive of the entry file at path. check, when given, sees the
// file's bytes under the write lock; its error stops the archive. The entry is
// moved as it is; an intention is refused, as closing one notes why in its
// file (package intentions: Book.CancelFile).
func (ed Editor) ArchiveEntry(ctx context.Context, path string, check func(current []byte) error) (string, error) {
	s := ed.s
	// Locked before the first read, for every kind: a version compared with
	// bytes read unlocked can be stale by the time of the move, and a change
	// written in between would be archived unseen.
	unlock, err := s.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	e, err := s.Load(path)
	if err != nil {
		return "", err
	}
	if e.Archived || e.Kind != KindKnowledge && e.Kind != KindSkill && e.Kind != KindEpisode {
		return "", invalid("%s is not an active knowledge, skill or episode entry", s.Rel(e.Path))
	}
	if check != nil {
		if err := check(e.Raw()); err != nil {
			return "", err
		}
	}
	if e.Kind == KindSkill && autoMergeOff(e) {
		// Its owner keeps it by hand: retiring it is as much an edit as rewriting it.
		return "", invalid("skill %q says auto_merge: false; it may only be archived by hand", e.Name)
	}
	return s.archiveLocked(e)
}

// Rewrite applies change to the entry file at path under the write lock,
// through the compare-and-swap every rewrite uses; it returns what was written.
func (ed Editor) Rewrite(ctx context.Context, path string, change func(*Entry) error) (*Entry, error) {
	s := ed.s
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	e := &Entry{Path: path}
	return e, s.RewriteLocked(e, change) // e is what was written only when the error is nil
}

func (s *Store) archiveLocked(e *Entry) (string, error) {
	src := filepath.Dir(e.Path)
	var dest string
	switch {
	case e.Kind == KindEpisode:
		dest = filepath.Join(s.dirs.episodes, "archived")
	case e.Kind == KindSkill && !e.Learned:
		dest = filepath.Join(s.dirs.skills, "archived")
	default:
		dest = s.dirs.archive
	}
	// Refuse to move a root or anything outside the store.
	_, _, _, ok := s.dirs.classify(e.Path)
	if !ok || src == s.dirs.knowledge || src == s.dirs.episodes || src == s.dirs.learned || src == s.dirs.skills {
		return "", fmt.Errorf("memory: archive %s: %w", e.Path, errOutside(e.Path))
	}
	return s.MoveToFreeName(src, dest, filepath.Base(src), "")
}

// EpisodeInput is one event to remember, as RecordEpisode takes it (compat record_episode arguments).
type EpisodeInput struct {
	What     string
	Outcome  string // default "unknown"
	Actors   string // default "user, agent"
	Objects  string
	Tools    string
	Tags     string
	Salience string // low|mid|high, default low
	When     string // default now (local ISO seconds)
	Source   string // session-log id; becomes the entry name
}

// RecordEpisode writes episodes/<name>/SKILL.md; the name is the source log id (then -2, -3 …) or
// ep-YYYYMMDD-HHMMSS, and the start score follows salience.
func (s *Store) RecordEpisode(ctx context.Context, in EpisodeInput) (*Entry, error) {
	what, err := CheckDescription(in.What)
	if err != nil {
		return nil, fmt.Errorf("%w (the episode's `what`)", err)
	}
	now := s.now()
	base := "ep-" + now.Format(dates.CompactTimeLayout)
	if src := strings.TrimSpace(in.Source); src != "" {
		src = strings.TrimSuffix(filepath.Base(filepath.ToSlash(src)), ".md")
		if base, err = entryDirName(src); err != nil {
			return nil, fmt.Errorf("memory: record episode source: %w", err)
		}
		in.Source = src
	}
	sal := NormalizeSalience(in.Salience)
	if v := strings.ToLower(strings.TrimSpace(in.Salience)); v != "" && v != "low" && v != "mid" && v != "medium" && v != "high" {
		return nil, invalid("salience %q must be low, mid or high", in.Salience)
	}
	when := strings.TrimSpace(in.When)
	if when == "" {
		when = now.Format(dates.TimeLayout)
	}
	outcome := strings.TrimSpace(in.Outcome)
	if outcome == "" {
		outcome = "unknown"
	}
	actors := strings.TrimSpace(in.Actors)
	if actors == "" {
		actors = "user, agent"
	}
	var b strings.Builder
	line := func(k, v string) {
		v = strings.Join(strings.Fields(v), " ") // one line per field
		if v != "" {
			b.WriteString("- " + k + ": " + v + "\n")
		}
	}
	line("when", when)
	line("actors", actors)
	line("outcome", outcome)
	line("objects", in.Objects)
	line("tools", in.Tools)
	line("tags", in.Tags)
	line("salience", sal)
	line("source", in.Source)

	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	name := base
	for i := 2; ; i++ {
		name = existingSpelling(s.fs, name, s.dirs.episodes, filepath.Join(s.dirs.episodes, "archived"))
		p, err := within(s.dirs.episodes, name, "SKILL.md")
		if err != nil {
			return nil, err
		}
		if !s.fs.Exists(filepath.Dir(p)) && !s.fs.Exists(filepath.Join(s.dirs.episodes, "archived", name)) {
			break
		}
		if i > 9999 {
			return nil, fmt.Errorf("memory: record episode: no free name for %s", base)
		}
		name = base + "-" + strconv.Itoa(i)
	}
	path := filepath.Join(s.dirs.episodes, name, "SKILL.md")
	e := s.NewEntry(Draft{Kind: KindEpisode, Path: path, Name: name, Description: what, Type: "episode",
		Score: EpisodeBirthScore(sal), Body: b.String()})
	if err := s.Save(e); err != nil {
		return nil, err
	}
	return e, nil
}

// Item scopes for ListItems.
const (
	ScopeAll       = "all"
	ScopeKnowledge = "knowledge"
	ScopeSkills    = "skills"
)

// ListItems returns knowledge and/or skills (each file exactly once) for the dreamer's list_items.
func (s *Store) ListItems(ctx context.Context, scope string) ([]*Entry, []Problem, error) {
	switch strings.ToLower(strings.TrimSpace(scope)) {
	case "", ScopeAll:
		return s.List(ctx, KindKnowledge, KindSkill)
	case ScopeKnowledge:
		return s.List(ctx, KindKnowledge)
	case ScopeSkills, "skill":
		return s.List(ctx, KindSkill)
	default:
		return nil, nil, invalid("scope %q must be all, knowledge or skills", scope)
	}
}

// ReadItem returns the named knowledge, skill, episode or intention.
func (s *Store) ReadItem(ctx context.Context, name string) (*Entry, error) {
	if strings.TrimSpace(name) == "" {
		return nil, invalid("name is required")
	}
	return s.Find(ctx, name)
}
