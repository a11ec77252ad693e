package main

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestLoadRealMem holds the loader to the set's definition: a question's
// pool is every turn before its session, its evidence the turns its
// answer's memories were taken from (by snapshot, or by a 1-based number
// when the turn was rewritten), and evidence outside the pool drops it.
func TestLoadRealMem(t *testing.T) {
	dir := filepath.Join("testdata", "bench", "realmem")
	for _, tc := range []struct {
		name           string
		sessions       int
		steps          []int // entries added per step
		gold           [][]string
		kinds          []string
		dropped        string
		firstNow       time.Time
		questionHalves int
	}{
		{name: "first asking session", sessions: 1, steps: []int{4},
			gold:  [][]string{{realmemTurnPath("Ada_Test", "a1", 1)}},
			kinds: []string{"incremental"}, dropped: "1 questions whose evidence is not a turn of an earlier session",
			firstNow: time.Date(2025, 1, 10, 12, 0, 0, 0, time.UTC)},
		{name: "every session", sessions: 0, steps: []int{4, 4},
			gold:  [][]string{{realmemTurnPath("Ada_Test", "a1", 1)}, {realmemTurnPath("Ada_Test", "a2", 2)}},
			kinds: []string{"incremental", "preference"}, dropped: "1 questions whose evidence is not a turn of an earlier session",
			firstNow: time.Date(2025, 1, 10, 12, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := loadRealMem(dir, 0, tc.sessions)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs.streams) != 1 || rs.skipped != tc.dropped {
				t.Fatalf("%d streams, skipped %q; want 1 and %q", len(rs.streams), rs.skipped, tc.dropped)
			}
			st := rs.streams[0]
			var adds []int
			var gold [][]string
			var kinds []string
			for _, s := range st.steps {
				adds = append(adds, len(s.add))
				for _, q := range s.qs {
					gold = append(gold, q.Gold)
					kinds = append(kinds, q.Tier)
					if q.Half != halfTune && q.Half != halfHeld {
						t.Errorf("question %q has no half", q.Q)
					}
				}
			}
			if !slices.Equal(adds, tc.steps) || !slices.Equal(kinds, tc.kinds) {
				t.Errorf("steps add %v, kinds %v; want %v, %v", adds, kinds, tc.steps, tc.kinds)
			}
			if len(gold) != len(tc.gold) {
				t.Fatalf("gold %v, want %v", gold, tc.gold)
			}
			for i := range gold {
				if !slices.Equal(gold[i], tc.gold[i]) {
					t.Errorf("question %d: gold %v, want %v", i, gold[i], tc.gold[i])
				}
			}
			if !st.steps[0].now.Equal(tc.firstNow) {
				t.Errorf("first question asked %v, want %v", st.steps[0].now, tc.firstNow)
			}
			// the pool is the sessions before the asking one, a turn an
			// entry dated with its session
			first := st.steps[0].add
			if first[0].Kind != "knowledge" || !first[1].When.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) ||
				!first[2].When.Equal(time.Date(2025, 1, 5, 0, 0, 0, 0, time.UTC)) || first[2].Body != "What can I cook quickly after work?" {
				t.Errorf("turns not one dated entry each: %+v", first[:3])
			}
		})
	}
}
