package main

import (
	"path/filepath"
	"testing"
)

// TestDueDayThatDoesNotExist: add_intention with a due day no calendar has
// is refused with the reason, in whatever form it was written, and leaves
// memory untouched; it never becomes the day time.Date would carry it into
// ("Dec 32" was due 1 January).
func TestDueDayThatDoesNotExist(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, []string{"--timezone", "UTC"}, "SOMNI_TEST_NOW=2026-12-02T09:00:00Z")
	for _, tc := range []struct{ due, want string }{
		{"Dec 32", "December 32 does not exist"},
		{"Dec 99", "December 99 does not exist"},
		{"32 December", "December 32 does not exist"},
		{"2027-02-30", "2027-02-30 is not a day: February 2027 has 28 days"},
		{"02/30/2027", "2027-02-30 is not a day: February 2027 has 28 days"},
		{"二月三十日", "February 30 does not exist"},
		{"2027年2月29日", "2027-02-29 is not a day: February 2027 has 28 days"},
	} {
		code, msg := s.callErr("tools.call", map[string]any{"name": "add_intention", "args": map[string]any{"what": "x", "due": tc.due}})
		if code != -32602 {
			t.Errorf("due %q: code %d %s, want -32602", tc.due, code, msg)
			continue
		}
		mustContain(t, "error for "+tc.due, msg, `argument "due"`, tc.want)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "memory/intentions/*/INTENT.md")); len(files) != 0 {
		t.Fatalf("a due day that does not exist wrote %d intentions", len(files))
	}
	mustContain(t, "a day that exists", s.tool("add_intention", map[string]any{"what": "party", "due": "Dec 31"}), "due Thu 2026-12-31")
}
