package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// countingEmbedder wraps an embedder and counts embedded texts.
type countingEmbedder struct {
	embed.Embedder
	texts atomic.Int64
	id    string
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

func (c *countingEmbedder) ID() string {
	if c.id != "" {
		return c.id
	}
	return c.Embedder.ID()
}

func (c *countingEmbedder) Calibration() embed.Calibration { return embed.CalibrationOf(c.Embedder) }

func openDir(t *testing.T, root string, emb embed.Embedder) (*Index, string) {
	t.Helper()
	dbPath := filepath.Join(t.TempDir(), "index.sqlite")
	ix, err := Open(context.Background(), Options{Path: dbPath, Source: dirSource{root}, Embedder: emb, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	syncEmbedded(t, ix)
	return ix, dbPath
}

// syncEmbedded syncs ix and waits for the background embedder, as the
// tests written against a synchronous sync expect; an embedder that
// fails (some tests use one) leaves its entries keyword-only.
func syncEmbedded(tb testing.TB, ix *Index) SyncStats {
	tb.Helper()
	st, err := ix.Sync(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if err := ix.WaitEmbedded(context.Background()); err != nil && !errors.Is(err, ErrEmbedBackoff) {
		tb.Fatal(err)
	}
	return st
}

func names(hits []rank.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Doc.Name
	}
	return out
}

func mustWrite(t *testing.T, root, kind, name, desc, body string, extra ...string) string {
	t.Helper()
	p, err := writeNote(root, kind, name, desc, body, extra...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func seedNotes(t *testing.T, root string) {
	mustWrite(t, root, "knowledge", "redis-eviction", "Redis eviction policy for the session cache",
		"Set maxmemory-policy allkeys-lru on the session cache; volatile-lru evicted nothing because keys had no TTL.", "type: pitfall")
	mustWrite(t, root, "knowledge", "billing-db", "Billing database failover runbook",
		"Primary is db-billing-02 since March; replica lag alarms at 30s. Failover with patroni switchover.", "type: fact", "related: pg-tuning")
	mustWrite(t, root, "knowledge", "pg-tuning", "Postgres tuning notes",
		"shared_buffers 25% of RAM, work_mem 64MB for reporting queries.", "type: fact")
	mustWrite(t, root, "knowledge", "billing-dashboards", "Billing database dashboards in Grafana",
		"Grafana board for the billing database: connections, replication, slow queries.", "type: fact")
	mustWrite(t, root, "knowledge", "部署流程", "生产环境部署流程和回滚步骤",
		"先在预发环境验证，然后灰度发布百分之十，观察错误率，再全量。回滚用上一个镜像标签。", "type: experience")
	mustWrite(t, root, "knowledge", "咖啡偏好", "用户喜欢的咖啡",
		"用户早上喝美式，不加糖，下午不喝咖啡。", "type: preference")
	mustWrite(t, root, "skills", "feature-flags", "Feature flag service setup",
		"The unleash client reads UNLEASH_TOKEN from the environment; tokens rotate monthly.", "type: skill")
}

func TestSearch(t *testing.T) {
	root := t.TempDir()
	seedNotes(t, root)
	for _, emb := range []embed.Embedder{embed.Off(), embed.Hash()} {
		ix, _ := openDir(t, root, emb)
		tests := []struct {
			query string
			q     rank.Query
			first string
		}{
			{query: "redis eviction policy", first: "redis-eviction"},
			{query: "db-billing-02 replica", first: "billing-db"},
			{query: "allkeys-lru", first: "redis-eviction"},
			{query: "UNLEASH_TOKEN", first: "feature-flags"},
			{query: "怎么回滚生产部署", first: "部署流程"},
			{query: "用户喝什么咖啡", first: "咖啡偏好"},
			// Traditional Chinese finds a Simplified note (textseg.FoldHan)
			{query: "預發環境驗證", first: "部署流程"},
			{query: "用戶喝什麼咖啡", first: "咖啡偏好"},
			// full-width Latin letters, as an input method types them
			{query: "Ｐｏｓｔｇｒｅｓ ｔｕｎｉｎｇ", first: "pg-tuning"},
			{query: "Postgres shared_buffers", first: "pg-tuning"},
			{query: "billing dashboards", q: rank.Query{EntryType: "fact", Kinds: []string{"knowledge"}}, first: "billing-dashboards"},
			{query: "token rotation unleash", q: rank.Query{Kinds: []string{"skills"}}, first: "feature-flags"},
			{query: "redis eviction", q: rank.Query{EntryType: "fact"}, first: ""},
			{query: "redis eviction", q: rank.Query{Kinds: []string{"skills"}}, first: ""},
		}
		for _, tc := range tests {
			t.Run(emb.ID()+"/"+tc.query, func(t *testing.T) {
				q := tc.q
				q.Text = tc.query
				hits, err := ix.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				if tc.first == "" {
					if len(hits) != 0 {
						t.Fatalf("filtered query returned %q", names(hits))
					}
					return
				}
				if len(hits) == 0 || hits[0].Doc.Name != tc.first {
					t.Fatalf("top = %q, want %s first", names(hits), tc.first)
				}
				for _, h := range hits {
					if q.EntryType != "" && h.Doc.Type != q.EntryType {
						t.Errorf("filter leak: %s has type %s", h.Doc.Name, h.Doc.Type)
					}
				}
			})
		}
	}
}

func TestPinningBeatsFuzzyMatch(t *testing.T) {
	root := t.TempDir()
	seedNotes(t, root)
	ix, _ := openDir(t, root, embed.Hash())
	// "billing database dashboards" matches billing-dashboards by wording,
	// but db-billing-02 occurs verbatim only in billing-db: it must lead.
	hits, err := ix.Search(context.Background(), rank.Query{Text: "billing database dashboards db-billing-02"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) < 2 || hits[0].Doc.Name != "billing-db" || !hits[0].Pinned || hits[0].PinnedBy != "db-billing-02" {
		t.Fatalf("want pinned billing-db first, got %q (pinned=%v)", names(hits), len(hits) > 0 && hits[0].Pinned)
	}
	if hits[1].Hybrid <= hits[0].Hybrid {
		t.Logf("pinned entry leads despite lower hybrid %.3f < %.3f, as intended", hits[0].Hybrid, hits[1].Hybrid)
	}
	for _, tc := range []struct{ query, sym, want string }{
		{"cache notes allkeys-lru", "allkeys-lru", "redis-eviction"},     // stemmed part "allkey"
		{"deploy UNLEASH_TOKEN flags", "UNLEASH_TOKEN", "feature-flags"}, // underscore identifier
		{"dashboards 30s", "30s", "billing-db"},                          // number+unit
		{"grafana work_mem", "work_mem", "pg-tuning"},
	} {
		hits, _ := ix.Search(context.Background(), rank.Query{Text: tc.query})
		if len(hits) == 0 || hits[0].Doc.Name != tc.want || hits[0].PinnedBy != tc.sym {
			t.Errorf("%q: want %s pinned by %s first, got %q", tc.query, tc.want, tc.sym, names(hits))
		}
	}
	// a symbol that is only a prefix of a longer one must not pin
	hits, _ = ix.Search(context.Background(), rank.Query{Text: "db-billing-0"})
	for _, h := range hits {
		if h.Pinned {
			t.Errorf("db-billing-0 pinned %s", h.Doc.Name)
		}
	}
}

// countingSource counts scans of a dirSource.
type countingSource struct {
	dirSource
	scans atomic.Int64
}

func (c *countingSource) Scan(ctx context.Context) ([]FileRef, error) {
	c.scans.Add(1)
	return c.dirSource.Scan(ctx)
}

// eventually retries a search until check passes: the watcher hears of a
// write asynchronously, a person editing a file never notices the delay.
func eventually(t *testing.T, ix *Index, q string, check func([]rank.Hit) bool) []rank.Hit {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		hits, err := ix.Search(context.Background(), rank.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if check(hits) || time.Now().After(deadline) {
			return hits
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHandEditDeleteAndNewFileWithoutRestart(t *testing.T) {
	for _, mode := range []string{"scan-every-search", "watched"} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			seedNotes(t, root)
			src := &countingSource{dirSource: dirSource{root}}
			opts := Options{Path: filepath.Join(t.TempDir(), "index.sqlite"), Source: src, Embedder: embed.Hash(), Logger: quietLogger()}
			if mode == "watched" {
				opts.WatchDirs = []string{root}
			}
			ix, err := Open(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if mode == "watched" && !ix.Watching() {
				t.Fatal("watcher did not start")
			}
			top := func(name string) func([]rank.Hit) bool {
				return func(h []rank.Hit) bool { return len(h) > 0 && h[0].Doc.Name == name }
			}
			// hand edit: new wording becomes findable, no Sync call, no restart
			p := filepath.Join(root, "knowledge", "pg-tuning", "SKILL.md")
			if err := os.WriteFile(p, []byte("---\nname: pg-tuning\ndescription: Postgres tuning notes\n---\n\nautovacuum_naptime 10s fixed the zanzibar bloat\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if hits := eventually(t, ix, "zanzibar bloat", top("pg-tuning")); !top("pg-tuning")(hits) {
				t.Fatalf("hand edit not found: %q", names(hits))
			}
			// new file in a new directory
			mustWrite(t, root, "knowledge", "kafka-lag", "Kafka consumer lag", "consumer group payments lags after rebalance storms")
			if hits := eventually(t, ix, "kafka rebalance", top("kafka-lag")); !top("kafka-lag")(hits) {
				t.Fatalf("new file not found: %q", names(hits))
			}
			// a file edited inside that new directory (watch added on the fly)
			mustWrite(t, root, "knowledge", "kafka-lag", "Kafka consumer lag", "fixed by static membership quasar")
			if hits := eventually(t, ix, "quasar", top("kafka-lag")); !top("kafka-lag")(hits) {
				t.Fatalf("edit in new dir not found: %q", names(hits))
			}
			// delete
			if err := os.RemoveAll(filepath.Join(root, "knowledge", "redis-eviction")); err != nil {
				t.Fatal(err)
			}
			gone := func(h []rank.Hit) bool {
				for _, x := range h {
					if x.Doc.Name == "redis-eviction" {
						return false
					}
				}
				return true
			}
			if hits := eventually(t, ix, "redis eviction allkeys-lru", gone); !gone(hits) {
				t.Fatalf("deleted entry still returned: %q", names(hits))
			}
			// quiet period: with a watcher, searches stop scanning
			if mode == "watched" {
				time.Sleep(50 * time.Millisecond)
				ix.Search(context.Background(), rank.Query{Text: "settle"})
				before := src.scans.Load()
				for range 5 {
					ix.Search(context.Background(), rank.Query{Text: "redis"})
				}
				if n := src.scans.Load() - before; n != 0 {
					t.Errorf("watched index scanned %d times without changes", n)
				}
			}
		})
	}
}

func TestIncrementalSyncEmbedsOnlyChangedText(t *testing.T) {
	ctx := context.Background()
	src := NewMemSource()
	for i := range 50 {
		src.Put(rank.Doc{Path: fmt.Sprintf("k/%d", i), Kind: rank.KindKnowledge, Name: fmt.Sprintf("note-%d", i),
			Description: "about topic " + fmt.Sprint(i), Body: "body text", Score: 0.5})
	}
	emb := &countingEmbedder{Embedder: embed.Hash()}
	dbPath := filepath.Join(t.TempDir(), "index.sqlite")
	ix, err := Open(ctx, Options{Path: dbPath, Source: src, Embedder: emb, Logger: quietLogger(), ScanInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	steps := []struct {
		name       string
		change     func()
		wantEmbeds int64
		wantLoaded int
	}{
		{"initial full sync", func() {}, 50, 50},
		{"nothing changed", func() {}, 0, 0},
		{"score decay only", func() {
			src.Put(rank.Doc{Path: "k/3", Kind: rank.KindKnowledge, Name: "note-3", Description: "about topic 3", Body: "body text", Score: 0.31})
		}, 0, 1},
		{"description edit", func() {
			src.Put(rank.Doc{Path: "k/4", Kind: rank.KindKnowledge, Name: "note-4", Description: "now about kafka", Body: "body text", Score: 0.5})
		}, 1, 1},
		{"delete", func() { src.Delete("k/5") }, 0, 0},
	}
	for _, st := range steps {
		before := emb.texts.Load()
		st.change()
		stats := syncEmbedded(t, ix)
		if got := emb.texts.Load() - before; got != st.wantEmbeds || stats.Loaded != st.wantLoaded {
			t.Errorf("%s: embedded %d loaded %d, want %d and %d", st.name, got, stats.Loaded, st.wantEmbeds, st.wantLoaded)
		}
	}
	if n := ix.Status().Entries; n != 49 {
		t.Errorf("entries = %d, want 49", n)
	}
	// score change must be visible (row rewritten) though not re-embedded
	hits, _ := ix.Search(ctx, rank.Query{Text: "note-3"})
	if len(hits) == 0 || hits[0].Doc.Score != 0.31 {
		t.Errorf("score update lost: %+v", hits)
	}
	ix.Close()

	// reopen: nothing to embed; a different embedder ID re-embeds everything
	for _, tc := range []struct {
		id   string
		want int64
	}{{"", 0}, {"hash-v2-test", 49}} {
		emb2 := &countingEmbedder{Embedder: embed.Hash(), id: tc.id}
		ix2, err := Open(ctx, Options{Path: dbPath, Source: src, Embedder: emb2, Logger: quietLogger(), ScanInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		syncEmbedded(t, ix2)
		if got := emb2.texts.Load(); got != tc.want {
			t.Errorf("reopen with id %q embedded %d, want %d", tc.id, got, tc.want)
		}
		if !ix2.Status().SemanticReady {
			t.Errorf("reopen with id %q: semantic layer not ready", tc.id)
		}
		ix2.Close()
	}
}

func TestIndexFileDeletedIsRebuilt(t *testing.T) {
	root := t.TempDir()
	seedNotes(t, root)
	ix, dbPath := openDir(t, root, embed.Hash())
	ctx := context.Background()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(dbPath + suffix)
	}
	stats, err := ix.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !stats.Rebuilt {
		t.Fatal("deleted index file not noticed")
	}
	if _, err := os.Stat(dbPath); err != nil {
		t.Fatalf("index file not recreated: %v", err)
	}
	ix.Close()
	// a fresh Open of the recreated file has every entry without any load
	ix2, err := Open(ctx, Options{Path: dbPath, Source: dirSource{root}, Embedder: embed.Hash(), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if got := ix2.Status().Entries; got != 7 {
		t.Fatalf("rebuilt file holds %d entries, want 7", got)
	}
	st, _ := ix2.Sync(ctx)
	if st.Loaded != 0 || st.Queued != 0 {
		t.Errorf("rebuilt file was incomplete: loaded %d queued %d", st.Loaded, st.Queued)
	}
	// garbage in place of the file: replaced, not fatal
	ix2.Close()
	if err := os.WriteFile(dbPath, []byte("not a database at all, just text that is long enough"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(dbPath + "-wal")
	os.Remove(dbPath + "-shm")
	ix3, err := Open(ctx, Options{Path: dbPath, Source: dirSource{root}, Embedder: embed.Hash(), Logger: quietLogger()})
	if err != nil {
		t.Fatalf("corrupt index file not replaced: %v", err)
	}
	defer ix3.Close()
	if _, err := ix3.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ix3.Status().Entries; got != 7 {
		t.Fatalf("entries after corrupt rebuild = %d", got)
	}
}

func TestLinkSpreadingAndOrphans(t *testing.T) {
	root := t.TempDir()
	seedNotes(t, root)
	mustWrite(t, root, "knowledge", "orphaned", "links nowhere", "text", "related: no-such-entry")
	ix, _ := openDir(t, root, embed.Off())
	ctx := context.Background()
	// billing-db relates pg-tuning; a query only billing-db matches pulls pg-tuning in
	hits, _ := ix.Search(ctx, rank.Query{Text: "patroni switchover"})
	var spread *rank.Hit
	for i := range hits {
		if hits[i].Doc.Name == "pg-tuning" {
			spread = &hits[i]
		}
	}
	if len(hits) == 0 || hits[0].Doc.Name != "billing-db" || spread == nil || spread.SpreadFrom != "billing-db" {
		t.Fatalf("spreading: %q", names(hits))
	}
	if want := hits[0].Hybrid * 0.6; spread.Hybrid != want {
		t.Errorf("spread score %.3f, want seed×0.6 = %.3f", spread.Hybrid, want)
	}
	// reverse direction: pg-tuning's hit pulls billing-db (it names pg-tuning)
	hits, _ = ix.Search(ctx, rank.Query{Text: "shared_buffers work_mem"})
	found := false
	for _, h := range hits {
		found = found || h.Doc.Name == "billing-db" && h.SpreadFrom == "pg-tuning"
	}
	if !found {
		t.Errorf("reverse link not spread: %q", names(hits))
	}
	orphans, err := ix.Links(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(orphans) != 1 || orphans[0].Target != "no-such-entry" {
		t.Errorf("orphans = %+v", orphans)
	}
	all, _ := ix.Links(ctx, false)
	if len(all) != 2 {
		t.Errorf("links = %+v", all)
	}
}

func TestScoreDocsMatchesIndex(t *testing.T) {
	root := t.TempDir()
	seedNotes(t, root)
	ix, _ := openDir(t, root, embed.Hash())
	ctx := context.Background()
	refs, _ := dirSource{root}.Scan(ctx)
	var docs []rank.Doc
	for _, r := range refs {
		d, err := dirSource{root}.Load(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	for _, q := range []string{"billing database", "怎么回滚", "redis allkeys-lru", "coffee"} {
		a, _ := ix.Search(ctx, rank.Query{Text: q, NoSpread: true})
		b, err := ix.Scorer().ScoreDocs(ctx, rank.Query{Text: q, NoSpread: true}, docs)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(names(a)) != fmt.Sprint(names(b)) {
			t.Errorf("%q: index %q vs ScoreDocs %q", q, names(a), names(b))
		}
		for i := range a {
			if i < len(b) && abs(a[i].Hybrid-b[i].Hybrid) > 1e-6 {
				t.Errorf("%q: %s hybrid %.4f vs %.4f", q, a[i].Doc.Name, a[i].Hybrid, b[i].Hybrid)
			}
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestKeywordNormalisation(t *testing.T) {
	src := []rank.Doc{
		{Path: "a", Name: "redis", Description: "cache", Body: "redis redis redis"},
		{Path: "b", Name: "kafka", Description: "queue", Body: "brokers"},
		{Path: "c", Name: "nginx", Description: "proxy", Body: "upstream timeouts"},
	}
	sc := rank.NewScorer(embed.Off(), nil)
	hits, _ := sc.ScoreDocs(context.Background(), rank.Query{Text: "redis cluster failover procedure"}, src)
	if len(hits) != 1 || hits[0].Keyword >= 0.5 {
		t.Fatalf("one shared word scored %v", hits)
	}
	hits, _ = sc.ScoreDocs(context.Background(), rank.Query{Text: "redis"}, src)
	if len(hits) != 1 || hits[0].Keyword >= 1 || hits[0].Keyword <= 0 {
		t.Fatalf("keyword out of (0,1): %v", hits)
	}
}

func TestConcurrentSearchAndSync(t *testing.T) {
	ctx := context.Background()
	src := NewMemSource()
	for i := range 200 {
		src.Put(rank.Doc{Path: fmt.Sprintf("k/%d", i), Kind: rank.KindKnowledge, Name: fmt.Sprintf("n%d", i), Description: "redis cache note", Body: "body"})
	}
	ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "i.sqlite"), Source: src, Embedder: embed.Hash(), Logger: quietLogger(), ScanInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if w == 0 {
					src.Put(rank.Doc{Path: fmt.Sprintf("k/%d", i), Kind: rank.KindKnowledge, Name: fmt.Sprintf("n%d", i), Description: "kafka note " + fmt.Sprint(i)})
					if _, err := ix.Sync(ctx); err != nil {
						t.Error(err)
					}
					continue
				}
				if _, err := ix.Search(ctx, rank.Query{Text: "redis cache kafka"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	hits, _ := ix.Search(ctx, rank.Query{Text: "kafka note 49", Limit: 50})
	if len(hits) == 0 || !strings.HasPrefix(hits[0].Doc.Description, "kafka note 49") {
		t.Errorf("last write not visible: %q", names(hits))
	}
}

func TestLoadFailureSkippedUntilChanged(t *testing.T) {
	root := t.TempDir()
	seedNotes(t, root)
	bad := filepath.Join(root, "knowledge", "broken", "SKILL.md")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("no front matter"), 0o644)
	ix, _ := openDir(t, root, embed.Off())
	st, _ := ix.Sync(context.Background())
	if st.Failed != 0 || st.Loaded != 0 {
		t.Errorf("broken file retried without change: %+v", st)
	}
	os.WriteFile(bad, []byte("---\nname: broken\ndescription: fixed now quokka\n---\nbody\n"), 0o644)
	hits, _ := ix.Search(context.Background(), rank.Query{Text: "quokka"})
	if len(hits) != 1 || hits[0].Doc.Name != "broken" {
		t.Errorf("fixed file not indexed: %q", names(hits))
	}
}

// flakyEmbedder fails while down is set.
type flakyEmbedder struct {
	embed.Embedder
	down atomic.Bool
}

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.down.Load() {
		return nil, fmt.Errorf("connection refused")
	}
	return f.Embedder.Embed(ctx, texts)
}

func (f *flakyEmbedder) Calibration() embed.Calibration { return embed.CalibrationOf(f.Embedder) }

func TestEmbedderOutageKeepsKeywordRecallAndRetries(t *testing.T) {
	ctx := context.Background()
	var clockNS atomic.Int64 // the background embedder reads the clock too
	clockNS.Store(time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, clockNS.Load()) }
	emb := &flakyEmbedder{Embedder: embed.Hash()}
	emb.down.Store(true)
	src := NewMemSource(rank.Doc{Path: "a", Kind: rank.KindKnowledge, Name: "redis-eviction", Description: "cache evicted nothing"})
	ix, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "i.sqlite"), Source: src, Embedder: emb,
		Logger: quietLogger(), Now: clock, ScanInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	steps := []struct {
		name      string
		advance   time.Duration
		down      bool
		wantReady bool
	}{
		{"outage: entries indexed without vectors", 0, true, false},
		{"recovered but still backing off", time.Second, false, false},
		{"backoff over: re-embedded", embed.Backoff, false, true},
	}
	for _, st := range steps {
		clockNS.Add(int64(st.advance))
		emb.down.Store(st.down)
		if _, err := ix.Sync(ctx); err != nil {
			t.Fatalf("%s: sync must not fail on embedder outage: %v", st.name, err)
		}
		// waiting for the embedder ends at once while it backs off
		err := ix.WaitEmbedded(ctx)
		if st.wantReady != (err == nil) || (err != nil && !errors.Is(err, ErrEmbedBackoff)) {
			t.Errorf("%s: WaitEmbedded = %v", st.name, err)
		}
		if got := ix.Status(); got.BackingOff == st.wantReady || got.Vectors != st.wantReady {
			t.Errorf("%s: status backing off %v, vectors %v", st.name, got.BackingOff, got.Vectors)
		}
		hits, err := ix.Search(ctx, rank.Query{Text: "redis eviction"})
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s: keyword recall lost: %v %v", st.name, hits, err)
		}
		if got := ix.Status().SemanticReady; got != st.wantReady {
			t.Errorf("%s: semantic ready = %v, want %v", st.name, got, st.wantReady)
		}
	}
}

func TestStatusReportsSemanticLayer(t *testing.T) {
	srcDocs := []rank.Doc{{Path: "a", Name: "alpha", Body: "x"}}
	for _, tc := range []struct {
		emb  embed.Embedder
		want bool
	}{{embed.Off(), false}, {embed.Hash(), true}} {
		ix, err := Open(context.Background(), Options{Path: t.TempDir() + "/i.sqlite", Source: NewMemSource(srcDocs...), Embedder: tc.emb, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if ix.Status().SemanticReady {
			t.Errorf("%s ready before first sync", tc.emb.ID())
		}
		syncEmbedded(t, ix)
		if st := ix.Status(); st.SemanticReady != tc.want || st.Embedder != tc.emb.ID() || st.Entries != 1 {
			t.Errorf("status %+v", st)
		}
		ix.Close()
	}
}

// TestFirstSyncUsesOpensListing: a watched index lists its Source while
// Open reads the cache, after the watches are set, and the first full sync
// uses that listing instead of listing again — unless a watch event came
// after it began, which that listing may have missed.
func TestFirstSyncUsesOpensListing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		watched   bool
		edit      bool  // a file written between Open and the first sync
		wantScans int64 // Source scans after the first sync
	}{
		{"watched, nothing changed", true, false, 1},
		{"watched, a file written after the listing", true, true, 2},
		{"unwatched", false, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			seedNotes(t, root)
			src := &countingSource{dirSource: dirSource{root}}
			opts := Options{Path: filepath.Join(t.TempDir(), "index.sqlite"), Source: src, Logger: quietLogger()}
			if tc.watched {
				opts.WatchDirs = []string{root}
			}
			ix, err := Open(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if tc.watched && !ix.Watching() {
				t.Fatal("watcher did not start")
			}
			if tc.edit {
				gen := ix.changes.Gen()
				mustWrite(t, root, "knowledge", "kafka-lag", "Kafka consumer lag", "consumer group payments lags after rebalance storms")
				for deadline := time.Now().Add(5 * time.Second); ix.changes.Gen() == gen && time.Now().Before(deadline); {
					time.Sleep(5 * time.Millisecond)
				}
			}
			if _, err := ix.Sync(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := src.scans.Load(); got != tc.wantScans {
				t.Errorf("%d scans of the Source, want %d", got, tc.wantScans)
			}
			hits, err := ix.Search(t.Context(), rank.Query{Text: "redis eviction allkeys-lru"})
			if err != nil || len(hits) == 0 || hits[0].Doc.Name != "redis-eviction" {
				t.Fatalf("seeded note not found after the first sync: %q %v", names(hits), err)
			}
			if tc.edit {
				hits, _ := ix.Search(t.Context(), rank.Query{Text: "kafka rebalance"})
				if len(hits) == 0 || hits[0].Doc.Name != "kafka-lag" {
					t.Fatalf("the file written after the listing is not indexed: %q", names(hits))
				}
			}
		})
	}
}
