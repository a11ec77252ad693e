package rank

import (
	"strings"
	"testing"
)

// TestEmbedKeyIsKeyOfEmbedText: the key hashed from the pieces is the key
// of the text EmbedText builds, whatever white space the pieces start or
// end with (a vector is reused by this key: a differing one would
// re-embed, or worse, share a vector between two texts).
func TestEmbedKeyIsKeyOfEmbedText(t *testing.T) {
	long := strings.Repeat("word ", embedHeadRunes)
	for _, tc := range []struct {
		name string
		d    Doc
	}{
		{"all three", Doc{Name: "n", Description: "d", Body: "b"}},
		{"empty", Doc{}},
		{"only white space", Doc{Name: " \t", Description: "\n", Body: "  \u3000 "}},
		{"no name", Doc{Description: "  desc ", Body: "body"}},
		{"no body", Doc{Name: "name", Description: "desc\n\n"}},
		{"only a body", Doc{Body: "\n\n body \n"}},
		{"unicode space at the ends", Doc{Name: "\u00a0\u2003name", Body: "body\u0085\u3000"}},
		{"white space inside kept", Doc{Name: "a  b", Description: " ", Body: " c "}},
		{"a body past the head", Doc{Name: "n", Body: long + "tail"}},
		{"invalid UTF-8 at the ends", Doc{Name: "\xe3\x80", Body: "x\xe3"}},
		{"a context's doc", Doc{Body: "  the context  "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := embedKey(tc.d), textKey(EmbedText(tc.d)); got != want {
				t.Errorf("embedKey = %x, textKey(EmbedText) = %x (text %q)", got, want, EmbedText(tc.d))
			}
		})
	}
}
