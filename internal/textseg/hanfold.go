package textseg

import (
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"
)

// tsCharacters is OpenCC's Traditional → Simplified character table
// (TSCharacters.txt, Apache-2.0, licence in TSCharacters.LICENSE), copied
// unchanged from the github.com/longbridgeapp/opencc module; a test holds
// the copy to that module. Each line is a Traditional character, a tab
// and its Simplified forms, the common one first.
//
//go:embed TSCharacters.txt
var tsCharacters string

// hanFold maps a Traditional character to its common Simplified form,
// where both take the same number of UTF-8 bytes (every pair in the Basic
// Multilingual Plane does; the few that leave it are skipped), so folding
// never moves a byte offset. Built on first use: a process that never
// reads Chinese never parses the table.
var hanFold = sync.OnceValue(func() map[rune]rune {
	m := make(map[rune]rune, 4096)
	for _, line := range strings.Split(tsCharacters, "\n") {
		trad, simps, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		t, tn := utf8.DecodeRuneInString(trad)
		first, _, _ := strings.Cut(simps, " ")
		s, sn := utf8.DecodeRuneInString(first)
		if tn != len(trad) || sn != len(first) || t == s || tn != utf8.RuneLen(s) {
			continue
		}
		m[t] = s
	}
	return m
})

// FoldHan is rune r with a Traditional Chinese character replaced by its
// Simplified form: 後 → 后, 週 → 周, 個 → 个. A Traditional text then
// meets the same terms, stopwords and date words as a Simplified one, and
// a memory written in one script is found by a question in the other.
// Any other rune is returned as it is.
func FoldHan(r rune) rune {
	if !isHan(r) {
		return r
	}
	if s, ok := hanFold()[r]; ok {
		return s
	}
	return r
}

// FoldHanString is s with FoldHan applied to every rune. Byte offsets into
// s stay valid in the result (a folded pair has the same UTF-8 length), so
// spans found in the folded text point into s too. s is returned as it is
// when nothing folds.
func FoldHanString(s string) string {
	for i, r := range s {
		if f := FoldHan(r); f != r {
			b := []byte(s)
			for j, r := range s[i:] {
				if f := FoldHan(r); f != r {
					utf8.EncodeRune(b[i+j:], f)
				}
			}
			return string(b)
		}
	}
	return s
}
