package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/somni-dev/somni/internal/index/rank"
)

// teamUnit is one personal pool as the team measurement replays it: its
// steps (entries joining, then questions; one step for a pool that does
// not grow) and the team pool mounted beside it from the first.
type teamUnit struct {
	id          string
	steps       []streamStep
	withContext bool // its turns carry the turn before them (systemsOver)
	team        []rank.Doc
}

// teamSet is one set × language whose pools are asked without and with a
// team pool, of depth results as the set's own tables ask them.
type teamSet struct {
	name, lang, from string
	depth            int
	units            []*teamUnit
}

// teamSources loads each language's source once, when a set needs it.
type teamSources struct {
	benchDir string
	got      map[string]*teamSource
	skip     map[string]string
}

// teamSourceFolders are the sources by key: the bench folder and loader.
var teamSourceFolders = map[string]struct {
	folder, title string
	load          func(string) (*teamSource, error)
}{
	"en":      {"memorycode", "MemoryCode", memorycodeTeam},
	"zh":      {"lifebench-zh", "LifeBench zh", lifebenchTeam},
	"realmem": {"realmem", "RealMem", realmemTeam},
}

// get is key's source ("en", "zh", "zh-Hant" or "realmem"), or nil and
// the line the report says why with when its folder is missing.
func (t *teamSources) get(key string) (*teamSource, string, error) {
	if src, ok := t.got[key]; ok {
		return src, t.skip[key], nil
	}
	if base, hant := strings.CutSuffix(key, hantSuffix); hant {
		src, skip, err := t.get(base)
		if src != nil && err == nil {
			conv, _, cerr := converter(key)
			if cerr != nil {
				return nil, "", cerr
			}
			src, err = src.converted(key, conv)
		}
		t.got[key], t.skip[key] = src, skip
		return src, skip, err
	}
	f, ok := teamSourceFolders[key]
	if !ok {
		return nil, "", fmt.Errorf("team pool: no source for %q", key)
	}
	dir, skip, err := benchFolder(t.benchDir, f.folder, "Team pool from "+f.title)
	var src *teamSource
	if err == nil && skip == "" {
		src, err = f.load(dir)
	}
	t.got[key], t.skip[key] = src, skip
	return src, skip, err
}

// teamOf picks a team pool of n entries (at most teamCap) from key's source.
func (t *teamSources) teamOf(key string, n int) ([]rank.Doc, *teamSource, string, error) {
	src, skip, err := t.get(key)
	if src == nil || err != nil {
		return nil, nil, skip, err
	}
	return src.pick(min(n, teamCap)), src, "", nil
}

// teamMADial is MADial-Bench per language, a user's archive a pool; a
// language without its source is skipped with the line saying so.
func teamMADial(dir string, srcs *teamSources) ([]*teamSet, string, error) {
	var out []*teamSet
	skips := ""
	for _, lang := range []string{"en", "zh", "zh" + hantSuffix} {
		src, skip, err := srcs.get(lang)
		if err != nil {
			return nil, "", err
		}
		if src == nil {
			skips += skip
			continue
		}
		b, err := loadMADial(dir, lang)
		if err != nil {
			return nil, "", err
		}
		ts := &teamSet{name: b.name, lang: lang, depth: 10, from: src.from}
		for _, p := range b.pools {
			ts.units = append(ts.units, &teamUnit{id: p.user, team: src.pick(min(len(p.docs), teamCap)),
				steps: []streamStep{{now: p.now, add: p.docs, qs: p.qs}}})
		}
		out = append(out, ts)
	}
	return out, skips, nil
}

// teamNotes is the curated notes set, one pool: its team pool takes as
// many English and Chinese entries as it holds notes of each language.
func teamNotes(s *evalSets, srcs *teamSources) ([]*teamSet, string, error) {
	zh := 0
	for _, d := range s.notes {
		if hasHan(d.Name + d.Description + d.Body) {
			zh++
		}
	}
	en, enSrc, skip, err := srcs.teamOf("en", len(s.notes)-zh)
	if enSrc == nil || err != nil {
		return nil, skip, err
	}
	zhTeam, zhSrc, skip, err := srcs.teamOf("zh", zh)
	if zhSrc == nil || err != nil {
		return nil, skip, err
	}
	u := &teamUnit{id: "notes", team: append(en, zhTeam...), steps: []streamStep{{add: s.notes, qs: s.nq}}}
	return []*teamSet{{name: "notes", lang: "en+zh", depth: 5, from: enSrc.from + "; " + zhSrc.from,
		units: []*teamUnit{u}}}, "", nil
}

