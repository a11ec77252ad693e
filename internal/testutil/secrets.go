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
	// tuned: a test fails above it (a regression); CheckLeaks never names the misses.
	HeldOutLeakBudget = 3
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

// CheckLeaks counts the lines of the secret corpus whose secret leaked (as the caller's leaked
// judges), per half, and logs the counts under what. A leak of the tuning half fails the test by
// name; held-out leaks are counted, not named (naming them invites a rule written against them),
// and fail the test only past HeldOutLeakBudget.
func CheckLeaks(tb testing.TB, what string, lines []SecretLine, leaked func(SecretLine) bool) map[string]int {
	tb.Helper()
	total, leaks := map[string]int{}, map[string]int{}
	for _, l := range lines {
		h := l.Half()
		total[h]++
		if !leaked(l) {
			continue
		}
		leaks[h]++
		if h == Tuning {
			tb.Errorf("%s: [%s] %q leaked", what, h, l.Name)
		}
	}
	for _, h := range []string{Tuning, HeldOut} {
		tb.Logf("%s %s: %d/%d secret formats leaked", what, h, leaks[h], total[h])
	}
	if leaks[HeldOut] > HeldOutLeakBudget {
		tb.Errorf("%s: %d held-out secrets leaked, more than the %d measured when the rules were last tuned",
			what, leaks[HeldOut], HeldOutLeakBudget)
	}
	return leaks
}
