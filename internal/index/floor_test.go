package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// TestFloorBuiltApartFromSearches: Sync returns with the BM25 floor's
// index of a memory holding Chinese built; in a memory without any, the
// first Chinese question ranks without the floor and leaves the build to
// the background, which installs it without a sync.
func TestFloorBuiltApartFromSearches(t *testing.T) {
	ctx := context.Background()
	var english []rank.Doc
	for i := 0; i < 30; i++ {
		english = append(english, rank.Doc{Path: fmt.Sprintf("en/%02d/SKILL.md", i), Name: fmt.Sprintf("note %d", i),
			Body: fmt.Sprintf("staging deploy %d went fine; the cache warmed in %d minutes", i, i+2)})
	}
	chinese := append(english[:len(english):len(english)],
		rank.Doc{Path: "zh/db/SKILL.md", Name: "数据库慢查询", Body: "订单表的慢查询是因为缺少索引。"})

	ix := openWith(t, filepath.Join(t.TempDir(), "index.sqlite"), NewMemSource(chinese...), embed.Off())
	defer ix.Close()
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ix.c.PlainWanted() {
		t.Fatal("Sync returned without the floor's index of a memory holding Chinese")
	}

	en := openWith(t, filepath.Join(t.TempDir(), "index.sqlite"), NewMemSource(english...), embed.Off())
	defer en.Close()
	if _, err := en.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if en.c.PlainWanted() {
		t.Fatal("an English memory wants the floor's index before a Chinese question")
	}
	if _, err := en.Search(ctx, rank.Query{Text: "部署 缓存", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	en.bg.Wait() // the build the question asked for
	en.mu.RLock()
	defer en.mu.RUnlock()
	if en.c.PlainWanted() {
		t.Fatal("the floor's index a Chinese question asked for was not built in the background")
	}
}
