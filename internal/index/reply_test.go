package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// dialogue is a conversation where the answer shares no word with the
// query and reaches it only through the question it replies to.
func dialogue() []rank.Turn {
	return []rank.Turn{
		{Path: "s1#1", Session: "s1", Role: "user", Text: "科技馆几点开门？"},
		{Path: "s1#2", Session: "s1", Role: "agent", Text: "上午九点到下午五点十五，周一闭馆。"},
		{Path: "s1#3", Session: "s1", Role: "user", Text: "I bought a mechanical keyboard yesterday."},
		{Path: "s1#4", Session: "s1", Role: "agent", Text: "Nice, enjoy typing on it."},
		{Path: "s2#1", Session: "s2", Role: "user", Text: "which keyboard layout should I buy?"},
		{Path: "s2#2", Session: "s2", Role: "agent", Text: "A 75% board with tactile switches fits your desk."},
		{Path: "s3#1", Session: "s3", Role: "user", Text: "what should I cook tonight?"}, // nobody answers it
	}
}

// TestReplyOutranksItsQuestion: for a question-like query, the answer
// comes first, found through the question it replies to, with exactly
// the same scores in ScoreDocs and in the index.
func TestReplyOutranksItsQuestion(t *testing.T) {
	ctx := context.Background()
	docs := rank.TurnDocs(dialogue())
	for _, emb := range []embed.Embedder{embed.Hash(), embed.Off()} {
		ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "index.sqlite"), Source: NewMemSource(docs...),
			Embedder: emb, Logger: quietLogger(), ScanInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		syncEmbedded(t, ix)
		tests := []struct{ q, want string }{
			{"what to cook tonight", "s3#1"}, // unanswered: the question is all there is
		}
		if !embed.IsOff(emb) {
			tests = append(tests, []struct{ q, want string }{
				{"which keyboard layout to buy", "s2#2"},
				{"keyboard layout advice", "s2#2"},
				// the question holds the query verbatim: the literal bonus is
				// not damped, and it is the question's own evidence
				{"科技馆几点开门", "s1#1"},
			}...)
		}
		for _, tc := range tests {
			q := rank.Query{Text: tc.q, Kinds: []string{rank.KindConversation}, NoSpread: true}
			a, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ix.Scorer().ScoreDocs(ctx, q, docs)
			if err != nil {
				t.Fatal(err)
			}
			if len(a) == 0 || a[0].Doc.Path != tc.want {
				t.Errorf("%s %q: top %v, want %s", emb.ID(), tc.q, paths(a), tc.want)
			}
			if fmt.Sprint(paths(a)) != fmt.Sprint(paths(b)) {
				t.Errorf("%s %q: index %v vs ScoreDocs %v", emb.ID(), tc.q, paths(a), paths(b))
			}
			for i := range min(len(a), len(b)) {
				if abs(a[i].Hybrid-b[i].Hybrid) > 1e-6 || abs(a[i].ContextCos-b[i].ContextCos) > 1e-6 {
					t.Errorf("%s %q: %s hybrid/ctx %.4f/%.4f vs %.4f/%.4f", emb.ID(), tc.q, a[i].Doc.Path,
						a[i].Hybrid, a[i].ContextCos, b[i].Hybrid, b[i].ContextCos)
				}
			}
		}
		ix.Close()
	}
}

func paths(hits []rank.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Doc.Path
	}
	return out
}
