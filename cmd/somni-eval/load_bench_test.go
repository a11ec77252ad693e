package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadMADial holds the loader to the benchmark as published: each
// user's archive is one pool, every dialogue asks of its own user's pool,
// and its relevant memories are in that pool.
func TestLoadMADial(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "recall", "madial")
	for _, tc := range []struct {
		lang      string
		pools     [2]int // memories of Bart, Lisa
		dialogues int
		cue       string // the first dialogue's hint cue starts so
	}{
		{"en", [2]int{76, 84}, 160, "By the way, what should I wear?\nI'm really looking forward"},
		{"zh", [2]int{83, 88}, 160, "对了，我要穿什么好呢？\n我特别期待"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			b, err := loadMADial(dir, tc.lang)
			if err != nil {
				t.Fatal(err)
			}
			n, halves := 0, map[string]int{}
			for i, p := range b.pools {
				if len(p.docs) != tc.pools[i] {
					t.Errorf("%s: %d memories, want %d", p.user, len(p.docs), tc.pools[i])
				}
				in := map[string]bool{}
				for _, d := range p.docs {
					in[d.Path] = true
					if d.When.After(p.now) {
						t.Errorf("%s: %s is after the day questions are asked", p.user, d.Path)
					}
				}
				for j, q := range p.qs {
					for _, g := range q.Gold {
						if !in[g] {
							t.Errorf("%s: query %d wants %s from another pool", p.user, j, g)
						}
					}
					if strings.Contains(q.Q, "<") || p.cues[j].Half != q.Half {
						t.Errorf("%s: query %d: %q (half %s, cue half %s)", p.user, j, q.Q, q.Half, p.cues[j].Half)
					}
					halves[q.Half]++
				}
				n += len(p.qs)
			}
			if n != tc.dialogues || halves[halfTune] == 0 || halves[halfHeld] == 0 {
				t.Errorf("%d dialogues in halves %v, want %d in both halves", n, halves, tc.dialogues)
			}
			if cue := b.pools[0].cues[0].Q; !strings.HasPrefix(cue, tc.cue) {
				t.Errorf("first cue %q, want it to start %q", cue, tc.cue)
			}
		})
	}
}
