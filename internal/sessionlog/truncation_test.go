package sessionlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTruncationFixture holds capMessage to the cases the plugin's capture
// is held to as well (testdata/capture/truncation.json; the TypeScript side
// reads the same file), so the two halves cut a message at the same place
// and mark it with the same words.
func TestTruncationFixture(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "capture", "truncation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Cases []struct {
			Name      string `json:"name"`
			MaxChars  int    `json:"maxChars"`
			Char      string `json:"char"`
			Length    int    `json:"length"`
			Truncated bool   `json:"truncated"`
			KeptChars int    `json:"keptChars"`
			Marker    string `json:"marker"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) < 5 {
		t.Fatalf("%d cases: the fixture no longer reads", len(fx.Cases))
	}
	for _, c := range fx.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.MaxChars != MessageMaxChars {
				t.Fatalf("the fixture cuts at %d, the session log at MessageMaxChars = %d", c.MaxChars, MessageMaxChars)
			}
			if utf8.RuneCountInString(c.Char) != 1 {
				t.Fatalf("char %q is not one code point", c.Char)
			}
			text := strings.Repeat(c.Char, c.Length)
			got := capMessage(text, utf8.RuneCountInString(text))
			want := strings.Repeat(c.Char, c.KeptChars) + c.Marker
			if got != want {
				kept, marker, _ := strings.Cut(got, "\n...(")
				t.Fatalf("capMessage kept %d chars and marked %q; want %d and %q", utf8.RuneCountInString(kept), marker, c.KeptChars, c.Marker)
			}
			if (got != text) != c.Truncated {
				t.Fatalf("truncated %v, want %v", got != text, c.Truncated)
			}
		})
	}
}
