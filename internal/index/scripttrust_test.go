package index

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

var topicWords = [][]string{{"咖啡", "coffee"}, {"跑步", "running"}}

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

// TestCJKTrust: an embedder that distrusts its CJK vectors ranks a Chinese
// query over Chinese entries by their words, exactly as keyword-only
// recall does, and still finds the English entry only its vectors tie to
// the query.
func TestCJKTrust(t *testing.T) {
	docs := []Doc{
		{Path: "zh-coffee", Kind: KindKnowledge, Name: "咖啡", Body: "用户每天早上喝一杯手冲咖啡，不加糖。"},
		{Path: "zh-run", Kind: KindKnowledge, Name: "跑步", Body: "用户周末早上在河边跑步十公里。"},
		{Path: "zh-tea", Kind: KindKnowledge, Name: "茶", Body: "用户下午喝乌龙茶。"},
		{Path: "en-coffee", Kind: KindKnowledge, Name: "coffee", Body: "The user grinds coffee beans by hand."},
	}
	q := Query{Text: "用户早上喝什么咖啡", Limit: 10}
	ctx := context.Background()
	rank := func(e embed.Embedder) map[string]float64 {
		hits, err := NewScorer(e, nil).ScoreDocs(ctx, q, docs)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, h := range hits {
			out[h.Doc.Path] = h.Hybrid
		}
		return out
	}
	off, distrust, trust := rank(embed.Off()), rank(topicEmbedder{trust: 0}), rank(topicEmbedder{trust: 1})
	for _, p := range []string{"zh-coffee", "zh-run", "zh-tea"} {
		if distrust[p] != off[p] {
			t.Errorf("%s: trust 0 hybrid %.3f, keyword-only %.3f: want equal", p, distrust[p], off[p])
		}
	}
	if trust["zh-coffee"] <= off["zh-coffee"] {
		t.Errorf("trust 1: zh-coffee %.3f should gain on keyword-only %.3f from its cosine", trust["zh-coffee"], off["zh-coffee"])
	}
	if _, ok := off["en-coffee"]; ok {
		t.Errorf("keyword-only found the English entry: %v", off)
	}
	if distrust["en-coffee"] <= 0 || distrust["en-coffee"] != trust["en-coffee"] {
		t.Errorf("the English entry keeps its whole semantic weight across scripts: trust 0 %.3f, trust 1 %.3f",
			distrust["en-coffee"], trust["en-coffee"])
	}
}
