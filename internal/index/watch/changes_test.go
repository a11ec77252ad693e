package watch

import (
	"fmt"
	"testing"
)

func TestChangeSet(t *testing.T) {
	type op struct {
		path string
		dir  bool
		full bool // markFull instead of add
	}
	many := make([]op, MaxPending+1)
	for i := range many {
		many[i] = op{path: fmt.Sprintf("/m/%d", i)}
	}
	cases := []struct {
		name      string
		ops       []op
		wantFull  bool
		wantPaths map[string]bool
	}{
		{"empty", nil, false, nil},
		{"files and a directory", []op{{path: "/a"}, {path: "/d", dir: true}, {path: "/a"}}, false, map[string]bool{"/a": false, "/d": true}},
		{"a directory event wins over a file event", []op{{path: "/d", dir: true}, {path: "/d"}}, false, map[string]bool{"/d": true}},
		{"overflow", []op{{path: "/a"}, {full: true}, {path: "/b"}}, true, nil},
		{"too many paths become one full scan", many, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Changes
			for _, o := range tc.ops {
				if o.full {
					c.MarkFull()
				} else {
					c.Add(o.path, o.dir)
				}
			}
			if c.Pending() != (len(tc.ops) > 0) {
				t.Errorf("pending = %v", c.Pending())
			}
			full, paths := c.Take()
			if full != tc.wantFull || len(paths) != len(tc.wantPaths) {
				t.Fatalf("take = %v %v, want %v %v", full, paths, tc.wantFull, tc.wantPaths)
			}
			for p, d := range tc.wantPaths {
				if got, ok := paths[p]; !ok || got != d {
					t.Errorf("path %s = %v,%v want dir=%v", p, got, ok, d)
				}
			}
			if c.Pending() {
				t.Error("still pending after take")
			}
			c.Restore(full, paths)
			if c.Pending() != (full || len(paths) > 0) {
				t.Error("restore lost the changes")
			}
		})
	}
}
