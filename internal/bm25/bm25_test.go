package bm25

import (
	"reflect"
	"slices"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Redis maxmemory-policy volatile-lru", []string{"redis", "maxmemory", "policy", "volatile", "lru"}},
		{"port 6543!", []string{"port", "6543"}},
		{"用户喜欢喝乌龙茶", []string{"用户", "户喜", "喜欢", "欢喝", "喝乌", "乌龙", "龙茶"}},
		{"喝 tea 茶", []string{"喝", "tea", "茶"}},
		{"Running runs", []string{"running", "runs"}}, // no stems
		{"", nil},
	}
	for _, tc := range tests {
		if got := Tokens(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func docsOf(res []Scored) []int32 {
	var out []int32
	for _, s := range res {
		out = append(out, s.Doc)
	}
	return out
}

// A rare term outweighs a common one, a match in a short document
// outranks the same match in a long one, documents with no query term are
// left out, keep filters, and a removed document is gone from the scores
// and the statistics alike.
func TestSearch(t *testing.T) {
	x := New()
	texts := []string{
		0: "cache\nredis cache notes with many other words about nothing in particular at all",
		1: "cache\nredis cache",
		2: "sentinel\ncache sentinel quorum",
		3: "tea\noolong",
	}
	for i, s := range texts {
		x.Add(int32(i), s)
	}
	odd := func(d int32) bool { return d%2 == 1 }
	for _, tc := range []struct {
		q    string
		keep func(int32) bool
		k    int
		want []int32
	}{
		{"redis", nil, 10, []int32{1, 0}},
		{"cache sentinel", nil, 10, []int32{2, 1, 0}},
		{"cache sentinel", nil, 1, []int32{2}},
		{"cache sentinel", odd, 10, []int32{1}},
		{"banana", nil, 10, nil},
		{"乌龙", nil, 10, nil},
	} {
		if got := docsOf(x.Search(tc.q, tc.k, tc.keep)); !slices.Equal(got, tc.want) {
			t.Errorf("Search(%q, %d) = %v, want %v", tc.q, tc.k, got, tc.want)
		}
	}
	before := x.Search("sentinel", 1, nil)[0].Score
	x.Remove(0, texts[0])
	x.Remove(0, texts[0]) // twice: a no-op
	if x.Len() != 3 {
		t.Fatalf("Len = %d after removing one of 4", x.Len())
	}
	if got := docsOf(x.Search("redis", 10, nil)); !slices.Equal(got, []int32{1}) {
		t.Errorf("after Remove: redis = %v, want [1]", got)
	}
	if after := x.Search("sentinel", 1, nil)[0].Score; after == before {
		t.Errorf("the statistics did not change with the pool: %v", after)
	}
	x.Add(0, "用户喜欢喝乌龙茶") // the id is reused
	if got := docsOf(x.Search("乌龙茶", 10, nil)); !slices.Equal(got, []int32{0}) {
		t.Errorf("reused id: 乌龙茶 = %v, want [0]", got)
	}
}

// The scores are Okapi BM25's: one document, one term, tf 1, length at
// the average: idf · (k1+1) / (1 + k1) = idf.
func TestScoreIsOkapi(t *testing.T) {
	x := New()
	x.Add(0, "alpha beta")
	x.Add(1, "gamma delta")
	got := x.Search("alpha", 1, nil)[0].Score
	want := 0.6931471805599453 // ln(1 + (2-1+0.5)/(1+0.5))
	if d := got - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("score = %v, want %v", got, want)
	}
}

// TestRestoreIndexSearchesAlike: an Index put back from Each and Lens
// ranks every query as the one it was read from, after removals too.
func TestRestoreIndexSearchesAlike(t *testing.T) {
	x := New()
	texts := []string{"数据库 慢查询 索引", "灰度发布 回滚", "the staging cache warmed", "索引重建 夜里", "cache 数据库"}
	for i, s := range texts {
		x.Add(int32(i), s)
	}
	x.Remove(1, texts[1])
	post := map[string][]Count{}
	x.Each(func(term string, list []Count) { post[term] = append([]Count(nil), list...) })
	y := RestoreIndex(post, append([]int32(nil), x.Lens()...))
	if y.Len() != x.Len() {
		t.Fatalf("restored %d documents, want %d", y.Len(), x.Len())
	}
	for _, q := range []string{"数据库 索引", "回滚", "cache", "夜里 重建"} {
		if got, want := y.Search(q, 5, nil), x.Search(q, 5, nil); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: restored %v, want %v", q, got, want)
		}
	}
}
