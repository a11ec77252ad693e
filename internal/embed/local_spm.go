package embed

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// useLiteReserved is how many leading vocab entries are control symbols
// (unk, <s>, </s>, extra ids) that the tokenizer never emits as pieces.
const useLiteReserved = 6

// useLiteMaxTokens is the encoder's own limit: the graph drops every piece at
// position ≥ 128, so sending more only costs time.
const useLiteMaxTokens = 128

// useLiteSpace is SentencePiece's word-boundary marker.
const useLiteSpace = "\u2581"

// useLiteTokenizer is the SentencePiece unigram tokenizer that ships with USE
// Lite, reproducing the TF.js port's Viterbi search exactly (including its tie
// rule) so token ids match the ones the model was exported and checked with.
type useLiteTokenizer struct {
	pieces  []string         // id → piece
	lookup  map[string]int32 // piece → id, reserved ids excluded
	scores  []float64        // id → log probability
	maxLen  int              // longest piece in runes
	spaceID int32            // id of "▁", used for texts that yield no pieces
}

// useLiteLoadVocab reads vocab.json: a JSON array of [piece, score] pairs.
func useLiteLoadVocab(path string) (*useLiteTokenizer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("embed: use-lite vocab: %w", err)
	}
	var entries [][2]any
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("embed: use-lite vocab %s: %w", path, err)
	}
	if len(entries) <= useLiteReserved {
		return nil, fmt.Errorf("embed: use-lite vocab %s: only %d entries", path, len(entries))
	}
	t := &useLiteTokenizer{
		pieces:  make([]string, len(entries)),
		scores:  make([]float64, len(entries)),
		lookup:  make(map[string]int32, len(entries)),
		spaceID: -1,
	}
	for i, e := range entries {
		piece, ok1 := e[0].(string)
		score, ok2 := e[1].(float64)
		if e[1] == nil {
			// A few pieces (":", "?", …) carry a null score; JavaScript
			// adds null as 0, so they score 0 in the reference too.
			score, ok2 = 0, true
		}
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("embed: use-lite vocab %s: entry %d is not [string, number]", path, i)
		}
		t.pieces[i], t.scores[i] = piece, score
		if i < useLiteReserved || piece == "" {
			continue
		}
		if _, dup := t.lookup[piece]; !dup {
			t.lookup[piece] = int32(i)
		}
		if n := len([]rune(piece)); n > t.maxLen {
			t.maxLen = n
		}
		if piece == useLiteSpace {
			t.spaceID = int32(i)
		}
	}
	return t, nil
}

// useLiteClean maps every whitespace run (newlines, tabs, repeated spaces) to
// one space and trims the ends, as SentencePiece's own normaliser does; the
// TF.js port only rewrites ' ', so without this a newline becomes an unknown
// piece.
func useLiteClean(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// encode returns the piece ids of s exactly as the TF.js tokenizer does (no
// whitespace cleaning, no length limit).
func (t *useLiteTokenizer) encode(s string) []int32 {
	s = norm.NFKC.String(s)
	if s == "" {
		return nil
	}
	symbols := []rune(useLiteSpace + strings.ReplaceAll(s, " ", useLiteSpace))
	n := len(symbols)
	// best[end] is the best log-prob of a segmentation of symbols[:end]; 0
	// doubles as "unset", as in the reference implementation.
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	// Lattice edges by end position; iterating starts in increasing order
	// with ">=" reproduces the reference's tie-breaking.
	type edge struct {
		start int
		id    int32
		score float64
	}
	edges := make([][]edge, n+1)
	for i := 0; i < n; i++ {
		matched := false
		limit := min(t.maxLen, n-i)
		for l := 1; l <= limit; l++ {
			if id, ok := t.lookup[string(symbols[i:i+l])]; ok {
				edges[i+l] = append(edges[i+l], edge{start: i, id: id, score: t.scores[id]})
				matched = true
			}
		}
		if !matched { // unknown symbol: a one-rune piece with id 0, score 0
			edges[i+1] = append(edges[i+1], edge{start: i, id: 0, score: 0})
		}
	}
	for end := 1; end <= n; end++ {
		es := edges[end]
		// Edges were appended by start position already (outer loop), so
		// they are in increasing start order.
		for _, e := range es {
			score := e.score + best[e.start]
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = e.id
			}
		}
	}
	var rev []int32
	for pos := n; pos > 0; {
		id := words[pos]
		rev = append(rev, id)
		step := 1 // id 0 (unknown) always covers one symbol
		if id != 0 {
			step = len([]rune(t.pieces[id]))
		}
		pos -= step
	}
	// Reverse, merging runs of unknowns into one as the reference does.
	out := make([]int32, 0, len(rev))
	prevUnk := false
	for i := len(rev) - 1; i >= 0; i-- {
		id := rev[i]
		if !(prevUnk && id == 0) {
			out = append(out, id)
		}
		prevUnk = id == 0
	}
	return out
}

// useLiteQueryWindows bounds how many encoder windows one query is read in
// (denseQuery): the scorer already cuts queries to 4 Ki runes, about 6
// windows of English.
const useLiteQueryWindows = 8

// windows cuts text at word boundaries into consecutive pieces the encoder
// reads whole (at most useLiteMaxTokens pieces each, useLiteQueryWindows
// in all): the text itself when it fits. A word longer than a window is a
// window of its own, cut by tokens as any text is.
func (t *useLiteTokenizer) windows(text string) []string {
	words := strings.Fields(text)
	var out []string
	var cur []string
	n := 0
	for _, w := range words {
		k := len(t.encode(w))
		if n+k > useLiteMaxTokens && len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			if len(out) == useLiteQueryWindows {
				return out
			}
			cur, n = nil, 0
		}
		cur = append(cur, w)
		n += k
	}
	if len(out) == 0 {
		return []string{text}
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, " "))
	}
	return out
}

// tokens returns the model input for one text: cleaned, encoded, cut to the
// encoder's 128-piece window, and never empty (an empty text becomes "▁" so
// every row of a batch gets a defined, non-zero vector).
func (t *useLiteTokenizer) tokens(text string) []int32 {
	text = useLiteClean(text)
	// Tokenising megabytes to keep 128 pieces is waste; a piece is at most
	// maxLen runes, so this prefix always yields more than 128 pieces when
	// the whole text would. Cut at a space so the last word stays intact.
	if limit := 2 * useLiteMaxTokens * max(t.maxLen, 8); len(text) > limit {
		cut := text[:limit]
		if i := strings.LastIndexByte(cut, ' '); i > limit/2 {
			cut = cut[:i]
		}
		text = strings.ToValidUTF8(cut, "")
	}
	ids := t.encode(text)
	if len(ids) > useLiteMaxTokens {
		ids = ids[:useLiteMaxTokens]
	}
	if len(ids) == 0 {
		if t.spaceID >= 0 {
			return []int32{t.spaceID}
		}
		return []int32{0}
	}
	return ids
}
