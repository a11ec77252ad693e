package index

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 10, 0, 0, 0, time.UTC) }

// searchIndex opens an index over docs with emb and a clock at now, and
// returns the paths one query ranks, best first.
func searchIndex(t *testing.T, emb embed.Embedder, now time.Time, docs []rank.Doc) func(q string) []string {
	t.Helper()
	search := searchIndexHits(t, emb, now, docs)
	return func(q string) []string {
		var out []string
		for _, h := range search(q) {
			out = append(out, h.Doc.Path)
		}
		return out
	}
}

// searchIndexHits is searchIndex returning the hits.
func searchIndexHits(t *testing.T, emb embed.Embedder, now time.Time, docs []rank.Doc) func(q string) []rank.Hit {
	t.Helper()
	ctx := context.Background()
	ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "index.sqlite"), Source: NewMemSource(docs...),
		Embedder: emb, Logger: quietLogger(), ScanInterval: -1, LinkSpread: -1, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	syncEmbedded(t, ix)
	return func(q string) []rank.Hit {
		hits, err := ix.Search(ctx, rank.Query{Text: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
}

func rankOf(paths []string, p string) int {
	for i, x := range paths {
		if x == p {
			return i
		}
	}
	return -1
}

// TestBoundedQueries: a query that limits itself to a stretch of time
// ("before March 2026", "只看 2026 年 3 月以前") ranks the entries inside it
// above the ones placed outside, which stay findable: a bound weighs, it
// does not remove.
func TestBoundedQueries(t *testing.T) {
	// names say nothing of time: a name's "2026" would be keyword evidence
	docs := []rank.Doc{
		{Path: "move-hz", Kind: rank.KindEpisode, Name: "move-hz", Body: "我们搬家到了杭州。We moved house to Hangzhou.", When: day(2025, 1, 10)},
		{Path: "move-sh", Kind: rank.KindEpisode, Name: "move-sh", Body: "我们搬家到了上海。We moved house to Shanghai.", When: day(2026, 2, 20)},
		{Path: "move-bj", Kind: rank.KindEpisode, Name: "move-bj", Body: "三月我们搬家到了北京。In March we moved house to Beijing.", When: day(2026, 3, 15)},
		{Path: "move-sz", Kind: rank.KindEpisode, Name: "move-sz", Body: "我们搬家到了深圳。We moved house to Shenzhen.", When: day(2026, 5, 2)},
		{Path: "moving-tips", Kind: rank.KindKnowledge, Name: "moving-tips", Body: "我们搬家前先订好车。Book the van before you move house."},
	}
	for _, emb := range []embed.Embedder{embed.Off(), embed.Hash()} {
		search := searchIndex(t, emb, day(2026, 12, 4), docs)
		for _, tc := range []struct {
			q             string
			inside, after []string // every inside entry ranks above every after one
		}{
			{"只看 2026 年 3 月以前，我们搬过几次家？", []string{"move-hz", "move-sh"}, []string{"move-bj", "move-sz"}},
			{"where did we move house before March 2026?", []string{"move-hz", "move-sh"}, []string{"move-bj", "move-sz"}},
			{"where did we move house after March 2026?", []string{"move-sz"}, []string{"move-hz", "move-sh", "move-bj"}},
			{"2026年以来搬家", []string{"move-sh", "move-bj", "move-sz"}, []string{"move-hz"}},
			// a question about a month lifts that month and bounds nothing
			{"where did we move house in March 2026?", []string{"move-bj"}, []string{"move-hz", "move-sh", "move-sz"}},
		} {
			got := search(tc.q)
			for _, in := range tc.inside {
				for _, out := range tc.after {
					ri, ro := rankOf(got, in), rankOf(got, out)
					if ri < 0 || ro < 0 || ri > ro {
						t.Errorf("%s %q: want %s (rank %d) above %s (rank %d), both found; got %v", emb.ID(), tc.q, in, ri, out, ro, got)
					}
				}
			}
		}
	}
}

// TestDatesDoNotSwampTheAnswer: the numbers a question's date is written
// with ("2025", "10" of 2025年5月10日) are date evidence, not exact symbols
// or words, and naming the whole year is not being about the day: in a
// pool of records holding full dates, the year or the day number, the
// record of that day the question's words name comes first. And a
// question bounded to a period whose answer came after it still finds it.
func TestDatesDoNotSwampTheAnswer(t *testing.T) {
	docs := []rank.Doc{
		// the answers
		{Path: "golf-mail", Kind: rank.KindEpisode, Name: "golf-mail", Body: "打完高尔夫，给客户林志豪发了邮件，附上高尔夫球场投资的行业报告。", When: day(2025, 5, 10)},
		{Path: "golf-mail-en", Kind: rank.KindEpisode, Name: "golf-mail-en", Body: "After the golf, emailed my client Lin the industry report on golf course investments.", When: day(2025, 5, 10)},
		{Path: "deposit-back", Kind: rank.KindEpisode, Name: "deposit-back", Body: "快运搬家公司退还了押金。Swiftvan refunded the moving deposit.", When: day(2026, 4, 2)},
		// records naming the year, the day, other days, the day number
		{Path: "goals", Kind: rank.KindEpisode, Name: "goals", Body: "2025年度目标：跑步1000公里，读书24本。2025 goals: run 1000 km, read 24 books.", When: day(2025, 1, 1)},
		{Path: "checkup", Kind: rank.KindEpisode, Name: "checkup", Body: "日历：2025年5月10日上午体检，10点到医院。Calendar: May 10, 2025 checkup at 10.", When: day(2025, 5, 2)},
		{Path: "plan", Kind: rank.KindEpisode, Name: "plan", Body: "2025年5月复习计划：2025年5月3日模考，2025年5月17日错题整理。May 2025 study plan: mock exam May 3, review May 17.", When: day(2025, 5, 1)},
		{Path: "weather", Kind: rank.KindEpisode, Name: "weather", Body: "天气预报：2025年5月11日晴，适宜户外活动。Forecast for May 11, 2025: sunny.", When: day(2025, 5, 10)},
		{Path: "run", Kind: rank.KindEpisode, Name: "run", Body: "晨跑10公里，配速5分10秒。Morning run 10 km.", When: day(2025, 5, 12)},
		{Path: "signed", Kind: rank.KindEpisode, Name: "signed", Body: "和快运搬家公司签了合同。Signed the contract with the Swiftvan moving company.", When: day(2026, 2, 10)},
		{Path: "quotes", Kind: rank.KindEpisode, Name: "quotes", Body: "比较了三家搬家公司的报价。Compared quotes from three moving companies.", When: day(2026, 1, 20)},
		{Path: "boxes", Kind: rank.KindEpisode, Name: "boxes", Body: "买了搬家用的纸箱。Bought boxes for the move.", When: day(2026, 2, 25)},
		{Path: "gateway-a", Kind: rank.KindEpisode, Name: "gateway-a", Body: "Gateway listens on port 8443.", When: day(2024, 5, 2)},
		{Path: "gateway-b", Kind: rank.KindKnowledge, Name: "gateway-b", Body: "The storage gateway listens on port 2024."},
	}
	for _, emb := range []embed.Embedder{embed.Off(), embed.Hash()} {
		search := searchIndex(t, emb, day(2026, 6, 30), docs)
		// want: the evidence, all of it ranked ahead of everything else
		for _, tc := range []struct {
			q    string
			want []string
		}{
			{"2025年5月10日和林志豪打完高尔夫，我发了什么材料给他？", []string{"golf-mail"}},
			{"After the golf with Lin on May 10, 2025, what material did I email him?", []string{"golf-mail-en"}},
			// the evidence lies on both sides of the bound
			{"2026年3月以前签的快运搬家公司，后来退押金了吗？", []string{"signed", "deposit-back"}},
			{"Before March 2026 we signed with Swiftvan; did they refund the deposit afterwards?", []string{"signed", "deposit-back"}},
			// a bare number the dates read as a year may be a port: it still pins
			{"which gateway listens on port 2024", []string{"gateway-b"}},
		} {
			got := search(tc.q)
			for _, w := range tc.want {
				if r := rankOf(got, w); r < 0 || r >= len(tc.want) {
					t.Errorf("%s %q: want %s in the top %d, got %v", emb.ID(), tc.q, w, len(tc.want), got)
				}
			}
		}
	}
}
