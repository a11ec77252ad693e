package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLoadLifeBench holds the loader to the set's definition: a question
// is asked at the end of its month (or its day) of the records up to
// then, its evidence the records it names in that pool, by phone_id
// written as a number or a string; one whose evidence all comes later,
// or that has none, is left out.
func TestLoadLifeBench(t *testing.T) {
	rs, err := loadLifeBench(filepath.Join("testdata", "bench", "lifebench-zh"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.streams) != 2 || rs.streams[0].id != "ua" {
		t.Fatalf("%d streams, want ua and ub", len(rs.streams))
	}
	if !strings.HasPrefix(rs.skipped, "2 questions") {
		t.Errorf("skipped %q, want the late and the unanswerable question", rs.skipped)
	}
	st := rs.streams[0]
	type want struct {
		now   time.Time
		add   int
		golds [][]string
	}
	sms0 := "memory/episodes/lifebench-ua-sms-0/SKILL.md"
	wants := []want{
		// January: the contact (undated), two messages and the health record
		{time.Date(2025, 1, 31, 23, 59, 59, 0, time.UTC), 4,
			[][]string{{sms0, "memory/episodes/lifebench-ua-sms-0-2/SKILL.md", "memory/episodes/lifebench-ua-fitness_health-0/SKILL.md"}}},
		{time.Date(2025, 2, 28, 23, 59, 59, 0, time.UTC), 1, [][]string{{"memory/episodes/lifebench-ua-note-5/SKILL.md"}}},
		{time.Date(2025, 3, 15, 23, 59, 59, 0, time.UTC), 1, [][]string{{"memory/episodes/lifebench-ua-sms-1/SKILL.md"}}},
	}
	if len(st.steps) != len(wants) {
		t.Fatalf("%d steps, want %d", len(st.steps), len(wants))
	}
	for i, w := range wants {
		s := st.steps[i]
		var golds [][]string
		for _, q := range s.qs {
			golds = append(golds, q.Gold)
		}
		if !s.now.Equal(w.now) || len(s.add) != w.add || len(golds) != len(w.golds) {
			t.Errorf("step %d: now %v, %d added, gold %v; want %v, %d, %v", i, s.now, len(s.add), golds, w.now, w.add, w.golds)
			continue
		}
		for j := range golds {
			if !slices.Equal(golds[j], w.golds[j]) {
				t.Errorf("step %d question %d: gold %v, want %v", i, j, golds[j], w.golds[j])
			}
		}
	}
	byPath := map[string]string{}
	for _, d := range st.steps[0].add {
		byPath[d.Path] = d.Description + " | " + d.Body
		if d.Kind == "knowledge" && !d.When.IsZero() {
			t.Errorf("%s: knowledge with a date", d.Path)
		}
	}
	for path, text := range map[string]string{
		sms0: "周六一起去美术馆看当代艺术展吧\n彭雨晴\n+8613700000000\n接收",
		"memory/episodes/lifebench-ua-fitness_health-0/SKILL.md": "当天步数12500步 | 城市：长沙市\n步数：12500步\n时间：2025/01/18 10:00\n描述：在美术馆拍照",
		"memory/knowledge/lifebench-ua-contact-1/SKILL.md":       "彭雨晴\n好友\n女\n雨晴\n13700000000\na@example.com\nb@example.com\n000",
	} {
		got, ok := byPath[path]
		if !ok || !strings.HasSuffix(got, text) || strings.Contains(got, "2025-01") {
			t.Errorf("%s: text %q, want it to end %q, its date not in it", path, got, text)
		}
	}
}

func TestLifeBenchAsked(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"2025-02", time.Date(2025, 2, 28, 23, 59, 59, 0, time.UTC), false},
		{"2025-12", time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC), false},
		{"2025-08-31", time.Date(2025, 8, 31, 23, 59, 59, 0, time.UTC), false},
		{"August", time.Time{}, true},
	} {
		got, err := lifebenchAsked(tc.in)
		if (err != nil) != tc.err || !got.Equal(tc.want) {
			t.Errorf("lifebenchAsked(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
