package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// TestTeamPoolMounted holds every set the team measurement asks again to
// the terms: each pool gets a team pool of unrelated entries as
// large as it is (or as its source), each a knowledge entry under the
// team folder, none of them a personal entry or anybody's gold, and the
// personal entries stay as they were.
func TestTeamPoolMounted(t *testing.T) {
	tiny := filepath.Join("testdata", "tiny")
	s, err := loadSets(tiny, "prev")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sets, dataDir, mode string
		want                []string // set names, in order
		units               string   // the pools asked, when it matters
	}{
		{"notes", tiny, "on", []string{"notes en+zh"}, "notes"},
		{"dialogues", tiny, "on", []string{"dialogues, a turn an entry en"}, ""},
		{"bench", filepath.Join("..", "..", "testdata", "recall"), "on", []string{"MADial-Bench en", "MADial-Bench zh", "MADial-Bench zh-Hant"}, ""},
		{"realmem", tiny, "on", []string{"RealMem en"}, "Ada_Test"},
		// the source's own user (ub, the last) is not asked beside its own records
		{"lifebench", tiny, "all", []string{"LifeBench zh"}, "ua"},
		{"lifebench", tiny, "on", nil, ""},
		{"memorycode", tiny, "all", []string{"MemoryCode en"}, "dialogue_1|dialogue_2"},
	} {
		t.Run(tc.sets+"/"+tc.mode, func(t *testing.T) {
			cfg := config{dataDir: tc.dataDir, benchDir: filepath.Join("testdata", "bench"), size: realSizes["full"], teamPool: tc.mode}
			tss, skips, err := teamSetsOf(cfg, map[string]bool{tc.sets: true}, s)
			if err != nil || skips != "" {
				t.Fatalf("teamSetsOf: %v, skipped %q", err, skips)
			}
			var names, units []string
			for _, ts := range tss {
				names = append(names, ts.name+" "+ts.lang)
				for _, u := range ts.units {
					units = append(units, u.id)
					checkTeamUnit(t, ts, u)
				}
			}
			if strings.Join(names, "|") != strings.Join(tc.want, "|") || (tc.units != "" && strings.Join(units, "|") != tc.units) {
				t.Errorf("sets %q of pools %q, want %q of %q", names, units, tc.want, tc.units)
			}
		})
	}
}

// checkTeamUnit checks one pool and its team pool.
func checkTeamUnit(t *testing.T, ts *teamSet, u *teamUnit) {
	t.Helper()
	personal, gold := 0, map[string]bool{}
	for _, st := range u.steps {
		personal += len(st.add)
		for _, q := range st.qs {
			for _, g := range q.Gold {
				gold[g] = true
			}
		}
	}
	if len(u.team) == 0 || len(u.team) > min(personal, teamCap) {
		t.Errorf("%s %s: %d team entries beside %d personal ones", ts.name, u.id, len(u.team), personal)
	}
	for _, d := range u.team {
		if !strings.HasPrefix(d.Path, "/team-pool/knowledge/") || !strings.HasSuffix(d.Path, "/SKILL.md") ||
			d.Kind != rank.KindKnowledge || d.Body == "" || gold[d.Path] {
			t.Errorf("%s %s: team entry %+v", ts.name, u.id, d)
		}
	}
	docs, err := mountTeam(u)
	if err != nil {
		t.Fatalf("%s %s: %v", ts.name, u.id, err)
	}
	if len(docs) != len(u.team)+len(u.steps[0].add) || docs[len(docs)-1].Path != u.steps[0].add[len(u.steps[0].add)-1].Path {
		t.Errorf("%s %s: mounted %d entries, want the team's %d and the pool's %d after them", ts.name, u.id, len(docs), len(u.team), len(u.steps[0].add))
	}
}

