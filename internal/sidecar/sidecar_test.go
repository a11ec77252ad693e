package sidecar

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/intentions"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/testutil"
)

func TestLineHandler(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(NewLineHandler(&buf, slog.LevelDebug))
	fixed := time.Date(2026, 11, 30, 1, 2, 3, 456e6, time.UTC)
	tests := []struct {
		name string
		log  func()
		want string
	}{
		{"default logger", func() { l.Info("ready", "n", 3) }, "2026-11-30T01:02:03.456Z INFO somni ready n=3"},
		{"named logger", func() { l.With(LoggerKey, "somni.memory").Warn("skipped", "file", "a b.md:3") }, `2026-11-30T01:02:03.456Z WARNING somni.memory skipped file="a b.md:3"`},
		{"name as record attr", func() { l.Error("boom", LoggerKey, "somni.rpc", "err", "x=y") }, `2026-11-30T01:02:03.456Z ERROR somni.rpc boom err="x=y"`},
		{"debug word", func() { l.Debug("tick") }, "2026-11-30T01:02:03.456Z DEBUG somni tick"},
		{"multi-line message stays one line", func() { l.Info("a\nb") }, "2026-11-30T01:02:03.456Z INFO somni a ⏎ b"},
		{"group", func() { l.WithGroup("ix").Info("sync", "n", 1) }, "2026-11-30T01:02:03.456Z INFO somni sync ix.n=1"},
		{"empty value", func() { l.Info("v", "k", "") }, `2026-11-30T01:02:03.456Z INFO somni v k=""`},
	}
	ts := regexp.MustCompile(`^\S+`)
	for _, tc := range tests {
		buf.Reset()
		tc.log()
		got := strings.TrimSuffix(buf.String(), "\n")
		got = ts.ReplaceAllString(got, fixed.Format("2006-01-02T15:04:05.000Z"))
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if strings.Count(buf.String(), "\n") != 1 {
			t.Errorf("%s: not exactly one line: %q", tc.name, buf.String())
		}
	}
}

// A log line leaves the data dir (the plugin keeps it in logs/somni.log), so
// no secret of the corpus survives in one, whether in the message or an attr.
func TestLineHandlerRedacts(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(NewLineHandler(&buf, slog.LevelDebug))
	testutil.CheckLeaks(t, "log line", testutil.SecretCorpus(t, "secrets.jsonl"), func(sec testutil.SecretLine) bool {
		buf.Reset()
		l.Warn("tool failed: "+sec.Text, "err", sec.Text)
		return strings.Contains(buf.String(), sec.Secret)
	})
}

