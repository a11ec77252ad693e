package embed

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// localTestRepoPath returns a path relative to the repository root.
func localTestRepoPath(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

// localTestUSELiteTokenizer loads the real USE-lite vocab or skips.
func localTestUSELiteTokenizer(t testing.TB) *useLiteTokenizer {
	t.Helper()
	path := localTestRepoPath("models", "use-lite", "vocab.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("USE-lite vocab missing (%v): run `make models` first", err)
	}
	tok, err := useLiteLoadVocab(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type localReferenceItem struct {
	Text      string    `json:"text"`
	IDs       []int32   `json:"ids"`
	Embedding []float32 `json:"embedding"`
}

// localTestReference reads the TF.js reference committed next to the converter.
func localTestReference(t testing.TB) []localReferenceItem {
	t.Helper()
	raw, err := os.ReadFile(localTestRepoPath("scripts", "models", "use_lite_reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Items []localReferenceItem `json:"items"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Items) == 0 {
		t.Fatal("empty reference")
	}
	return ref.Items
}

// The Go tokenizer must give exactly the ids TF.js gave for the same text,
// including NFKC folding, unknown-run merging and non-Latin scripts.
func TestLocalUSELiteTokenizerMatchesTFJS(t *testing.T) {
	tok := localTestUSELiteTokenizer(t)
	for _, item := range localTestReference(t) {
		t.Run(item.Text[:min(len(item.Text), 24)], func(t *testing.T) {
			got := tok.encode(item.Text)
			if !reflect.DeepEqual(got, item.IDs) {
				t.Errorf("encode(%q)\n got %v\nwant %v", item.Text, got, item.IDs)
			}
		})
	}
}

func TestLocalUSELiteTokenizerCases(t *testing.T) {
	tok := localTestUSELiteTokenizer(t)
	piece := func(ids []int32) string {
		var parts []string
		for _, id := range ids {
			parts = append(parts, tok.pieces[id])
		}
		return strings.Join(parts, "|")
	}
	tests := []struct {
		name, in, want string
	}{
		{"plain words", "the database", "▁the|▁database"},
		{"newline and tabs are word breaks", "the\n\tdatabase", "▁the|▁database"},
		{"space runs collapse, ends trimmed", "  the   database  ", "▁the|▁database"},
		{"NFKC folds ligatures", "ﬁle", piece(tok.encode("file"))},
		{"empty text becomes one boundary piece", "", "▁"},
		{"whitespace-only text too", " \n ", "▁"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := piece(tok.tokens(tc.in)); got != tc.want {
				t.Errorf("tokens(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestLocalUSELiteTokenizerLimits(t *testing.T) {
	tok := localTestUSELiteTokenizer(t)
	long := strings.Repeat("memory recall works across sessions ", 400)
	ids := tok.tokens(long)
	if len(ids) != useLiteMaxTokens {
		t.Fatalf("long text: %d ids, want the %d-piece window", len(ids), useLiteMaxTokens)
	}
	// The cut-down prefix must tokenise like the full text inside the window.
	full := tok.encode(useLiteClean(long))[:useLiteMaxTokens]
	if !reflect.DeepEqual(ids, full) {
		t.Error("prefix tokenisation differs from full tokenisation within the window")
	}
	// Unknown runs merge into one id 0.
	got := tok.encode("☃☃☃")
	want := []int32{tok.spaceID, 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("encode(snowmen) = %v, want %v", got, want)
	}
}

func TestLocalUSELiteLoadVocabErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, body, want string
	}{
		{"not json", "{", "unexpected"},
		{"too short", `[["a",0]]`, "only 1 entries"},
		{"bad entry", `[["a",0],["b",0],["c",0],["d",0],["e",0],["f",0],[1,"x"]]`, "entry 6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := useLiteLoadVocab(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	if _, err := useLiteLoadVocab(filepath.Join(dir, "absent.json")); err == nil {
		t.Fatal("missing file: no error")
	}
}

// TestLocalUSELiteQueryWindows: a query the encoder reads whole is one
// window, itself; a longer one is cut at words into windows the encoder
// reads whole, in order, losing no word, and never into more than
// useLiteQueryWindows.
func TestLocalUSELiteQueryWindows(t *testing.T) {
	tok := localTestUSELiteTokenizer(t)
	short := "Bart: I'm going to perform a magic trick at the New Year's Eve party!"
	if got := tok.windows(short); !reflect.DeepEqual(got, []string{short}) {
		t.Fatalf("short query: %q, want itself", got)
	}
	turn := "Bart: I'm really looking forward to that evening; I want to make it very special!"
	long := strings.TrimSpace(strings.Repeat(turn+" ", 12))
	got := tok.windows(long)
	if len(got) < 2 {
		t.Fatalf("a %d-piece query is one window", len(tok.encode(long)))
	}
	for i, w := range got {
		if n := len(tok.encode(w)); n > useLiteMaxTokens {
			t.Errorf("window %d has %d pieces, over %d", i, n, useLiteMaxTokens)
		}
	}
	if strings.Join(got, " ") != strings.Join(strings.Fields(long), " ") {
		t.Errorf("windows lose or reorder words")
	}
	huge := strings.Repeat(turn+" ", 400)
	if got := tok.windows(huge); len(got) != useLiteQueryWindows {
		t.Errorf("a huge query: %d windows, want the bound %d", len(got), useLiteQueryWindows)
	}
}
