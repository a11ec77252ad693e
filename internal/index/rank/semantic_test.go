package rank

import (
	"context"
	"reflect"
	"runtime"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
)

// TestParallelScanRanksAsOneCore: from parallelScan entries on, a query's
// cosines are computed on every core; the hits are exactly those of the
// one-core scan.
func TestParallelScanRanksAsOneCore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a corpus past parallelScan")
	}
	emb := embed.Hash()
	c := NewCorpus(nil)
	docs := SyntheticDocs(parallelScan+500, 3)
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = EmbedText(d)
	}
	vecs, err := emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		e := NewEntry(d)
		e.SetVec(vecs[i], "")
		c.Put(e, nil)
	}
	sc := NewScorer(emb, nil)
	for _, q := range []string{"redis cache failover replica", "数据库 慢查询 索引", "db-node-420 port"} {
		qv, err := sc.EmbedQuery(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		prev := runtime.GOMAXPROCS(1)
		one := sc.Rank(c, Query{Text: q, Limit: 20}, qv, 1)
		runtime.GOMAXPROCS(max(prev, 2))
		all := sc.Rank(c, Query{Text: q, Limit: 20}, qv, 1)
		runtime.GOMAXPROCS(prev)
		if !reflect.DeepEqual(one, all) {
			t.Errorf("%q: every core ranks\n%v\none core\n%v", q, paths(all), paths(one))
		}
	}
}
