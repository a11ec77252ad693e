package rank

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/present"
)

func episodes() []Doc {
	day := func(d int) time.Time { return time.Date(2026, 11, d, 10, 0, 0, 0, time.UTC) }
	return []Doc{
		{Path: "e1", Kind: KindEpisode, Name: "ep-outage", Description: "payments outage after password rotation", When: day(2), Tags: []string{"incident", "payments"}, Type: "episode"},
		{Path: "e2", Kind: KindEpisode, Name: "ep-migration", Description: "payments queue migration to kafka", When: day(10), Tags: []string{"migration"}, Type: "episode"},
		{Path: "e3", Kind: KindEpisode, Name: "ep-review", Description: "payments architecture review", When: day(20), Tags: []string{"review"}, Type: "episode"},
		{Path: "k1", Kind: KindKnowledge, Name: "payments-runbook", Description: "payments service runbook", Type: "fact"},
	}
}

func TestFilters(t *testing.T) {
	sc := NewScorer(embed.Hash(), nil)
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"all kinds", Query{}, []string{"e1", "e2", "e3", "k1"}},
		{"kind", Query{Kinds: []string{KindEpisode}}, []string{"e1", "e2", "e3"}},
		{"since", Query{Since: day(5)}, []string{"e2", "e3"}},
		{"until", Query{Until: day(15)}, []string{"e1", "e2"}},
		{"window", Query{Since: day(5), Until: day(15)}, []string{"e2"}},
		{"tags any", Query{Tags: []string{"review", "Incident"}}, []string{"e1", "e3"}},
		{"entry type", Query{EntryType: "FACT"}, []string{"k1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Text = "payments"
			hits, err := sc.ScoreDocs(context.Background(), q, episodes())
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, h := range hits {
				got[h.Doc.Path] = true
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for _, w := range tc.want {
				if !got[w] {
					t.Errorf("missing %s in %v", w, got)
				}
			}
		})
	}
}

func TestEmptyQueryListsNewestFirst(t *testing.T) {
	sc := NewScorer(embed.Hash(), nil)
	day := time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		q    Query
		want string
	}{
		{Query{Kinds: []string{KindEpisode}}, "e3,e2,e1"},
		{Query{Kinds: []string{KindEpisode}, Since: day, Limit: 1}, "e3"},
		{Query{Tags: []string{"incident"}}, "e1"},
	}
	for _, tc := range tests {
		hits, err := sc.ScoreDocs(context.Background(), tc.q, episodes())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Doc.Path)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%+v: got %v, want %s", tc.q, got, tc.want)
		}
	}
}

func TestScoreDocsWithGivenVector(t *testing.T) {
	sc := NewScorer(embed.Hash(), nil)
	ctx := context.Background()
	v, err := sc.EmbedQuery(ctx, "kafka migration")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := sc.ScoreDocs(ctx, Query{Text: "kafka migration"}, episodes())
	b, _ := sc.ScoreDocs(ctx, Query{Text: "kafka migration", Vector: v}, episodes())
	if len(a) == 0 || len(a) != len(b) || a[0].Doc.Path != "e2" || a[0].Hybrid != b[0].Hybrid {
		t.Fatalf("given vector changed ranking: %v vs %v", a, b)
	}
}

func TestRenderHits(t *testing.T) {
	sc := NewScorer(embed.Hash(), nil)
	docs := append(episodes(), Doc{Path: "/home/ann/.dsh/somni/memory/knowledge/redis/SKILL.md", Kind: KindKnowledge, Name: "redis-eviction",
		Description: "cache evicted nothing", Body: "use allkeys-lru", AppliesWhen: "cache without TTL", Type: "pitfall"})
	hits, _ := sc.ScoreDocs(context.Background(), Query{Text: "allkeys-lru eviction policies"}, docs)
	rel := func(p string) string { return strings.TrimPrefix(p, "/home/ann/.dsh/somni/") }
	out := present.RenderHits(Shown(hits), present.RenderOptions{BodyChars: 40, ShowPath: rel})
	for _, want := range []string{"1. redis-eviction (knowledge/pitfall, ", "· memory/knowledge/redis/SKILL.md\n",
		`matched "eviction"`, "exact: allkeys-lru", "   > cache evicted nothing\n", "   > applies when: cache without TTL\n", "   > use allkeys-lru"} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"/home/ann", "why:", "evict,", "**"} {
		if strings.Contains(out, bad) {
			t.Errorf("render has %q:\n%s", bad, out)
		}
	}
	if got := present.RenderHits(Shown(nil), present.RenderOptions{}); got != "No matching memories." {
		t.Errorf("empty render %q", got)
	}
}

