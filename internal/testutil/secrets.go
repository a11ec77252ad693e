package testutil

import (
	"bufio"
	"encoding/json"
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
