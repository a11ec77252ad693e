package memory

import (
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/safefs"
)

// layout is where everything lives in the data directory, computed once in
// Open from the three roots (see the package doc for the tree).
type layout struct {
	data, memory, skills string // the roots: absolute, data may be ""

	knowledge  string // memory/knowledge
	episodes   string // memory/episodes
	intentions string // memory/intentions
	sessionLog string // memory/session-log
	dreamLog   string // memory/dream-log
	archive    string // memory/archived: retired knowledge and learned skills
	learned    string // skills/agent_learned_skills

	strategyOverride string // skills/base_skill/memory-extraction/SKILL.md
}

// memoryExtractionOverride is the dreamer's strategy prompt, not a recallable skill.
const memoryExtractionOverride = "base_skill/memory-extraction"

func newLayout(data, memory, skills string) layout {
	return layout{
		data: data, memory: memory, skills: skills,
		knowledge:        filepath.Join(memory, "knowledge"),
		episodes:         filepath.Join(memory, "episodes"),
		intentions:       filepath.Join(memory, "intentions"),
		sessionLog:       filepath.Join(memory, "session-log"),
		dreamLog:         filepath.Join(memory, "dream-log"),
		archive:          filepath.Join(memory, "archived"),
		learned:          filepath.Join(skills, "agent_learned_skills"),
		strategyOverride: filepath.Join(skills, filepath.FromSlash(memoryExtractionOverride), "SKILL.md"),
	}
}

// root describes one directory tree of active entries.
type root struct {
	dir     string
	kind    Kind
	file    string // SKILL.md or INTENT.md
	learned bool
}

// roots lists the trees holding active entries of kinds (none: knowledge,
// episodes and skills), reading skills/ through fsys for its collections.
func (l *layout) roots(fsys *safefs.FS, kinds []Kind) []root {
	want := func(k Kind) bool {
		if len(kinds) == 0 {
			return k == KindKnowledge || k == KindEpisode || k == KindSkill
		}
		for _, x := range kinds {
			if x == k {
				return true
			}
		}
		return false
	}
	var rs []root
	if want(KindKnowledge) {
		rs = append(rs, root{dir: l.knowledge, kind: KindKnowledge, file: "SKILL.md"})
	}
	if want(KindSkill) {
		rs = append(rs, root{dir: l.learned, kind: KindSkill, file: "SKILL.md", learned: true})
		// Every other collection under skills/ holds readable skills too.
		if des, err := fsys.ReadDir(l.skills); err == nil {
			for _, de := range des {
				n := de.Name()
				if !de.IsDir() || n == "agent_learned_skills" || n == "archived" || strings.HasPrefix(n, ".") {
					continue
				}
				rs = append(rs, root{dir: filepath.Join(l.skills, n), kind: KindSkill, file: "SKILL.md"})
			}
		}
	}
	if want(KindEpisode) {
		rs = append(rs, root{dir: l.episodes, kind: KindEpisode, file: "SKILL.md"})
	}
	if want(KindIntention) {
		rs = append(rs, root{dir: l.intentions, kind: KindIntention, file: "INTENT.md"})
	}
	return rs
}

// isStrategyOverride reports whether p is the dreamer's strategy override
// folder or inside it: guidance for the dreamer, not a skill to recall.
func (l *layout) isStrategyOverride(p string) bool {
	rel, err := filepath.Rel(l.skills, p)
	rel = filepath.ToSlash(rel)
	return err == nil && (rel == memoryExtractionOverride || strings.HasPrefix(rel, memoryExtractionOverride+"/"))
}

// KindOf says what the file at path is, by its location (classify); ok is
// false outside the store's layout.
func (s *Store) KindOf(path string) (k Kind, archived, ok bool) {
	k, _, archived, ok = s.dirs.classify(path)
	return
}

// classify derives kind and flags from the file's location relative to the roots.
func (l *layout) classify(path string) (kind Kind, learned, archived bool, ok bool) {
	rel := func(root string) (string, bool) {
		r, err := filepath.Rel(root, path)
		if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", false
		}
		return filepath.ToSlash(r), true
	}
	if _, in := rel(l.knowledge); in {
		return KindKnowledge, false, false, true
	}
	if r, in := rel(l.episodes); in {
		return KindEpisode, false, strings.HasPrefix(r, "archived/"), true
	}
	if r, in := rel(l.intentions); in {
		return KindIntention, false, strings.HasPrefix(r, "archived/"), true
	}
	if _, in := rel(l.sessionLog); in {
		return KindSessionLog, false, false, true
	}
	if _, in := rel(l.dreamLog); in {
		return KindDreamLog, false, false, true
	}
	if r, in := rel(l.archive); in {
		// Retired knowledge and learned skills share memory/archived; the type tells them apart only loosely.
		_ = r
		return KindKnowledge, false, true, true
	}
	if r, in := rel(l.skills); in {
		switch {
		case strings.HasPrefix(r, "agent_learned_skills/"):
			return KindSkill, true, false, true
		case strings.HasPrefix(r, "archived/"):
			return KindSkill, false, true, true
		default:
			return KindSkill, false, false, true
		}
	}
	if r, in := rel(l.memory); in && (r == "about_me.md" || r == "about_user.md" || strings.HasPrefix(r, "users/")) {
		return KindIdentity, false, false, true
	}
	return "", false, false, false
}
