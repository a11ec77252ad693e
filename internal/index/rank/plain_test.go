package rank

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
)

// plainDocs is a small mixed memory: Chinese notes about a database and a
// rollout, English filler.
func plainDocs() []Doc {
	docs := []Doc{
		{Path: "zh/db", Name: "数据库慢查询", Body: "订单表的慢查询是因为缺少索引，加了复合索引以后好了。"},
		{Path: "zh/rollout", Name: "灰度发布", Body: "灰度发布出问题时先回滚，再看监控。"},
		{Path: "zh/index", Name: "索引", Body: "索引重建要在夜里做，白天会锁表。数据库的索引要定期检查。"},
	}
	for i := 0; i < 20; i++ {
		docs = append(docs, Doc{Path: fmt.Sprintf("en/%02d", i), Name: fmt.Sprintf("note %d", i),
			Body: fmt.Sprintf("staging deploy %d went fine; the cache warmed in %d minutes", i, i+2)})
	}
	return docs
}

func paths(hits []Hit) []string {
	var ps []string
	for _, h := range hits {
		ps = append(ps, h.Doc.Path)
	}
	return ps
}

// TestIndexCorpusNeverBuildsTheFloorOnASearch: the index's corpus wants
// the floor's index as soon as it holds CJK text, a search does not build
// it (it ranks without the floor meanwhile), and once SetPlain installs
// one built apart the ranking equals a throwaway corpus's, which builds
// its own on first use.
func TestIndexCorpusNeverBuildsTheFloorOnASearch(t *testing.T) {
	sc := NewScorer(embed.Off(), nil)
	c := NewCorpus(nil)
	for _, d := range plainDocs()[3:] {
		c.Put(NewEntry(d), nil)
	}
	if c.PlainWanted() {
		t.Fatal("an English-only corpus wants the floor's index before anyone asked in Chinese")
	}
	for _, d := range plainDocs()[:3] {
		c.Put(NewEntry(d), nil)
	}
	if !c.PlainWanted() {
		t.Fatal("a corpus holding Chinese does not want the floor's index")
	}
	q := Query{Text: "数据库 慢查询 索引", Limit: 5}
	sc.Rank(c, q, nil, 0)
	if c.plain != nil {
		t.Fatal("a search built the index's floor")
	}
	entries, changes := c.Entries()
	x, err := BuildPlain(context.Background(), entries)
	if err != nil {
		t.Fatal(err)
	}
	if !c.SetPlain(x, changes) || c.PlainWanted() {
		t.Fatal("SetPlain did not install the floor's index")
	}
	for _, text := range []string{"数据库 慢查询 索引", "灰度发布 回滚", "索引"} {
		q := Query{Text: text, Limit: 5}
		want, err := sc.ScoreDocs(context.Background(), q, plainDocs())
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Rank(c, q, nil, 0); !slices.Equal(paths(got), paths(want)) {
			t.Errorf("%s: index corpus %v, throwaway corpus %v", text, paths(got), paths(want))
		}
	}
}

// TestEnglishCorpusAskedInChineseWantsTheFloor: a memory with no CJK text
// wants the floor's index only once a Chinese question found it missing.
func TestEnglishCorpusAskedInChineseWantsTheFloor(t *testing.T) {
	sc := NewScorer(embed.Off(), nil)
	c := NewCorpus(nil)
	for _, d := range plainDocs()[3:] {
		c.Put(NewEntry(d), nil)
	}
	sc.Rank(c, Query{Text: "staging deploy", Limit: 5}, nil, 0)
	if c.PlainWanted() {
		t.Fatal("an English question made the corpus want the floor's index")
	}
	sc.Rank(c, Query{Text: "部署 缓存", Limit: 5}, nil, 0)
	if !c.PlainWanted() {
		t.Fatal("a Chinese question did not make the corpus want the floor's index")
	}
}

// TestSetPlainRefusesAStaleBuild: an entry put or removed between the copy
// and the install makes the build stale; once installed, Put and Remove
// keep the floor's index in step.
func TestSetPlainRefusesAStaleBuild(t *testing.T) {
	c := NewCorpus(nil)
	for _, d := range plainDocs() {
		c.Put(NewEntry(d), nil)
	}
	entries, changes := c.Entries()
	x, _ := BuildPlain(context.Background(), entries)
	c.Put(NewEntry(Doc{Path: "zh/new", Name: "新的", Body: "回滚脚本放在运维仓库里。"}), nil)
	if c.SetPlain(x, changes) {
		t.Fatal("SetPlain installed an index built before the last Put")
	}
	entries, changes = c.Entries()
	x, _ = BuildPlain(context.Background(), entries)
	if !c.SetPlain(x, changes) {
		t.Fatal("SetPlain refused a current build")
	}
	c.Remove("zh/rollout")
	c.Put(NewEntry(Doc{Path: "zh/later", Name: "监控", Body: "监控面板的回滚按钮。"}), nil)
	var got []string
	for _, h := range c.plain.Search("回滚", 10, func(int32) bool { return true }) {
		got = append(got, c.slots[h.Doc].Doc.Path)
	}
	slices.Sort(got)
	if want := []string{"zh/later", "zh/new"}; !slices.Equal(got, want) {
		t.Errorf("floor's index after Put and Remove finds %v, want %v", got, want)
	}
}
