package testutil

import (
	"bufio"
	"encoding/json"
	"hash/fnv"
	"os"
	"strings"
	"testing"
)

// SecretLine is one line of testdata/secrets/*.jsonl: a realistic text and,
// in secrets.jsonl, the substring of it that must never reach disk.
type SecretLine struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	Secret string `json:"secret"`
}

// Halves of the corpus: rules are written against the tuning half only, so the held-out numbers are
// the honest ones.
const (
	Tuning  = "tuning"
	HeldOut = "held-out"
	// HeldOutLeakBudget is how many held-out secrets leaked through Text when the rules were last
	// tuned: a test fails above it (a regression), never names the misses.
	HeldOutLeakBudget = 4
)

// Half is the corpus half of a line, from its name alone, so adding a line never moves others
// between halves.
func (l SecretLine) Half() string {
	h := fnv.New32a()
	h.Write([]byte(l.Name))
	if h.Sum32()%2 == 1 {
		return HeldOut
	}
	return Tuning
}

// SecretCorpus reads testdata/secrets/<file> (secrets.jsonl or ordinary.jsonl).
func SecretCorpus(tb testing.TB, file string) []SecretLine {
	tb.Helper()
	f, err := os.Open(Testdata("secrets", file))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var lines []SecretLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l SecretLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			tb.Fatalf("%s: %v: %s", file, err, sc.Text())
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return lines
}
