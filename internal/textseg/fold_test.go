package textseg

import (
	"slices"
	"strings"
	"testing"

	"github.com/longbridgeapp/opencc"
)

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"上週我說了什麼", "上周我说了什么"},
		{"三個月前", "三个月前"},
		{"2026年3月以後", "2026年3月以后"},
		{"從2025年1月開始", "从2025年1月开始"},
		{"簡體字不變：数据库", "简体字不变:数据库"},
		{"English stays, 以後 folds", "English stays, 以后 folds"},
		{"只看２０２６年３月以前", "只看2026年3月以前"},
		{"ＰＯＳＴＧＲＥＳ　ｐｏｒｔ：６５４３", "POSTGRES port:6543"},
		{"", ""},
		{"２０\xe5\x9b", "20\xe5\x9b"}, // a text cut inside a character keeps its broken bytes
	} {
		got := FoldString(tc.in)
		if got != tc.want {
			t.Errorf("FoldString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestFoldHanTerms: a Traditional text has the Simplified text's terms, so
// either finds the other, and the Simplified stopwords apply to both.
func TestFoldHanTerms(t *testing.T) {
	for _, pair := range [][2]string{
		{"我們上個禮拜把資料庫遷移到新的伺服器", "我们上个礼拜把资料库迁移到新的伺服器"},
		{"這個專案的部署步驟", "这个专案的部署步骤"},
	} {
		if a, b := IndexTerms(pair[0]), IndexTerms(pair[1]); !slices.Equal(a, b) {
			t.Errorf("IndexTerms differ:\n%q → %v\n%q → %v", pair[0], a, pair[1], b)
		}
		if slices.Contains(Tokenize(pair[0]), "我们") {
			t.Errorf("a Traditional stopword is kept: %v", Tokenize(pair[0]))
		}
	}
	if a, b := IndexTerms("ＰＯＳＴＧＲＥＳ　ｐｏｒｔ ６５４３"), IndexTerms("postgres port 6543"); !slices.Equal(a, b) {
		t.Errorf("full-width terms %v, ASCII %v", a, b)
	}
	// the evidence shown is the query as written, not its folded form
	q := "資料庫遷移"
	if got := NewSurface(q).Words(IndexTerms("资料库迁移")); !slices.Equal(got, []string{q}) {
		t.Errorf("Surface words %v, want [%s]", got, q)
	}
}

// TestFoldHanMatchesOpenCC holds the embedded table to the opencc module
// it was copied from: each character folds as the module's t2s converts
// it alone. After upgrading the module, copy its dictionary/TSCharacters.txt
// over this package's.
func TestFoldHanMatchesOpenCC(t *testing.T) {
	cc, err := opencc.New("t2s")
	if err != nil {
		t.Fatal(err)
	}
	n, differ := 0, 0
	for _, line := range strings.Split(tsCharacters, "\n") {
		trad, _, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		r := []rune(trad)
		if len(r) != 1 {
			continue
		}
		want, err := cc.Convert(trad)
		if err != nil {
			t.Fatal(err)
		}
		got := string(FoldHan(r[0]))
		n++
		if got != want && len(got) == len(want) {
			differ++
			if differ <= 5 {
				t.Errorf("FoldHan(%s) = %s, opencc t2s says %s", trad, got, want)
			}
		}
	}
	if n < 4000 {
		t.Fatalf("only %d characters in the table", n)
	}
}