func TestParseLevel(t *testing.T) {
	tests := []struct {
		in   string
		want slog.Level
		err  bool
	}{
		{"debug", slog.LevelDebug, false}, {"INFO", slog.LevelInfo, false}, {"", slog.LevelInfo, false},
		{"warning", slog.LevelWarn, false}, {"warn", slog.LevelWarn, false}, {"Error", slog.LevelError, false},
		{"loud", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseLevel(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParseLevel(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestSplitList(t *testing.T) {
	lists := []struct {
		in   string
		want []string
	}{
		{"", nil}, {"a", []string{"a"}}, {"a, b", []string{"a", "b"}}, {`[a, "b c"]`, []string{"a", "b c"}},
		{"域名，续费、提醒", []string{"域名", "续费", "提醒"}}, {" , ,", nil},
	}
	for _, tc := range lists {
		if got := splitList(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIntentionsText(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.Local)
	sel := intentions.Selection{
		Due:      []*intentions.Intention{{ID: "pi-20261128-001", What: "renew\ndomain", Due: "2026-11-29", Priority: "high"}},
		Upcoming: []*intentions.Intention{{ID: "pi-20261129-002", What: "call Bo", Due: "2026-12-02", Priority: "mid"}},
		Undated:  []*intentions.Intention{{ID: "pi-20261129-001", What: "ask about gateway", Priority: "low"}},
		Later: []*intentions.Intention{{ID: "pi-20261129-003", What: "renew cert", Due: "2026-12-18"},
			{ID: "pi-20261129-004", What: "dentist " + strings.Repeat("and more ", 20), Due: "2027-01-05"}},
		LaterMore: 2,
		CuedIDs:   map[string]bool{"pi-20261129-001": true},
	}
	got := intentionsText(sel, now)
	for _, want := range []string{
		"Later: renew cert (12-18), dentist and more and more and more and m … (2027-01-05), +2 more (list_intentions)\n",
		"- [pi-20261128-001] renew domain (overdue since 2026-11-29, high priority)",
		"- [pi-20261129-002] call Bo (due 2026-12-02)",
		"- [pi-20261129-001] ask about gateway (low priority, mentioned now)",
		"complete_intention",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if intentionsText(intentions.Selection{}, now) != "" {
		t.Error("empty selection must render as empty string")
	}
	if strings.Contains(got, "2026-11-30") {
		t.Errorf("the intentions section repeats today's date, which the discipline section carries:\n%s", got)
	}
}

// The discipline section opens with the date and explains the hint marker;
// it goes out with every request, so it stays small.
func TestDisciplineText(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	got := disciplineText(time.Date(2026, 12, 1, 23, 59, 0, 0, loc))
	first, _, _ := strings.Cut(got, "\n")
	if first != "Today is Tuesday, 2026-12-01 (Europe/Berlin, UTC+01:00)." {
		t.Fatalf("first line %q", first)
	}
	for _, want := range []string{"【记忆提示】[memory]", "stale", "verify", "not instructions", "recall_memories", "search_recent_conversation", "add_intention", "complete_intention", "cancel_intention"} {
		if !strings.Contains(got, want) {
			t.Errorf("discipline lacks %q:\n%s", want, got)
		}
	}
	if n := len([]rune(Discipline)); n > 640 {
		t.Errorf("discipline rules are %d characters; they go out with every request", n)
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestDoctor(t *testing.T) {
	dir := testutil.Pydata(t)
	// Add the problems doctor must find on top of the fixture's broken file.
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("memory/knowledge/dup-a/SKILL.md", "---\nname: same-name\ndescription: a\ntype: fact\nrelated: nowhere-entry, docker-build-cache\ncreated: 2026-13-45\n---\n\nbody\n")
	write("memory/knowledge/dup-b/SKILL.md", "---\nname: same-name\ndescription: b\ntype: fact\n---\n\nbody\n")
	st, err := memory.Open(memory.Config{DataDir: dir, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	findings, err := Doctor(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, rel+" "+f.Kind)
	}
	want := []string{
		"memory/knowledge/broken-yaml/SKILL.md unparsable",
		"memory/knowledge/dup-a/SKILL.md duplicate-name",
		"memory/knowledge/dup-a/SKILL.md orphan-link",
		"memory/knowledge/dup-a/SKILL.md bad-date",
		"memory/knowledge/dup-b/SKILL.md duplicate-name",
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("doctor missed %q; got %q", w, got)
		}
	}
	for _, f := range findings {
		if f.Kind == "unparsable" && f.Line == 0 {
			t.Errorf("unparsable finding without a line: %+v", f)
		}
		if f.Kind == "orphan-link" && strings.Contains(f.Reason, "docker-build-cache") {
			t.Errorf("a valid link reported as orphan: %+v", f)
		}
	}
}

func TestServerRecallReinforces(t *testing.T) {
	dir := testutil.Pydata(t)
	srv, err := New(Config{DataDir: dir, Embed: embedOff(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "memory/knowledge/docker-build-cache/SKILL.md")
	before, _ := os.ReadFile(path)
	out, err := srv.tools.Call(context.Background(), "recall_memories", ToolEnv{}, []byte(`{"query":"BuildKit cache mounts"}`))
	if err != nil || !strings.Contains(out, "docker-build-cache") {
		t.Fatalf("recall: %v\n%s", err, out)
	}
	if mid, _ := os.ReadFile(path); !bytes.Equal(before, mid) {
		t.Fatal("recall rewrote the file it returned; hits go to the usage journal")
	}
	// The next dream folds the journal in, before it looks for logs.
	if _, err := srv.sleepRun(context.Background(), sleepParams{Trigger: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if bytes.Equal(before, after) {
		t.Fatal("the dream did not apply the recall's reinforcement")
	}
	// Only the lifecycle lines changed: the rest of the file is byte for byte what it was.
	if diff := changedLines(string(before), string(after)); len(diff) > 3 {
		t.Errorf("reinforcement changed more than stability/score/last_used: %q", diff)
	}
	for _, keep := range []string{"ticket: 123-456", "applies_when:", "related: api-gateway-503"} {
		if !strings.Contains(string(after), keep) {
			t.Errorf("reinforcement lost %q:\n%s", keep, after)
		}
	}
	if today := "last_used: " + time.Now().Format("2006-01-02"); !strings.Contains(string(after), today) {
		t.Errorf("record_usage did not stamp %q:\n%s", today, after)
	}
}

// changedLines lists the lines of b that are not in a.
func changedLines(a, b string) []string {
	have := map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		have[l] = true
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if !have[l] {
			out = append(out, l)
		}
	}
	return out
}

func embedOff() embed.Config { return embed.Config{Provider: "off"} }

// TestSearchListings covers the search tools with no query: the index lists
// what passes the filters (knowledge strongest first, episodes newest
// first) and a listing is not a use, so nothing is reinforced.
func TestSearchListings(t *testing.T) {
	dir := testutil.Pydata(t)
	ep := filepath.Join(dir, "memory/episodes/2026-11-25_002/SKILL.md")
	if err := os.MkdirAll(filepath.Dir(ep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ep, []byte("---\nname: 2026-11-25_002\ndescription: 续费域名 example.org\ntype: episode\nscore: 0.4\n---\n\n- when: 2026-11-25T09:00:00\n- tags: 域名, billing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{DataDir: dir, Embed: embedOff(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	kpath := filepath.Join(dir, "memory/knowledge/docker-build-cache/SKILL.md")
	before, _ := os.ReadFile(kpath)
	tests := []struct {
		tool, args string
		want       []string // in this order
		absent     []string
	}{
		{"search_knowledge", `{}`, []string{"docker-build-cache", "团队成员", "api-gateway-503"}, nil},
		{"search_knowledge", `{"entry_type":"fact"}`, []string{"团队成员"}, []string{"docker-build-cache"}},
		{"search_knowledge", `{"limit":1}`, []string{"docker-build-cache"}, []string{"团队成员"}},
		{"search_episodes", `{}`, []string{"2026-11-25_002", "2026-11-20_001"}, nil},
		{"search_episodes", `{"tags":"docker"}`, []string{"2026-11-20_001"}, []string{"2026-11-25_002"}},
		{"search_episodes", `{"since":"2026-11-21"}`, []string{"2026-11-25_002"}, []string{"2026-11-20_001"}},
		{"search_episodes", `{"until":"2026-11-21"}`, []string{"2026-11-20_001"}, []string{"2026-11-25_002"}},
	}
	for _, tc := range tests {
		out, err := srv.tools.Call(context.Background(), tc.tool, ToolEnv{}, []byte(tc.args))
		if err != nil {
			t.Fatalf("%s %s: %v", tc.tool, tc.args, err)
		}
		last := -1
		for _, w := range tc.want {
			i := strings.Index(out, w)
			if i < 0 || i < last {
				t.Errorf("%s %s: want %v in this order:\n%s", tc.tool, tc.args, tc.want, out)
				break
			}
			last = i
		}
		for _, a := range tc.absent {
			if strings.Contains(out, a) {
				t.Errorf("%s %s: %q must be filtered out:\n%s", tc.tool, tc.args, a, out)
			}
		}
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(kpath); !bytes.Equal(before, after) {
		t.Error("a listing reinforced an entry")
	}
}

// TestSessionKey: session methods are ordered by sessionId however it is
// written; params the handler will reject still get a stable key.
func TestSessionKey(t *testing.T) {
	tests := []struct {
		params, want string
	}{
		{`{"sessionId":"chat-1","role":"user","text":"hi"}`, "chat-1"},
		{`{"role":"user","sessionId":"chat-1"}`, "chat-1"},
		{`{"sessionId":"\u0063hat-1"}`, "chat-1"}, // an escape names the same session
		{`{"sessionId":"会话"}`, "会话"},
		{`{"sessionId":7}`, "7"},
		{`{}`, ""},
		{`["chat-1"]`, ""},
	}
	for _, tc := range tests {
		if got := sessionKey([]byte(tc.params)); got != tc.want {
			t.Errorf("sessionKey(%s) = %q, want %q", tc.params, got, tc.want)
		}
	}
}
