package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestLoadMemoryCode holds the loader to the set: the tasks after the
// last session, each with the turns of the session giving its
// instruction's latest version as gold and the earlier versions'
// as superseded; dialogues shorter than the minimum are left out.
func TestLoadMemoryCode(t *testing.T) {
	dir := filepath.Join("testdata", "bench", "memorycode")
	rs, err := loadMemoryCode(dir, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.streams) != 1 || rs.streams[0].id != "dialogue_1" || len(rs.streams[0].steps) != 1 {
		t.Fatalf("streams %v, want dialogue_1 alone, one step", rs.streams)
	}
	s := rs.streams[0].steps[0]
	turn := func(session, n int) string { return memorycodeTurnPath("dialogue_1", session, n) }
	if len(s.add) != 8 || s.add[0].Body != "Hi Oliver. Please end every method name with '_x' from now on." ||
		s.add[2].Body != "And start function argument names with 'e_'.\n\nThat keeps our code consistent." || !s.add[4].When.After(s.add[3].When) {
		t.Errorf("turns: %d, %q / %q, a session a day: %v, %v", len(s.add), s.add[0].Body, s.add[2].Body, s.add[3].When, s.add[4].When)
	}
	for _, tc := range []struct {
		task, tier       string
		gold, superseded []string
	}{
		{"function that given two vectors compute their dot product", "once",
			[]string{turn(0, 1), turn(0, 2), turn(0, 3), turn(0, 4)}, nil},
		{"Graph class with a method that computes the shortest path", "updated",
			[]string{turn(2, 1), turn(2, 2)}, []string{turn(0, 1), turn(0, 2), turn(0, 3), turn(0, 4)}},
	} {
		i := slices.IndexFunc(s.qs, func(q evalQuery) bool { return q.Q == tc.task })
		if i < 0 {
			t.Errorf("no task %q", tc.task)
			continue
		}
		q := s.qs[i]
		if q.Tier != tc.tier || !slices.Equal(q.Gold, tc.gold) || !slices.Equal(q.Superseded, tc.superseded) {
			t.Errorf("%q: %s, gold %v, superseded %v; want %s, %v, %v", tc.task, q.Tier, q.Gold, q.Superseded, tc.tier, tc.gold, tc.superseded)
		}
	}
	all, err := loadMemoryCode(dir, 1, 0)
	if err != nil || len(all.streams) != 2 {
		t.Errorf("with every length: %v, %v; want both dialogues", all, err)
	}
}