// TestMountTeamRefuses: a team entry that could be mistaken for a
// personal one, or count as gold, stops the run.
func TestMountTeamRefuses(t *testing.T) {
	own := rank.Doc{Path: "memory/knowledge/a/SKILL.md"}
	team := teamDoc("b", "fact", "", "text")
	q := evalQuery{Q: "q", Gold: []string{own.Path}}
	for _, tc := range []struct {
		name string
		u    teamUnit
		want string // in the error; "" for none
	}{
		{"fine", teamUnit{team: []rank.Doc{team}, steps: []streamStep{{add: []rank.Doc{own}, qs: []evalQuery{q}}}}, ""},
		{"team entry as gold", teamUnit{team: []rank.Doc{team}, steps: []streamStep{{add: []rank.Doc{own},
			qs: []evalQuery{{Q: "q", Gold: []string{team.Path}}}}}}, "as gold"},
		{"personal entry under the team folder", teamUnit{team: []rank.Doc{team},
			steps: []streamStep{{add: []rank.Doc{own}}, {add: []rank.Doc{{Path: teamPath("c")}}}}}, "lies under"},
		{"team entry outside its folder", teamUnit{team: []rank.Doc{own}, steps: []streamStep{{}}}, "outside"},
		{"team entry twice", teamUnit{team: []rank.Doc{team, team}, steps: []streamStep{{}}}, "repeated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mountTeam(&tc.u)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("mountTeam: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestTeamAskCountsGoldOnly: a team entry in the top 5 is never a hit,
// whatever its rank; it only counts as a team entry shown.
func TestTeamAskCountsGoldOnly(t *testing.T) {
	gold := "memory/episodes/event-1/SKILL.md"
	other := "memory/episodes/event-2/SKILL.md"
	tp := teamPath("x")
	for _, tc := range []struct {
		name          string
		top           []string
		hit, intruded int
	}{
		{"team entries only", []string{tp, teamPath("y"), teamPath("z")}, 0, 1},
		{"gold under a team entry", []string{tp, gold}, 1, 1},
		{"gold sixth", []string{tp, other, other, other, other, gold}, 0, 1},
		{"gold fifth, no team entry", []string{other, other, other, other, gold, tp}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &system{name: "fake", search: func(context.Context, string, int) ([]string, error) { return tc.top, nil }}
			r := (&teamScores{}).rowOf("bm25 baseline")
			qs := []evalQuery{{Q: "q", Gold: []string{gold}, Half: halfHeld}, {Q: "absent", Half: halfHeld}}
			if err := r.ask(context.Background(), s, qs, 10, 1, ""); err != nil {
				t.Fatal(err)
			}
			if got := r.by[halfHeld]; got.n[1] != 1 || got.hit[1] != tc.hit || got.intruded != tc.intruded {
				t.Errorf("tally %+v, want 1 question, %d hit, %d with a team entry", got, tc.hit, tc.intruded)
			}
		})
	}
}

// TestScoreTeamSet replays the tiny notes set without and with its team
// pool through the baseline and the keyword-only index, the gold the
// user's own and then a teammate's: both runs ask the same questions.
func TestScoreTeamSet(t *testing.T) {
	tiny := filepath.Join("testdata", "tiny")
	s, err := loadSets(tiny, "prev")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{dataDir: tiny, benchDir: filepath.Join("testdata", "bench"), teamPool: "on", threshold: assoc.DefaultThreshold}
	tss, _, err := teamSetsOf(cfg, map[string]bool{"notes": true}, s)
	if err != nil || len(tss) != 1 {
		t.Fatalf("teamSetsOf: %v, %d sets", err, len(tss))
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, gold := range []bool{false, true} {
		cfg.teamGold = gold
		sc, err := scoreTeamSet(context.Background(), logger, cfg, tss[0], []embed.Embedder{embed.Off()}, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.rows) != 2 {
			t.Fatalf("%d rows, want the baseline's and hybrid/off's", len(sc.rows))
		}
		for _, r := range sc.rows {
			n := r.by[halfHeld].n[0] + r.by[halfTune].n[0]
			if n == 0 || r.by[halfHeld].n[0] != r.by[halfHeld].n[1] || r.by[halfTune].n[0] != r.by[halfTune].n[1] {
				t.Errorf("%s: asked %+v / %+v", r.name, r.by[halfHeld], r.by[halfTune])
			}
		}
		var out strings.Builder
		reportTeam(&out, []*teamScores{sc}, "", "", gold)
		if !strings.Contains(out.String(), "| notes | en+zh | 1 |") || !strings.Contains(out.String(), "**Team pool, gold "+goldOwner(gold)+", held-out half") {
			t.Errorf("report:\n%s", out.String())
		}
	}
}