func TestCandidateRules(t *testing.T) {
	docs := []Doc{
		{Path: "a", Name: "db", Body: "the db ok flag"},           // only 2-char latin tokens
		{Path: "b", Name: "数据库", Body: "数据库 连接池"},                 // CJK word ≥ 2 chars
		{Path: "c", Name: "pool", Body: "connection pool sizing"}, // ≥ 3-char token
	}
	sc := NewScorer(embed.Off(), nil)
	tests := []struct {
		q    string
		want []string
	}{
		{"db", nil},              // weak: a 2-char latin token alone is no evidence
		{"db ok", []string{"a"}}, // weak tokens, but a literal hit makes it a candidate
		{"ok db", nil},           // same weak tokens, no literal hit
		{"数据库", []string{"b"}},
		{"pool", []string{"c"}},
	}
	for _, tc := range tests {
		hits, _ := sc.ScoreDocs(context.Background(), Query{Text: tc.q}, docs)
		var got []string
		for _, h := range hits {
			got = append(got, h.Doc.Path)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: got %v, want %v", tc.q, got, tc.want)
		}
	}
}

// TestSymbolEvidence: a specific symbol of the query found verbatim in an
// entry adds symbolBonus to its hybrid; a flag, a short number or a plain
// file name pins the entry (it still ranks first) but adds nothing.
func TestSymbolEvidence(t *testing.T) {
	docs := []Doc{
		{Path: "pg", Name: "staging-postgres", Description: "staging database",
			Body: "runs on pg-stage-7, port 6543; see docs/staging-postgres-notes.md and package.json, keep 30 days, use --verbose"},
		{Path: "other", Name: "unrelated", Description: "something else", Body: "nothing in common"},
	}
	sc := NewScorer(embed.Off(), nil)
	tests := []struct {
		q        string
		bonus    bool // the pg entry's hybrid includes symbolBonus
		pinnedBy string
	}{
		{"psql -h pg-stage-7", true, "pg-stage-7"},
		{"nc -zv somehost 6543", true, "6543"},
		{"cat /home/ann/src/docs/staging-postgres-notes.md", true, "docs/staging-postgres-notes.md"},
		{"psql postgres://app@pg-stage-7:6543/app", true, "pg-stage-7"},
		{"cat package.json", false, "package.json"},
		{"git log -n 30", false, "30"},
		{"run it --verbose", false, "--verbose"},
	}
	for _, tc := range tests {
		hits, err := sc.ScoreDocs(context.Background(), Query{Text: tc.q}, docs)
		if err != nil {
			t.Fatal(err)
		}
		var pg *Hit
		for i := range hits {
			if hits[i].Doc.Path == "pg" {
				pg = &hits[i]
			}
		}
		if pg == nil || hits[0].Doc.Path != "pg" {
			t.Fatalf("%q: pg entry not ranked first: %+v", tc.q, hits)
		}
		if pg.PinnedBy != tc.pinnedBy {
			t.Errorf("%q: pinned by %q, want %q", tc.q, pg.PinnedBy, tc.pinnedBy)
		}
		if got := pg.Hybrid >= symbolBonus; got != tc.bonus {
			t.Errorf("%q: hybrid %.3f, symbol bonus applied = %v, want %v", tc.q, pg.Hybrid, got, tc.bonus)
		}
	}
}
