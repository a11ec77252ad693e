package index

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// TestSharedEntriesRankBesideOwn: with Options.Shared telling a team
// pool's entries from the user's own, an own entry ranks above a shared
// one with the same evidence (which, stronger in memory, came first
// before), a shared entry with clearly more evidence still ranks first, in
// English and in Chinese, and a hit reports a shared entry's evidence
// unchanged, so the hint gate weighs it as before.
func TestSharedEntriesRankBesideOwn(t *testing.T) {
	const team = "/team/backend/"
	knowledge := func(root, name, body string) rank.Doc {
		return rank.Doc{Path: root + "knowledge/" + name + "/SKILL.md", Kind: rank.KindKnowledge, Name: name, Body: body, Score: 0.5}
	}
	docs := []rank.Doc{
		knowledge("/me/", "my-staging-db", "The staging database listens on port 6543 for the migration."),
		{Path: team + "knowledge/staging-db/SKILL.md", Kind: rank.KindKnowledge, Name: "staging-db",
			Body: "The staging database listens on port 6543 for the migration.", Score: 0.9},
		knowledge(team, "team-deploy-freeze", "Deploy freeze on Fridays: no release train after lunch, release freeze for the whole team."),
		knowledge("/me/", "my-friday", "On Fridays I leave early."),
		knowledge(team, "team-cache", "缓存服务的端口是 6380，重启前先通知值班同学。"),
	}
	shared := func(p string) bool { return strings.HasPrefix(p, team) }
	search := func(t *testing.T, emb embed.Embedder, sh func(string) bool, q string) []rank.Hit {
		t.Helper()
		ctx := context.Background()
		ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "index.sqlite"), Source: NewMemSource(docs...),
			Embedder: emb, Logger: quietLogger(), ScanInterval: -1, LinkSpread: -1, Shared: sh,
			Now: func() time.Time { return day(2026, 12, 7) }})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		syncEmbedded(t, ix)
		hits, err := ix.Search(ctx, rank.Query{Text: q, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	names := func(hits []rank.Hit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Doc.Name)
		}
		return out
	}
	for _, emb := range []embed.Embedder{embed.Off(), embed.Hash()} {
		t.Run(emb.ID(), func(t *testing.T) {
			tests := []struct {
				q     string
				first string
			}{
				{"which port does the staging database listen on", "my-staging-db"},
				{"release freeze deploy fridays", "team-deploy-freeze"},
				{"缓存服务端口", "team-cache"},
			}
			if got := names(search(t, emb, nil, tests[0].q)); len(got) == 0 || got[0] != "staging-db" {
				t.Fatalf("without Shared the stronger team entry came first before: %v", got)
			}
			for _, tc := range tests {
				got := names(search(t, emb, shared, tc.q))
				if len(got) == 0 || got[0] != tc.first {
					t.Errorf("%q with a pool: first %v, want %s", tc.q, got, tc.first)
				}
			}
			// the same evidence is reported for the team entry with or without Shared
			with, without := search(t, emb, shared, "staging database port"), search(t, emb, nil, "staging database port")
			hyb := func(hits []rank.Hit, name string) float64 {
				for _, h := range hits {
					if h.Doc.Name == name {
						return h.Hybrid
					}
				}
				t.Fatalf("%s not found in %v", name, names(hits))
				return 0
			}
			if a, b := hyb(with, "staging-db"), hyb(without, "staging-db"); a != b {
				t.Errorf("a shared entry's evidence changed: %.4f with Shared, %.4f without", a, b)
			}
		})
	}
}
