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
// a Traditional text never moves a byte offset. Built on first use: a process that never
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

// foldWidth is r with a full-width form replaced by its ASCII one (Ｐ → P,
// ２ → 2, the ideographic space → a space), as Lucene's CJK width filter
// does: Chinese and Japanese input methods type "２０２６年３月" and
// "ＰＯＳＴＧＲＥＳ", which must meet "2026年3月" and "postgres".
func foldWidth(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFEE0
	case r == 0x3000:
		return ' '
	}
	return r
}

// Fold is one rune as somni reads text: full-width forms as ASCII
// (foldWidth), Traditional Chinese as Simplified (FoldHan). Case is the
// caller's: Runs lowercases too.
func Fold(r rune) rune { return FoldHan(foldWidth(r)) }

// FoldString is s with Fold applied to every rune; s itself when nothing
// folds. A full-width form is 3 bytes and its ASCII one 1, so offsets into
// s index the result only when their lengths are equal: callers that keep
// offsets compare them (a Traditional character and its Simplified form
// are always the same length).
func FoldString(s string) string {
	for i, r := range s {
		if Fold(r) != r {
			var b strings.Builder
			b.Grow(len(s))
			b.WriteString(s[:i])
			for j := i; j < len(s); {
				r, n := utf8.DecodeRuneInString(s[j:])
				if r == utf8.RuneError && n == 1 {
					b.WriteByte(s[j]) // a broken byte (a cut text) stays one byte
				} else {
					b.WriteRune(Fold(r))
				}
				j += n
			}
			return b.String()
		}
	}
	return s
}
