package rank

import (
	"context"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
)

// topicEmbedder gives every text that names one of its topics (in either
// language) that topic's axis, and others a vector of their own: a
// stand-in for an embedder that bridges languages, with a CJK trust.
type topicEmbedder struct {
	trust float64
}

var topicWords = [][]string{{"咖啡", "拿铁", "浓缩", "coffee"}, {"跑步", "running"}}

func (topicEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(topicWords)+1)
		v[len(topicWords)] = 1
		for axis, words := range topicWords {
			for _, w := range words {
				if strings.Contains(strings.ToLower(t), w) {
					v = make([]float32, len(topicWords)+1)
					v[axis] = 1
				}
			}
		}
		out[i] = v
	}
	return out, nil
}
func (topicEmbedder) ID() string                     { return "topic-test" }
func (topicEmbedder) Close() error                   { return nil }
func (e topicEmbedder) CJKTrust() float64            { return e.trust }
func (topicEmbedder) Calibration() embed.Calibration { return embed.Calibration{Floor: 0.2, Span: 0.5} }

// TestCJKTrust: an embedder that distrusts its CJK vectors has them count
// within CJK only as far as they agree with the words: where the vectors
// favour an entry the words do not, a Chinese query over Chinese entries
// ranks exactly as keyword-only recall does; where they agree, the
// vectors add to the words; across scripts they keep their whole weight.
func TestCJKTrust(t *testing.T) {
	docs := []Doc{
		{Path: "zh-coffee", Kind: KindKnowledge, Name: "咖啡", Body: "用户每天早上喝一杯手冲咖啡，不加糖。"},
		{Path: "zh-latte", Kind: KindKnowledge, Name: "拿铁", Body: "拿铁要加燕麦奶。"},
		{Path: "zh-run", Kind: KindKnowledge, Name: "跑步", Body: "用户周末早上在河边跑步十公里。"},
		{Path: "zh-tea", Kind: KindKnowledge, Name: "茶", Body: "用户下午喝乌龙茶。"},
		{Path: "en-coffee", Kind: KindKnowledge, Name: "coffee", Body: "The user grinds coffee beans by hand."},
	}
	ctx := context.Background()
	rank := func(e embed.Embedder, q string, docs []Doc) map[string]float64 {
		hits, err := NewScorer(e, nil).ScoreDocs(ctx, Query{Text: q, Limit: 10}, docs)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, h := range hits {
			out[h.Doc.Path] = h.Hybrid
		}
		return out
	}
	// the words rank the running and tea notes (用户, 早上, 喝); the vectors
	// see only coffee (浓缩, which no note says): the latte note and the
	// English one
	q, some := "用户早上喝什么浓缩", docs[1:]
	off, distrust, trust := rank(embed.Off(), q, some), rank(topicEmbedder{trust: 0}, q, some), rank(topicEmbedder{trust: 1}, q, some)
	for _, p := range []string{"zh-run", "zh-tea", "zh-latte"} {
		if distrust[p] != off[p] {
			t.Errorf("disagreeing vectors, %s: hybrid %.3f, keyword-only %.3f: want equal", p, distrust[p], off[p])
		}
	}
	if trust["zh-latte"] <= off["zh-latte"] {
		t.Errorf("trusted vectors: zh-latte %.3f should gain on keyword-only %.3f", trust["zh-latte"], off["zh-latte"])
	}
	if _, ok := off["en-coffee"]; ok {
		t.Errorf("keyword-only found the English entry: %v", off)
	}
	if distrust["en-coffee"] <= 0 || distrust["en-coffee"] != trust["en-coffee"] {
		t.Errorf("the English entry keeps its whole semantic weight across scripts: distrusted %.3f, trusted %.3f",
			distrust["en-coffee"], trust["en-coffee"])
	}
	// "咖啡": the words and the vectors both rank the coffee note first
	q = "咖啡"
	off, distrust = rank(embed.Off(), q, docs), rank(topicEmbedder{trust: 0}, q, docs)
	if distrust["zh-coffee"] <= off["zh-coffee"] {
		t.Errorf("agreeing vectors: zh-coffee %.3f should gain on keyword-only %.3f", distrust["zh-coffee"], off["zh-coffee"])
	}
}
