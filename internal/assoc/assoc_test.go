package assoc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/index/rank"
)

func hit(name string, score float64) rank.Hit {
	return rank.Hit{Doc: rank.Doc{Name: name, Path: name}, Hybrid: score}
}

func hitNames(hs []rank.Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Doc.Name)
	}
	return out
}

func TestPick(t *testing.T) {
	tests := []struct {
		name  string
		cands []rank.Hit
		max   int
		want  []string
	}{
		{"none", nil, 2, nil},
		{"single", []rank.Hit{hit("a", 0.6)}, 2, []string{"a"}},
		{"clear leader", []rank.Hit{hit("a", 0.70), hit("b", 0.65), hit("c", 0.64)}, 2, []string{"a"}},
		{"exactly at gap", []rank.Hit{hit("a", 0.70), hit("b", 0.66)}, 2, []string{"a"}},
		{"two close", []rank.Hit{hit("a", 0.70), hit("b", 0.69)}, 2, []string{"a", "b"}},
		{"two close, third far", []rank.Hit{hit("a", 0.70), hit("b", 0.69), hit("c", 0.60)}, 2, []string{"a", "b"}},
		{"two close, max 1", []rank.Hit{hit("a", 0.70), hit("b", 0.69)}, 1, nil},
		{"three close", []rank.Hit{hit("a", 0.70), hit("b", 0.69), hit("c", 0.68)}, 2, nil},
		{"two close, max unset", []rank.Hit{hit("a", 0.70), hit("b", 0.69)}, 0, []string{"a", "b"}},
		{"two close, max negative", []rank.Hit{hit("a", 0.70), hit("b", 0.69)}, -3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := hitNames(Pick(tc.cands, Config{Threshold: DefaultThreshold, Gap: DefaultGap, MaxItems: tc.max}))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Pick = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestResolveMaxItems: unset is the default, a set value below 1 is 1
// (the flag's "min 1"), anything else is kept.
func TestResolveMaxItems(t *testing.T) {
	tests := []struct {
		n    int
		set  bool
		want int
	}{{0, false, DefaultMaxItems}, {0, true, 1}, {-2, true, 1}, {1, true, 1}, {2, true, 2}, {5, true, 5}}
	for _, tc := range tests {
		if got := ResolveMaxItems(tc.n, tc.set); got != tc.want {
			t.Errorf("ResolveMaxItems(%d, %v) = %d, want %d", tc.n, tc.set, got, tc.want)
		}
	}
	if got := New(nil, Config{}, nil).Config(); got.Threshold != DefaultThreshold || got.Gap != DefaultGap || got.MaxItems != DefaultMaxItems {
		t.Errorf("zero Config = %+v, want the defaults", got)
	}
}

func TestActionCue(t *testing.T) {
	tests := []struct {
		tool, args, want string
	}{
		{"bash", `{"command":"redis-cli CONFIG GET maxmemory-policy","timeout":5}`, "redis-cli CONFIG GET maxmemory-policy"},
		{"shell", `{"cmd":"ls","command":""}`, "ls"},
		{"web_fetch", `{"url":"https://grafana.internal/d/billing"}`, "https://grafana.internal/d/billing"},
		{"read_file", `{"file_path":"/etc/redis.conf","path":"/x"}`, "/etc/redis.conf /x"},
		{"grep", `{"pattern":"UNLEASH_TOKEN","path":""}`, "UNLEASH_TOKEN"},
		// every cue key counts: a grep's path no longer hides its pattern
		{"grep", `{"pattern":"UNLEASH_TOKEN","path":"."}`, "UNLEASH_TOKEN ."},
		// the harness's built-in tools: their own cue arguments, nothing else
		{"bash", `{"command":"psql -h pg-stage-7","description":"Connect to staging","workdir":"/srv"}`, "psql -h pg-stage-7"},
		{"pwsh", `{"command":"Get-Content C:\\etc\\pg.conf","description":"Show it"}`, `Get-Content C:\etc\pg.conf`},
		{"read_image", `{"file_path":"/home/ann/alert-routing.png"}`, "/home/ann/alert-routing.png"},
		{"write", `{"file_path":"docs/s3-lifecycle.md","content":"every word of a new file"}`, "docs/s3-lifecycle.md"},
		{"edit", `{"file_path":"conf/pg-stage-7.conf","old_string":"port = 5432","new_string":"port = 6543"}`, "conf/pg-stage-7.conf"},
		{"str_replace_editor", `{"command":"view","path":"/srv/nginx/report.conf"}`, "/srv/nginx/report.conf"},
		{"glob", `{"pattern":"**/*.yaml","path":"deploy/liveness-probes"}`, "**/*.yaml deploy/liveness-probes"},
		{"grep", `{"pattern":"pool_mode","path":"/etc/pgbouncer","include":"*.ini"}`, "pool_mode /etc/pgbouncer *.ini"},
		{"web_search", `{"queries":["pgbouncer prepared statements","  "]}`, "pgbouncer prepared statements"},
		{"read", `{"file_path":"/home/ann/docs/staging-postgres-notes.md","offset":10}`, "/home/ann/docs/staging-postgres-notes.md"},
		{"deploy", `{"env": "prod",  "replicas": 3}`, `deploy: {"env":"prod","replicas":3}`},
		{"deploy", ``, `deploy: {}`},
		{"recall_memories", `{"query":"redis"}`, ""},
		{"search_knowledge", `{"query":"redis"}`, ""},
		{"add_intention", `{"what":"x"}`, ""},
	}
	for _, tc := range tests {
		if got := ActionCue(tc.tool, json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("ActionCue(%s, %s) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

// testIndex builds a real index over docs with the hash embedder (gate
// tests pass AllowNoisy so it is not silenced).
func testIndex(t *testing.T, docs ...rank.Doc) *index.Index {
	t.Helper()
	ix, err := index.Open(context.Background(), index.Options{
		Path: filepath.Join(t.TempDir(), "index.sqlite"), Source: index.NewMemSource(docs...),
		Embedder: embed.Hash(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), ScanInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ix
}

func note(name, desc, body string) rank.Doc {
	return rank.Doc{Path: "knowledge/" + name + "/SKILL.md", Kind: rank.KindKnowledge, Name: name,
		Description: desc, Body: body, Type: "pitfall"}
}

func TestGateOutcomesAndHabituation(t *testing.T) {
	ctx := context.Background()
	docs := []rank.Doc{
		note("redis-eviction", "redis eviction policy allkeys-lru", "set maxmemory-policy allkeys-lru on the session cache"),
		note("nginx-timeouts", "nginx upstream timeouts", "proxy_read_timeout 60s for the report service"),
		// two near-identical notes: one cue hits both equally
		note("kafka-lag-a", "kafka consumer lag alarms", "consumer lag alarms fire during rebalance"),
		note("kafka-lag-b", "kafka consumer lag alarms", "consumer lag alarms fire during rebalance"),
		// three near-identical notes
		note("cert-a", "tls certificate renewal", "certbot renew tls certificate renewal weekly"),
		note("cert-b", "tls certificate renewal", "certbot renew tls certificate renewal weekly"),
		note("cert-c", "tls certificate renewal", "certbot renew tls certificate renewal weekly"),
	}
	docs[0].AppliesWhen = "cache keys have no TTL"
	docs[0].NotAppliesWhen = "Redis used as a queue"
	g := New(testIndex(t, docs...), Config{Threshold: 0.52, Gap: 0.04, MaxItems: 2, AllowNoisy: true}, nil)
	steps := []struct {
		name, session, cue string
		want               []string
	}{
		{"one clear hit", "s1", "redis eviction policy allkeys-lru", []string{"redis-eviction"}},
		{"habituated in same session", "s1", "redis eviction policy allkeys-lru", nil},
		{"other session still hinted", "s2", "redis eviction policy allkeys-lru", []string{"redis-eviction"}},
		{"two too close: both", "s1", "kafka consumer lag alarms", []string{"kafka-lag-a", "kafka-lag-b"}},
		{"three too close: nothing", "s1", "tls certificate renewal", nil},
		{"absent topic", "s1", "what should we cook for dinner tonight", nil},
		{"short cue skipped", "s3", "redis", nil},
	}
	for _, st := range steps {
		res, err := g.Thought(ctx, st.session, st.cue)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range res.Items {
			got = append(got, it.Name)
		}
		if !reflect.DeepEqual(got, st.want) {
			t.Errorf("%s: items %q, want %q", st.name, got, st.want)
		}
		if res.Items == nil {
			t.Errorf("%s: items must encode as []", st.name)
		}
		if (len(got) == 0) != (res.Hint == "") {
			t.Errorf("%s: hint %q inconsistent with items", st.name, res.Hint)
		}
	}
	g.Reset("s1")
	res, _ := g.Thought(ctx, "s1", "redis eviction policy allkeys-lru")
	if len(res.Items) != 1 {
		t.Fatalf("reset did not clear habituation: %+v", res)
	}
	wantHint := "【记忆提示】[memory] redis-eviction: redis eviction policy allkeys-lru｜适用：cache keys have no TTL｜不适用：Redis used as a queue (knowledge/redis-eviction/SKILL.md)"
	if res.Hint != wantHint {
		t.Errorf("hint\n got %q\nwant %q", res.Hint, wantHint)
	}
	b, _ := json.Marshal(res)
	for _, key := range []string{`"items":[`, `"applies_when":"cache keys have no TTL"`, `"not_applies_when"`, `"score":`, `"type":"pitfall"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("json %s lacks %s", b, key)
		}
	}
	// actions: the command is the cue; memory tools never trigger
	res, _ = g.Action(ctx, "s4", "bash", json.RawMessage(`{"command":"nginx upstream timeouts"}`))
	if len(res.Items) != 1 || res.Items[0].Name != "nginx-timeouts" {
		t.Errorf("action hint: %+v", res)
	}
	res, _ = g.Action(ctx, "s5", "recall_memories", json.RawMessage(`{"query":"nginx upstream timeouts"}`))
	if len(res.Items) != 0 {
		t.Errorf("memory tool triggered a hint: %+v", res)
	}
}

// noisyEmbedder is the hash embedder saying its scores are too noisy for
// hints, as a USE-lite representation the eval has not measured does.
type noisyEmbedder struct{ embed.Embedder }

func (noisyEmbedder) Noisy() bool { return true }

func TestQuietWithNoisyEmbedder(t *testing.T) {
	ix, err := index.Open(context.Background(), index.Options{
		Path: filepath.Join(t.TempDir(), "index.sqlite"), Source: index.NewMemSource(note("redis-eviction", "redis eviction policy allkeys-lru", "x")),
		Embedder: noisyEmbedder{embed.Hash()}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Sync(context.Background())
	for _, tc := range []struct {
		allow bool
		want  int
	}{{false, 0}, {true, 1}} {
		g := New(ix, Config{AllowNoisy: tc.allow}, nil)
		res, _ := g.Thought(context.Background(), "s", "redis eviction policy allkeys-lru")
		if len(res.Items) != tc.want || g.Quiet() == tc.allow {
			t.Errorf("allowNoisy=%v: %d items, quiet=%v", tc.allow, len(res.Items), g.Quiet())
		}
	}
}

func TestCueCacheAndCap(t *testing.T) {
	g := New(testIndex(t, note("a", "b", "c")), Config{}, nil)
	long := strings.Repeat("长", 1000)
	if _, err := g.Thought(context.Background(), "s", long); err != nil {
		t.Fatal(err)
	}
	for i := range maxCachedCues + 10 {
		g.queryVector(context.Background(), fmt.Sprint("cue number ", i))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := g.cachedCues(); n > maxCachedCues {
		t.Errorf("cue cache grew to %d", n)
	}
}

func TestPathWords(t *testing.T) {
	tests := []struct {
		path string
		want []string
	}{
		{"/home/ann/src/infra/docs/staging-postgres-notes.md", []string{"staging", "postgres"}},
		{"staging-postgres-notes.md", []string{"staging", "postgres"}},
		{"/home/ann/notes/redis_sentinel_failover.md", []string{"redis", "sentinel", "failover"}},
		{"docs/StagingRedisAuth.md", []string{"staging", "redis", "auth"}},
		{"deploy/liveness-probes", []string{"liveness", "probes"}},
		{"/srv/kafka-consumer/README.md", []string{"kafka", "consumer"}}, // a generic name passes to its folder
		{"https://wiki.example.com/ops/oncall-rotation?tab=2#top", []string{"oncall", "rotation"}},
		{`C:\Users\ann\notes\billing-db-failover.txt`, []string{"billing", "failover"}},
		{"src/hooks/useStagingRedis.ts", []string{"staging", "redis"}},
		// one word, or nothing but layout, is not specific
		{"/home/ann/src/app/src/components/Button.tsx", nil},
		{"/home/ann/src/app/internal/server/handler.go", nil},
		{"/home/ann/src/app/src/index.ts", nil},
		{"/home/ann/src/app/package.json", nil},
		{"/home/ann/src/app/tests/test_utils.py", nil},
		{"/home/ann/Desktop/screenshot-2026-12-01.png", nil},
		{"/home/staging-postgres/x.md", nil}, // a user's name is not a topic
		{"https://pkg.go.dev/net/http", nil},
		{"conf/pg-stage-7.conf", nil}, // pg and 7 are too short: the stem is a symbol instead
		{".", nil},
		{"", nil},
	}
	for _, tc := range tests {
		if got := PathWords(tc.path); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("PathWords(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	if got := PathWordsCue("grep", json.RawMessage(`{"pattern":"x","path":"services/kafka-consumer"}`)); got != "kafka consumer" {
		t.Errorf("grep path words: %q", got)
	}
	if got := PathWordsCue("bash", json.RawMessage(`{"command":"cat ./docs/staging-postgres-notes.md -n --color=never 1.5"}`)); got != "staging postgres" {
		t.Errorf("bash path words: %q", got)
	}
	if got := TextPathWordsCue("compare notes.md with kafka_consumer_lag.txt and v1.2.3"); got != "kafka consumer lag" {
		t.Errorf("text path words: %q", got)
	}
	if got := PathWordsCue("recall_memories", json.RawMessage(`{"path":"staging-postgres-notes.md"}`)); got != "" {
		t.Errorf("memory tool path words: %q", got)
	}
}

// TestActionPathWords: reading a file named after a remembered topic hints
// the memory even when the memory never names the file (the memory is the
// one a dreamer writes from "Staging Postgres: host pg-stage-7, port 6543").
func TestActionPathWords(t *testing.T) {
	ctx := context.Background()
	g := New(testIndex(t,
		note("staging-postgres", "Staging Postgres host and port", "Staging Postgres: host `pg-stage-7`, port 6543."),
		note("staging-redis", "The staging Redis", "The staging Redis is redis-stage-3 on port 6380."),
		note("go-errors", "Error handling convention in Go services", "Wrap errors with fmt.Errorf and %w."),
	), Config{AllowNoisy: true}, nil)
	tests := []actionCase{
		{"read", `{"file_path":"staging-postgres-notes.md"}`, []string{"staging-postgres"}},
		{"read", `{"file_path":"/home/ann/src/infra/docs/staging-postgres-notes.md"}`, []string{"staging-postgres"}},
		{"edit", `{"file_path":"/srv/ops/StagingRedisNotes.md","old_string":"a","new_string":"b"}`, []string{"staging-redis"}},
		{"str_replace_editor", `{"command":"view","path":"/srv/ops/staging_postgres.conf"}`, []string{"staging-postgres"}},
		{"bash", `{"command":"cat docs/staging-postgres-notes.md","description":"Show the notes"}`, []string{"staging-postgres"}},
		{"bash", `{"command":"go test ./internal/checkout/... -run TestFlow"}`, nil},
		{"read", `{"file_path":"/home/ann/src/app/internal/errors/wrap.go"}`, nil},
		{"read", `{"file_path":"/home/ann/src/app/src/components/LoginForm.tsx"}`, nil},
	}
	checkActionHints(ctx, t, g, tests)
	// a message naming the file: the same words
	for i, cue := range []string{"read staging-postgres-notes.md", "please open /home/ann/src/infra/docs/staging-postgres-notes.md"} {
		res, err := g.Thought(ctx, fmt.Sprint("t", i), cue)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != 1 || res.Items[0].Name != "staging-postgres" {
			t.Errorf("thought %q: %+v", cue, res.Items)
		}
	}
}

// TestSuppressedSaysWhy: a cue that gets no hint leaves one debug line
// naming the rule that withheld it.
func TestSuppressedSaysWhy(t *testing.T) {
	ctx := context.Background()
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	g := New(testIndex(t,
		note("redis-eviction", "redis eviction policy allkeys-lru", "set maxmemory-policy allkeys-lru"),
		note("cert-a", "tls certificate renewal", "certbot renews tls-edge-7 weekly"),
		note("cert-b", "tls certificate renewal", "certbot renews tls-edge-7 weekly"),
		note("cert-c", "tls certificate renewal", "certbot renews tls-edge-7 weekly"),
	), Config{AllowNoisy: true}, log)
	steps := []struct{ cue, why string }{
		{"redis", "why=short-cue"},
		{"what should we cook for dinner tonight", "why=gate"},
		{"redis eviction policy allkeys-lru", ""},
		{"redis eviction policy allkeys-lru", "why=habituation"},
		{"openssl s_client -connect tls-edge-7:443", "why=ambiguous"},
	}
	for _, st := range steps {
		buf.Reset()
		if _, err := g.Thought(ctx, "s", st.cue); err != nil {
			t.Fatal(err)
		}
		line := buf.String()
		if st.why == "" {
			if strings.Contains(line, "no hint") {
				t.Errorf("%q was hinted but logged %q", st.cue, line)
			}
			continue
		}
		if !strings.Contains(line, "assoc: no hint") || !strings.Contains(line, st.why) {
			t.Errorf("%q: log %q, want %s", st.cue, line, st.why)
		}
	}
}

// TestActionSymbols: a tool call naming a remembered host, port or file
// is hinted on that symbol alone; ordinary calls are not.
func TestActionSymbols(t *testing.T) {
	ctx := context.Background()
	g := New(testIndex(t,
		note("staging-postgres", "Staging Postgres host and port",
			"Staging Postgres runs on pg-stage-7, port 6543. Details in docs/staging-postgres-notes.md."),
		note("staging-redis", "The staging Redis", "The staging Redis is redis-stage-3 on port 6380."),
		note("go-errors", "Error handling convention in Go services", "Wrap errors with fmt.Errorf and %w."),
	), Config{AllowNoisy: true}, nil)
	tests := []actionCase{
		{"read", `{"file_path":"/home/ann/src/infra/docs/staging-postgres-notes.md"}`, []string{"staging-postgres"}},
		{"bash", `{"command":"psql -h pg-stage-7 -p 6543"}`, []string{"staging-postgres"}},
		{"bash", `{"command":"redis-cli -h redis-stage-3"}`, []string{"staging-redis"}},
		{"grep", `{"pattern":"redis-stage-3","path":"config/"}`, []string{"staging-redis"}},
		{"bash", `{"command":"go test ./..."}`, nil},
		{"bash", `{"command":"git status"}`, nil},
		{"read", `{"file_path":"/home/ann/src/app/package.json"}`, nil},
		{"bash", `{"command":"git log --oneline -20"}`, nil},
	}
	checkActionHints(ctx, t, g, tests)
}

// actionCase is a tool call and the names of the memories it should bring
// up (nil: none).
type actionCase struct {
	tool, args string
	want       []string
}

// checkActionHints runs each call through the gate in a session of its own
// and compares what it hints with what the case wants.
func checkActionHints(ctx context.Context, t *testing.T, g *Gate, cases []actionCase) {
	t.Helper()
	for i, tc := range cases {
		res, err := g.Action(ctx, fmt.Sprint("s", i), tc.tool, json.RawMessage(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range res.Items {
			got = append(got, it.Name)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s: hinted %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}
