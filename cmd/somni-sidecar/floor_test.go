package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/bm25"
)

// The BM25 floor through the binary: for a Chinese question, the entry
// plain BM25 ranks first (package bm25, the standard analyzer over name,
// description and body, as make eval's baseline ranks) is among the first
// three names recall_memories shows. The pool and the questions are
// MADial-Bench's (testdata/recall/madial, MIT): Bart's archive of dated
// events, and what Bart says in the benchmark's dialogues.
func TestRecallKeepsBM25sFirstInChinese(t *testing.T) {
	const floor = 3
	dir := filepath.Join("..", "..", "testdata", "recall", "madial")
	var entries []scEntry
	for _, m := range readMADial[map[string]struct {
		Time, Scene, Emotion, Event string
		User                        int `json:"user-id"`
	}](t, filepath.Join(dir, "MADial-Bench-zh-memory.json")) {
		for id, mem := range m {
			if mem.User == 1 {
				entries = append(entries, scEntry{name: "bart-" + id, desc: mem.Scene + "，" + mem.Emotion, body: mem.Event})
			}
		}
	}
	slices.SortFunc(entries, func(a, b scEntry) int { return strings.Compare(a.name, b.name) })
	say := regexp.MustCompile(`^<Bart>\s*[:：]\s*"?(.*?)"?\s*$`)
	var questions []string
	for _, d := range readMADial[struct{ Dialogue []string }](t, filepath.Join(dir, "MADial-Bench-zh-dialogue.json")) {
		for _, line := range d.Dialogue {
			if m := say.FindStringSubmatch(line); m != nil && len(questions) < 60 {
				questions = append(questions, m[1])
			}
		}
	}
	if len(entries) < 50 || len(questions) < 60 {
		t.Fatalf("read %d entries and %d questions from %s", len(entries), len(questions), dir)
	}
	plain := bm25.New()
	for i, e := range entries {
		plain.Add(int32(i), e.name+"\n"+e.desc+"\n"+e.body)
	}
	for _, emb := range scEmbedders {
		t.Run(emb, func(t *testing.T) {
			data := t.TempDir()
			for _, e := range entries {
				writeScEntry(t, data, e)
			}
			s := start(t, data, []string{"--embed", emb, "--timezone", "UTC"}, "SOMNI_TEST_NOW="+scenarioNow)
			var ok struct{ OK bool }
			s.call("index.sync", map[string]any{"reason": "floor"}, &ok)
			for _, q := range questions {
				best := plain.Search(q, len(entries), nil)
				if len(best) == 0 {
					continue
				}
				var firsts []string // every entry at BM25's top score: ties are the index's to break
				for _, x := range best {
					if x.Score == best[0].Score {
						firsts = append(firsts, entries[x.Doc].name)
					}
				}
				names := recallNames(s.tool("recall_memories", map[string]any{"query": q, "limit": 5}))
				if !slices.ContainsFunc(names[:min(floor, len(names))], func(n string) bool { return slices.Contains(firsts, n) }) {
					t.Errorf("%q: BM25 ranks %v first, recall shows %v", q, firsts, names)
				}
			}
		})
	}
}

// readMADial reads one of MADial-Bench's JSON-lines files.
func readMADial[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", path, err))
	}
	return out
}
