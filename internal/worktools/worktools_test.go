package worktools

import (
	"reflect"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/index/rank"
)

func TestFitBudgetKeepsNewest(t *testing.T) {
	mk := func(n int, text string) []Turn {
		ts := make([]Turn, n)
		for i := range ts {
			ts[i] = Turn{Text: text, At: "2026-11-30T01:00:00", seq: n - i} // newest first
		}
		return ts
	}
	long := strings.Repeat("字", 5000)
	tests := []struct {
		name      string
		in        []Turn
		budget    int
		wantN     int
		firstCut  bool
		wantLeft0 bool
	}{
		{"all fit", mk(3, "hello"), 1000, 3, false, false},
		{"budget stops later turns", mk(10, strings.Repeat("x", 100)), 400, 3, false, false},
		{"newest too long is cut, not dropped", mk(2, long), 500, 1, true, true},
		{"zero budget", mk(2, "hi"), 0, 0, false, true},
	}
	for _, tc := range tests {
		got, left := fitBudget(tc.in, tc.budget)
		if len(got) != tc.wantN {
			t.Errorf("%s: kept %d, want %d", tc.name, len(got), tc.wantN)
			continue
		}
		if tc.wantN > 0 && got[0].seq != tc.in[0].seq {
			t.Errorf("%s: newest turn not first", tc.name)
		}
		if tc.firstCut && !strings.HasSuffix(got[0].Text, "…") {
			t.Errorf("%s: first turn not cut: %d runes", tc.name, len([]rune(got[0].Text)))
		}
		if tc.wantLeft0 && left > 0 {
			t.Errorf("%s: budget left %d", tc.name, left)
		}
		total := 0
		for _, g := range got {
			total += len([]rune(g.Text))
		}
		if total > tc.budget {
			t.Errorf("%s: %d runes exceed budget %d", tc.name, total, tc.budget)
		}
	}
}

// TestParseRecallTypes: every kind and entry type named counts (the CLI once
// kept only the last entry type), in any case, with plurals and CJK commas.
func TestParseRecallTypes(t *testing.T) {
	got := ParseRecallTypes(" [Skills, episode，howto, 'Gotcha']")
	if !reflect.DeepEqual(got.Kinds, []string{rank.KindSkill, rank.KindEpisode}) ||
		!reflect.DeepEqual(got.EntryTypes, []string{"howto", "gotcha"}) {
		t.Fatalf("ParseRecallTypes = %+v", got)
	}
	q := got.Narrow(rank.Query{Limit: 4})
	if q.EntryType != "" || q.Limit != 4*entryTypeOverfetch {
		t.Errorf("two entry types: query = %+v, want no index filter and a widened limit", q)
	}
	if q := ParseRecallTypes("howto").Narrow(rank.Query{Limit: 4}); q.EntryType != "howto" || q.Limit != 4 {
		t.Errorf("one entry type: query = %+v, want the index to filter", q)
	}
}
