package change

import (
	"reflect"
	"testing"
	"time"
)

type fakePool map[int32]Entry

func (p fakePool) Entry(id int32) Entry { return p[id] }
func (p fakePool) Named(name string) []int32 {
	var out []int32
	for id := int32(0); id < int32(len(p)); id++ {
		if answers(p[id].Keys, name) {
			out = append(out, id)
		}
	}
	return out
}
func (p fakePool) About(terms []string) []int32 {
	var out []int32
	for id := int32(0); id < int32(len(p)); id++ {
		if covers(terms, subjectTerms(p[id].Text)) {
			out = append(out, id)
		}
	}
	return out
}
func (p fakePool) Admits(int32) bool        { return true }
func (p fakePool) Matched(int32) []string   { return nil }
func (p fakePool) Holds(int32, string) bool { return false }

func TestOrder(t *testing.T) {
	d := func(m int) time.Time { return time.Date(2026, time.Month(m), 1, 0, 0, 0, 0, time.UTC) }
	pool := fakePool{
		0: {Keys: []string{"a"}, When: d(1), Text: "Start your variable names with 'x_'."},
		1: {Keys: []string{"b"}, When: d(2), Text: "From now on, start variable names with 'vr_'."},
		2: {Keys: []string{"c"}, When: d(3), Text: "An update to our naming: from now on start all variable names with 'm_'."},
		3: {Keys: []string{"d"}, When: d(4), Text: "We had soup for lunch."},
		// a cycle a person wrote by hand
		4: {Keys: []string{"e"}, Text: "deploy host web-1", SupersededBy: "f"},
		5: {Keys: []string{"f"}, Text: "deploy host web-2", SupersededBy: "e"},
		// front-matter only: the replacement is not listed
		6: {Keys: []string{"g"}, Text: "billing db is db-2", SupersededBy: "h"},
		7: {Keys: []string{"h"}, Text: "ledger lives on db-3", Supersedes: []string{"g"}},
	}
	for _, c := range []struct {
		name      string
		list      []int32
		limit     int
		past      bool
		want      []int32
		wantNewer map[int32]int32
	}{
		{"newest first, chain", []int32{0, 3, 1, 2}, 4, false, []int32{2, 0, 3, 1}, map[int32]int32{0: 2, 1: 2}},
		{"nothing changed", []int32{3}, 3, false, []int32{3}, map[int32]int32{}},
		{"past: the second hop", []int32{2, 3}, 2, true, []int32{1, 2, 3}, map[int32]int32{1: 2}},
		{"cycle ends", []int32{4, 5}, 2, false, []int32{4, 5}, map[int32]int32{4: 5, 5: 4}},
		{"named replacement added", []int32{6, 3}, 2, false, []int32{7, 6, 3}, map[int32]int32{6: 7}},
		{"past: named original", []int32{7}, 2, true, []int32{6, 7}, map[int32]int32{6: 7}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, newer := Order(append([]int32(nil), c.list...), c.limit, c.past, pool)
			if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(newer, c.wantNewer) {
				t.Errorf("Order(%v) = %v %v, want %v %v", c.list, got, newer, c.want, c.wantNewer)
			}
		})
	}
}
