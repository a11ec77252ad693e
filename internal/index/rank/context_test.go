package rank

import (
	"context"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
)

// dialogue is a conversation where the answer shares no word with the
// query and reaches it only through the question it replies to.
func dialogue() []Turn {
	return []Turn{
		{Path: "s1#1", Session: "s1", Role: "user", Text: "科技馆几点开门？"},
		{Path: "s1#2", Session: "s1", Role: "agent", Text: "上午九点到下午五点十五，周一闭馆。"},
		{Path: "s1#3", Session: "s1", Role: "user", Text: "I bought a mechanical keyboard yesterday."},
		{Path: "s1#4", Session: "s1", Role: "agent", Text: "Nice, enjoy typing on it."},
		{Path: "s2#1", Session: "s2", Role: "user", Text: "which keyboard layout should I buy?"},
		{Path: "s2#2", Session: "s2", Role: "agent", Text: "A 75% board with tactile switches fits your desk."},
		{Path: "s3#1", Session: "s3", Role: "user", Text: "what should I cook tonight?"}, // nobody answers it
	}
}

func TestContextCos(t *testing.T) {
	docs := TurnDocs(dialogue())
	c := newCorpus()
	emb := embed.Hash()
	for _, d := range docs {
		e := NewEntry(d)
		v, err := emb.Embed(context.Background(), []string{EmbedText(d)})
		if err != nil {
			t.Fatal(err)
		}
		e.SetVec(v[0], "")
		c.Put(e, nil)
	}
	own := make([]float64, len(c.slots))
	for s := range own {
		own[s] = float64(s + 1) // stand-in cosines: slot s has s+1
	}
	tests := []struct {
		path     string
		want     float64
		answered bool
		asks     bool
	}{
		{"s1#1", 0, true, true},   // first turn: no context; s1#2 replies to it
		{"s1#2", 1, true, false},  // replies to the question in slot 0
		{"s1#3", 0, true, false},  // its context is an answer, not a question
		{"s1#4", 0, false, false}, // its context is a statement: lends nothing
		{"s2#1", 0, true, true},   // the previous session's last turn is not its context
		{"s2#2", 5, false, false}, // replies to the question in slot 4
		{"s3#1", 0, false, true},  // a question nobody answers
	}
	for _, tc := range tests {
		e := c.Get(tc.path)
		if got := contextCos(c, e, own); got != tc.want*contextLend {
			t.Errorf("%s: contextCos %v, want %v", tc.path, got, tc.want*contextLend)
		}
		if got := c.answered(e); got != tc.answered {
			t.Errorf("%s: answered %v, want %v", tc.path, got, tc.answered)
		}
		if e.asks != tc.asks {
			t.Errorf("%s: asks %v, want %v", tc.path, e.asks, tc.asks)
		}
	}
	// removing the answer leaves the question unanswered; the reply's
	// context is gone once its question is removed
	c.Remove("s1#2")
	if c.answered(c.Get("s1#1")) {
		t.Error("s1#1 still answered after its reply was removed")
	}
	c.Remove("s2#1")
	if got := contextCos(c, c.Get("s2#2"), own); got != 0 {
		t.Errorf("s2#2 borrows %v from a removed question", got)
	}
}
