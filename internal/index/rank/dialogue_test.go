package rank

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
)

// dialogueDocs is a small two-speaker conversation stored as one memory
// entry per turn, the shape that misled recall: names on every turn,
// question turns above their answers, dates only in the entry.
func dialogueDocs() []Doc {
	at := func(m time.Month, d int) time.Time { return time.Date(2024, m, d, 19, 0, 0, 0, time.UTC) }
	turns := []struct {
		when time.Time
		text string
	}{
		{at(1, 8), "Maya: Tom, I finally signed up for the pottery class at the community centre."},
		{at(1, 8), "Tom: Nice! How long do you usually hold a yoga pose, by the way?"},
		{at(1, 8), "Maya: I hold each yoga pose about two minutes, longer on weekends."},
		{at(3, 10), "Maya: I ran the half marathon yesterday in 1:58!"},
		{at(3, 10), "Tom: Amazing, Maya. What is next for you?"},
		{at(3, 10), "Maya: Rest, then the trail race in June."},
		{at(5, 2), "Tom: We booked the flights to Osaka for the autumn."},
		{at(5, 2), "Maya: Tom, that is brilliant."},
		{at(5, 2), "Tom: Priya wants to see the temples in Kyoto too."},
		{at(7, 20), "Maya: Maya here, back from Wales. Tom, how was your week?"},
		{at(7, 20), "Tom: Busy, the new job started on Monday."},
	}
	var docs []Doc
	for i, t := range turns {
		docs = append(docs, Doc{Path: fmt.Sprintf("t%d", i+1), Kind: KindKnowledge, Name: fmt.Sprintf("turn-%d", i+1),
			Description: "conversation turn", Body: t.text, When: t.when})
	}
	return docs
}

func TestDialogueRecall(t *testing.T) {
	now := time.Date(2024, 9, 2, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, q string
		want    []string // the top len(want) hits, in any order
	}{
		// the entry's own date answers a question about a month or a
		// relative period, though no word of it is in the turn
		{"month and year", "What did Maya say in March 2024?", []string{"t4", "t5", "t6"}},
		{"last month name", "What did Tom book last May?", []string{"t7"}},
		{"relative period", "what was Maya up to two months ago?", []string{"t10"}},
		{"chinese month", "今年三月 half marathon", []string{"t4"}},
		// the answer, not the question turn it replies to
		{"answer over question", "How long does Maya hold a yoga pose?", []string{"t3"}},
	}
	for _, emb := range []embed.Embedder{embed.Off(), embed.Hash()} {
		sc := NewScorer(emb, nil)
		sc.now = func() time.Time { return now }
		for _, tc := range tests {
			t.Run(emb.ID()+"/"+tc.name, func(t *testing.T) {
				hits, err := sc.ScoreDocs(context.Background(), Query{Text: tc.q, Limit: 5}, dialogueDocs())
				if err != nil {
					t.Fatal(err)
				}
				ok := len(hits) >= len(tc.want)
				for i := 0; ok && i < len(tc.want); i++ {
					ok = slices.Contains(tc.want, hits[i].Doc.Path)
				}
				if !ok {
					var got []string
					for _, h := range hits {
						got = append(got, fmt.Sprintf("%s %.3f %q", h.Doc.Path, h.Hybrid, h.Doc.Body))
					}
					t.Fatalf("top = %v, want %s", got, tc.want)
				}
			})
		}
	}
}

// TestHashQueryWeighsWordsByIdf: a name every entry holds must not carry a
// hash-embedded query to the entries that only share the name.
func TestHashQueryWeighsWordsByIdf(t *testing.T) {
	docs := []Doc{{Path: "kiln", Body: "Tom: the kiln at the studio cracked my bowl"}}
	for i := 0; i < 30; i++ {
		docs = append(docs, Doc{Path: fmt.Sprintf("n%d", i), Body: fmt.Sprintf("Maya: Maya note %d about the weekend", i)})
	}
	c := newCorpus()
	for _, d := range docs {
		c.Put(NewEntry(d), nil)
	}
	if w := c.words.TermWeight("maya"); w > 0.3 {
		t.Errorf("TermWeight(maya) = %.2f, want a name on every entry to weigh under 0.3", w)
	}
	if w := c.words.TermWeight("kiln"); w < 0.99 {
		t.Errorf("TermWeight(kiln) = %.2f, want a word one entry holds to weigh 1", w)
	}
	sc := NewScorer(embed.Hash(), nil)
	const q = "what did Maya say about the kiln"
	plain, _ := sc.EmbedQuery(context.Background(), q)
	weighted, _ := sc.EmbedQueryWeighted(context.Background(), q, c.words.TermWeight)
	nameOnly, _ := embed.Hash().Embed(context.Background(), []string{EmbedText(docs[1])})
	floor := embed.CalibrationOf(embed.Hash()).Floor
	if p, w := embed.Dot(plain, nameOnly[0]), embed.Dot(weighted, nameOnly[0]); p < floor || w >= floor {
		t.Errorf("cosine with an entry sharing only the name: plain %.3f, weighted %.3f; want the weighting to take it from above the floor %.2f to below", p, w, floor)
	}
	hits, err := sc.ScoreDocs(context.Background(), Query{Text: q, Limit: 3}, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Doc.Path != "kiln" {
		t.Fatalf("top = %v, want kiln", hits)
	}
}

// TestUnembeddedEntriesRankByKeyword: while the embedder is behind, an
// entry without a vector is scored by its words as if they were its
// cosine, not pushed below every embedded entry.
func TestUnembeddedEntriesRankByKeyword(t *testing.T) {
	c := newCorpus()
	withVec := NewEntry(Doc{Path: "embedded", Body: "notes about staging deploys"})
	v := make([]float32, embed.HashDim)
	v[0] = 1
	withVec.SetVec(v, "")
	c.Put(withVec, nil)
	c.Put(NewEntry(Doc{Path: "pending", Body: "staging postgres port is 6543"}), nil)
	for i := 0; i < 5; i++ {
		e := NewEntry(Doc{Path: fmt.Sprintf("f%d", i), Body: fmt.Sprintf("filler %d", i)})
		v := make([]float32, embed.HashDim)
		v[1] = 1
		e.SetVec(v, "")
		c.Put(e, nil)
	}
	sc := NewScorer(embed.Hash(), nil)
	qvec := make([]float32, embed.HashDim)
	qvec[2] = 1 // orthogonal to every stored vector: words decide
	hits := sc.Rank(c, Query{Text: "staging postgres port"}, qvec, 0)
	if len(hits) == 0 || hits[0].Doc.Path != "pending" {
		t.Fatalf("top = %v, want the unembedded entry holding the words", hits)
	}
	if hits[0].Hybrid < weightCos*hits[0].Keyword {
		t.Errorf("hybrid %.3f: want keyword %.3f to stand in for the cosine", hits[0].Hybrid, hits[0].Keyword)
	}
}
