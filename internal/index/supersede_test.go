package index

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// TestSupersede: a later statement that changes an earlier one ranks above
// it for a question about now, the earlier one is marked superseded by it,
// and a question about the past gets the earlier one first, found by the
// second hop when it shares none of the question's rarer words; the
// front-matter's supersedes/superseded_by links count alike. English and
// Chinese, without vectors and with hash.
func TestSupersede(t *testing.T) {
	now := day(2026, 6, 1)
	filler := func(n int) []rank.Doc {
		var out []rank.Doc
		for i := range n {
			out = append(out, rank.Doc{Path: "f" + strconv.Itoa(i), Kind: rank.KindConversation, Name: "f" + strconv.Itoa(i),
				Body: "We talked about the lunch menu and the weather on day " + strconv.Itoa(i) + ".", When: day(2026, 1, 1+i%28)})
		}
		return out
	}
	turns := append(filler(30),
		rank.Doc{Path: "old", Kind: rank.KindConversation, Name: "old", Body: "Our staging kafka listens on port 9092.", When: day(2026, 2, 1)},
		rank.Doc{Path: "new", Kind: rank.KindConversation, Name: "new", Body: "Heads up: staging kafka moved to port 9094 after the upgrade.", When: day(2026, 4, 1)},
		rank.Doc{Path: "zh-old", Kind: rank.KindConversation, Name: "zh-old", Body: "测试库的端口是 5432，用户名 test。", When: day(2026, 2, 2)},
		rank.Doc{Path: "zh-new", Kind: rank.KindConversation, Name: "zh-new", Body: "测试库的端口改成 6543 了。", When: day(2026, 4, 2)},
		rank.Doc{Path: "v-old", Kind: rank.KindConversation, Name: "v-old", Body: "Second, start your variable names with 'x_'. Got it?", When: day(2026, 2, 3)},
		rank.Doc{Path: "v-new", Kind: rank.KindConversation, Name: "v-new", Body: "I want to update a previous instruction. From now on, start all variable names with 'm_'.", When: day(2026, 4, 3)},
		rank.Doc{Path: "knowledge/db-host/SKILL.md", Kind: rank.KindKnowledge, Name: "db-host", Description: "Billing database host",
			Body: "The billing database runs on db-billing-02.", SupersededBy: "db-host-2026"},
		rank.Doc{Path: "knowledge/db-host-2026/SKILL.md", Kind: rank.KindKnowledge, Name: "db-host-2026", Description: "Where billing data lives since the spring",
			Body: "Since April the ledger is served from db-billing-03.", Supersedes: []string{"db-host"}},
	)
	cases := []struct {
		q, first, second string
	}{
		{"what port is staging kafka on", "new", "old"},
		{"what port did staging kafka use before?", "old", "new"},
		{"测试库端口是多少", "zh-new", "zh-old"},
		{"测试库原来的端口是多少", "zh-old", "zh-new"},
		{"how should I name variables", "v-new", "v-old"},
		{"billing database host", "knowledge/db-host-2026/SKILL.md", "knowledge/db-host/SKILL.md"},
		{"what was the old billing database host", "knowledge/db-host/SKILL.md", "knowledge/db-host-2026/SKILL.md"},
	}
	for _, emb := range []embed.Embedder{nil, embed.Hash()} {
		name := "off"
		if emb != nil {
			name = emb.ID()
		}
		t.Run(name, func(t *testing.T) {
			search := searchIndexHits(t, emb, now, turns)
			for _, c := range cases {
				hits := search(c.q)
				var paths []string
				by := map[string]string{}
				for _, h := range hits {
					paths = append(paths, h.Doc.Path)
					by[h.Doc.Path] = h.SupersededBy
				}
				i, j := rankOf(paths, c.first), rankOf(paths, c.second)
				if i != 0 || j < 0 {
					t.Errorf("%q: %s at %d, %s at %d, want first and listed; got %v", c.q, c.first, i, c.second, j, paths)
				}
				old, newer := c.second, c.first
				if rankOf([]string{"old", "zh-old", "v-old", "knowledge/db-host/SKILL.md"}, c.first) >= 0 {
					old, newer = c.first, c.second
				}
				if want := docName(turns, newer); by[old] != want {
					t.Errorf("%q: %s superseded by %q, want %q", c.q, old, by[old], want)
				}
				if by[newer] != "" {
					t.Errorf("%q: the newer %s marked superseded by %q", c.q, newer, by[newer])
				}
			}
		})
	}
}

func docName(docs []rank.Doc, path string) string {
	for _, d := range docs {
		if d.Path == path {
			return d.Name
		}
	}
	return ""
}

// TestSupersedeLinksSurviveRestart: the front-matter links are in the cache,
// so a reopened index ranks and marks as the first did without reloading.
func TestSupersedeLinksSurviveRestart(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "index.sqlite")
	src := NewMemSource(
		rank.Doc{Path: "knowledge/a/SKILL.md", Kind: rank.KindKnowledge, Name: "a", Body: "deploy host is web-1", SupersededBy: "b"},
		rank.Doc{Path: "knowledge/b/SKILL.md", Kind: rank.KindKnowledge, Name: "b", Body: "deploy host is web-2", Supersedes: []string{"a"}})
	for range 2 {
		ix, err := Open(ctx, Options{Path: p, Source: src, Logger: quietLogger(), ScanInterval: -1, LinkSpread: -1,
			Now: func() time.Time { return day(2026, 6, 1) }})
		if err != nil {
			t.Fatal(err)
		}
		syncEmbedded(t, ix)
		hits, err := ix.Search(ctx, rank.Query{Text: "deploy host", Limit: 5})
		ix.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 || hits[0].Doc.Name != "b" || hits[1].SupersededBy != "b" || hits[1].Doc.SupersededBy != "b" || len(hits[0].Doc.Supersedes) != 1 {
			t.Fatalf("hits %+v", hits)
		}
	}
}