// hasHan is whether s holds a Chinese character.
func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// teamDialogues is the synthetic dialogues, a turn an entry, per
// language, a dialogue a pool.
func teamDialogues(dataDir string, srcs *teamSources) ([]*teamSet, string, error) {
	ds, err := loadDialogues(dataDir)
	if err != nil {
		return nil, "", err
	}
	var out []*teamSet
	skips := ""
	for _, lang := range dialogueLangs(ds) {
		src, skip, err := srcs.get(lang)
		if err != nil {
			return nil, "", err
		}
		if src == nil {
			skips += skip
			continue
		}
		ts := &teamSet{name: "dialogues, a turn an entry", lang: lang, depth: 10, from: src.from}
		for _, d := range ds {
			if d.lang != lang {
				continue
			}
			assignHalves(d.qs)
			ts.units = append(ts.units, &teamUnit{id: d.id, team: src.pick(min(len(d.docs), teamCap)),
				withContext: d.docs[len(d.docs)-1].Context != "", steps: []streamStep{{now: d.now, add: d.docs, qs: d.qs}}})
		}
		out = append(out, ts)
	}
	return out, skips, nil
}

// teamReal is a set with real pools: each stream a pool, its team pool as
// large as the stream's pool at its largest, mounted before the first
// step. A stream of the source's own user or persona is left out.
func teamReal(rs *realSet, key string, srcs *teamSources) ([]*teamSet, string, error) {
	ts := &teamSet{name: rs.name, lang: rs.lang, depth: realDepth}
	for _, st := range rs.streams {
		n := 0
		for _, s := range st.steps {
			n += len(s.add)
		}
		team, src, skip, err := srcs.teamOf(key, n)
		if src == nil || err != nil {
			return nil, skip, err
		}
		ts.from = src.from
		if st.id == src.owner || len(st.steps) == 0 {
			continue
		}
		ts.units = append(ts.units, &teamUnit{id: st.id, team: team, steps: st.steps})
	}
	return []*teamSet{ts}, "", nil
}

// teamRealSets are the sets with real pools the team measurement runs
// and the source each takes its team pool from: RealMem always (its
// pools are small), LifeBench and MemoryCode with -team-pool all.
var teamRealSets = []struct {
	set, key string
	always   bool
}{
	{"realmem", "en", true},
	{"lifebench", "zh", false},
	{"memorycode", "realmem", false},
}

// teamSetsOf builds every set -sets and -team-pool name, with the lines
// saying which were skipped and why.
func teamSetsOf(cfg config, sets map[string]bool, s *evalSets) ([]*teamSet, string, error) {
	srcs := &teamSources{benchDir: cfg.benchDir, got: map[string]*teamSource{}, skip: map[string]string{}}
	var out []*teamSet
	var skips strings.Builder
	add := func(ts []*teamSet, skip string, err error) error {
		out = append(out, ts...)
		if !strings.Contains(skips.String(), skip) { // one line per missing source
			skips.WriteString(skip)
		}
		return err
	}
	for _, rl := range realLoaders {
		for _, r := range teamRealSets {
			if r.set != rl.set || !sets[r.set] || !(r.always || cfg.teamPool == "all") {
				continue
			}
			dir, skip, err := benchFolder(cfg.benchDir, rl.folder, "Team pool beside "+rl.title)
			if err != nil || skip != "" {
				if err := add(nil, skip, err); err != nil {
					return nil, "", err
				}
				continue
			}
			rs, err := rl.load(dir, cfg.size)
			if err != nil {
				return nil, "", err
			}
			if err := add(teamReal(rs, r.key, srcs)); err != nil {
				return nil, "", err
			}
		}
	}
	if sets["bench"] {
		if err := add(teamMADial(filepath.Join(cfg.dataDir, "madial"), srcs)); err != nil {
			return nil, "", err
		}
	}
	if sets["dialogues"] {
		if err := add(teamDialogues(cfg.dataDir, srcs)); err != nil {
			return nil, "", err
		}
	}
	if sets["notes"] {
		if err := add(teamNotes(s, srcs)); err != nil {
			return nil, "", err
		}
	}
	return out, skips.String(), nil
}
