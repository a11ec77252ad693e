package rank

import (
	"context"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
)

// TestCJKMatchCountedOnce checks that a long CJK match is one piece of
// evidence, not one per overlapping window: separate query words beat a
// single long word, and keyword stays in (0, 1] with the exact text on top.
func TestCJKMatchCountedOnce(t *testing.T) {
	filler := []Doc{
		{Path: "f1", Body: "今天下雨了，记得带伞。"},
		{Path: "f2", Body: "明天早上开会讨论预算。"},
		{Path: "f3", Body: "晚饭吃了面条和饺子。"},
		{Path: "f4", Body: "周报已经发给经理了。"},
	}
	tests := []struct {
		name string
		q    string
		docs []Doc
		want string // top hit
	}{
		{"three separate words beat one long word", "宠物医院周末营业时间",
			[]Doc{{Path: "long", Body: "那家宠物医院挺远。"}, {Path: "words", Body: "周末照常营业，时间不变。"}}, "words"},
		{"the whole phrase beats a part of it", "宠物医院周末营业",
			[]Doc{{Path: "part", Body: "那家宠物医院挺远。"}, {Path: "whole", Body: "宠物医院周末营业吗"}}, "whole"},
		{"an artefact window adds nothing", "生日是哪天",
			[]Doc{{Path: "two", Body: "生日哪天过都行。"}, {Path: "artefact", Body: "生日是下周。"}}, "two"},
	}
	sc := NewScorer(embed.Off(), nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := sc.ScoreDocs(context.Background(), Query{Text: tc.q}, append(append([]Doc(nil), filler...), tc.docs...))
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Doc.Path != tc.want {
				t.Fatalf("top = %v, want %s", hits, tc.want)
			}
			for _, h := range hits {
				if h.Keyword <= 0 || h.Keyword > 1 {
					t.Errorf("%s: keyword %v outside (0, 1]", h.Doc.Path, h.Keyword)
				}
			}
		})
	}
}
