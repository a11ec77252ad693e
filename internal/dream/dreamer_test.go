package dream_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/memory"
)

var fixedNow = time.Date(2026, 3, 4, 10, 0, 0, 0, time.Local)

func now() time.Time { return fixedNow }

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(discard{}, &slog.HandlerOptions{Level: slog.LevelError}))
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// newStore opens a store over a fresh data dir holding the named fixture logs.
func newStore(t testing.TB, logs ...string) *memory.Store {
	t.Helper()
	dir := t.TempDir()
	st, err := memory.Open(memory.Config{DataDir: dir, Now: now, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	logDir := filepath.Join(st.MemoryDir(), "session-log")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dream", "session-log", l))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(logDir, l), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func newDreamer(st *memory.Store, b dream.ChatBackend, mut ...func(*dream.Config)) *dream.Dreamer {
	cfg := dream.Config{Store: st, Backend: b, Now: now, Logger: quietLogger()}
	for _, m := range mut {
		m(&cfg)
	}
	return dream.New(cfg)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const dreamDiary = "---\ndream_id: 2026-03-04_dream_001\ntrigger: test\nprocessed_logs: 2026-03-02_001\n---\n\n## Created\n- `api-gw-staging-healthz` (pitfall)\n"

// fullDream is the script of a model doing a complete, well-behaved dream over one log.
func fullDream() []dreamtest.Step {
	return dreamtest.Consolidate(dreamtest.Consolidation{
		Fact: dreamtest.Fact{
			Name: "api-gw-staging-healthz", Type: "pitfall",
			Description: "api-gw staging returns 502 when the ingress health check probes /health instead of /healthz",
			Body:        "Since v2.3 api-gw answers health checks only on `/healthz`. Set `healthCheckPath: /healthz` on the staging ingress.",
		},
		Episode:  "Fixed api-gw staging 502 by pointing the ingress health check at /healthz",
		SourceID: "2026-03-02_001",
		Profile:  "Prefers the conclusion first, then the explanation. 先给结论再解释。",
		Diary:    dreamDiary,
		Summary:  "## Dream summary\nCreated api-gw-staging-healthz; recorded one episode.",
		Usage:    dream.Usage{PromptTokens: 1000, CompletionTokens: 50, CachedTokens: 100},
	})
}

func TestDreamConsolidatesLogIntoMemory(t *testing.T) {
	st := newStore(t, "2026-03-02_001.md")
	model := dreamtest.NewModel(fullDream()...)
	var synced atomic.Int32
	d := newDreamer(st, dreamtest.Host{Model: model}.Backend(), func(c *dream.Config) {
		c.OnChanged = func(context.Context) { synced.Add(1) }
	})

	res := d.Run(context.Background(), "idle_timeout")

	if res.Status != dream.StatusDeepSleep || !strings.Contains(res.Summary, "Created api-gw-staging-healthz") {
		t.Fatalf("result = %+v", res)
	}
	wantUsage := dream.TokenUsage{PromptTokens: 6000, CompletionTokens: 300, CachedTokens: 600, TotalTokens: 6300}
	if res.TokenUsage == nil || *res.TokenUsage != wantUsage {
		t.Fatalf("usage = %+v, want %+v", res.TokenUsage, wantUsage)
	}
	for i, reply := range model.ToolReplies() {
		if strings.HasPrefix(reply, "Error:") {
			t.Errorf("tool reply %d refused: %s", i, reply)
		}
	}
	mem := st.MemoryDir()
	k := readFile(t, filepath.Join(mem, "knowledge", "api-gw-staging-healthz", "SKILL.md"))
	for _, want := range []string{"type: pitfall", "healthCheckPath: /healthz", "score: 0.5"} {
		if !strings.Contains(k, want) {
			t.Errorf("knowledge lacks %q:\n%s", want, k)
		}
	}
	ep := readFile(t, filepath.Join(mem, "episodes", "2026-03-02_001", "SKILL.md"))
	for _, want := range []string{"type: episode", "- salience: mid", "- source: 2026-03-02_001", "- outcome: success", "description: Fixed api-gw staging 502"} {
		if !strings.Contains(ep, want) {
			t.Errorf("episode lacks %q:\n%s", want, ep)
		}
	}
	if _, err := os.Stat(filepath.Join(mem, "session-log", "2026-03-02_001.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("log still pending: %v", err)
	}
	if arch := readFile(t, filepath.Join(mem, "session-log", "archived", "2026-03-02_001.md")); !strings.Contains(arch, "status: processed") {
		t.Errorf("archived log not marked processed:\n%s", arch)
	}
	if diary := readFile(t, filepath.Join(mem, "dream-log", "2026-03-04_dream_001.md")); diary != dreamDiary {
		t.Errorf("diary = %q", diary)
	}
	if u := readFile(t, filepath.Join(mem, "users", "default", "about_user.md")); !strings.Contains(u, "先给结论再解释") {
		t.Errorf("profile = %q", u)
	}
	if synced.Load() != 1 {
		t.Errorf("OnChanged called %d times", synced.Load())
	}
	if st := d.Status(context.Background()); st.Sleeping || st.PendingLogs != 0 || st.LLM != "host" {
		t.Errorf("status after = %+v", st)
	}

	reqs := model.Requests()
	if len(reqs) != 6 {
		t.Fatalf("model called %d times", len(reqs))
	}
	if got := len(model.Tools()); got != 15 {
		t.Errorf("offered %d tools, want 15", got)
	}
	sys := reqs[0][0]
	if sys.Role != "system" || !strings.Contains(sys.Content, "Update before create") {
		t.Errorf("system prompt lacks the embedded strategy")
	}
	// The assistant's reasoning goes back to the model on later turns.
	if r := reqs[1][2]; r.Role != "assistant" || r.ReasoningContent != "look back first" {
		t.Errorf("reasoning not kept: %+v", r)
	}
	// After mark_log_processed the raw log text leaves the conversation.
	logText := "every pod is marked unhealthy"
	if !strings.Contains(lastToolReply(reqs[2]), logText) {
		t.Fatalf("read_session_log did not return the log")
	}
	for _, m := range reqs[3] {
		if strings.Contains(m.Content, logText) {
			t.Fatalf("raw log text still in the conversation after it was processed: %q", m.Content)
		}
	}
}

func lastToolReply(msgs []dream.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" {
			return msgs[i].Content
		}
	}
	return ""
}

// TestToolsRefuseBadProposals sends every kind of bad proposal in one turn:
// each is answered with an error text, nothing is written, and the loop goes on.
func TestToolsRefuseBadProposals(t *testing.T) {
	tests := []struct {
		name string
		call dreamtest.Call
		want string
	}{
		{"unknown tool", dreamtest.Call{Name: "rm_rf", Args: map[string]any{}}, `unknown tool "rm_rf"`},
		{"args not an object", dreamtest.Call{Name: "read_item", Args: `["x"]`}, "must be a JSON object"},
		{"args not JSON", dreamtest.Call{Name: "read_item", Args: `{name:`}, "not valid JSON"},
		{"wrong arg type", dreamtest.Call{Name: "update_knowledge", Args: map[string]any{"name": "x", "stability_delta": "1"}}, `"stability_delta": expected integer`},
		{"missing required", dreamtest.Call{Name: "create_knowledge", Args: map[string]any{"name": "x", "entry_type": "fact", "description": "d"}}, `"body": is required`},
		{"blank required", dreamtest.Call{Name: "record_episode", Args: map[string]any{"what": "  "}}, `"what": is required`},
		{"traversal knowledge name", dreamtest.Call{Name: "create_knowledge", Args: map[string]any{"name": "../../evil", "entry_type": "fact", "description": "an evil entry escaping", "body": "x"}}, "unsafe name"},
		{"absolute knowledge name", dreamtest.Call{Name: "create_skill", Args: map[string]any{"name": "/tmp/evil", "description": "an evil skill", "body": "x"}}, "unsafe name"},
		{"dot-dot name", dreamtest.Call{Name: "create_knowledge", Args: map[string]any{"name": "..", "entry_type": "fact", "description": "dots", "body": "x"}}, "unsafe name"},
		{"read log outside", dreamtest.Call{Name: "read_session_log", Args: map[string]any{"path": "../../../../etc/passwd"}}, "not a session log"},
		{"read absolute outside", dreamtest.Call{Name: "read_session_log", Args: map[string]any{"path": "/etc/passwd"}}, "not a session log"},
		{"mark outside", dreamtest.Call{Name: "mark_log_processed", Args: map[string]any{"path": "../knowledge/x/SKILL.md"}}, "not a session log"},
		{"mark missing log", dreamtest.Call{Name: "mark_log_processed", Args: map[string]any{"path": "1999-01-01_001.md"}}, "does not exist"},
		{"diary outside", dreamtest.Call{Name: "review_dream_history", Args: map[string]any{"path": "../../../etc/passwd"}}, "outside"},
		{"update absent knowledge", dreamtest.Call{Name: "update_knowledge", Args: map[string]any{"name": "no-such-entry", "body": "x"}}, `"no-such-entry" does not exist`},
		{"update absent skill", dreamtest.Call{Name: "update_skill", Args: map[string]any{"name": "no-such-skill", "body": "x"}}, `"no-such-skill" does not exist`},
		{"update traversal", dreamtest.Call{Name: "update_knowledge", Args: map[string]any{"name": "../about_me.md", "body": "x"}}, "unsafe name"},
		{"archive absent", dreamtest.Call{Name: "archive_item", Args: map[string]any{"name": "ghost"}}, `"ghost" does not exist`},
		{"read absent", dreamtest.Call{Name: "read_item", Args: map[string]any{"name": "ghost"}}, `no knowledge, skill or episode named "ghost"`},
		{"unknown scope", dreamtest.Call{Name: "list_items", Args: map[string]any{"scope": "everything"}}, "scope"},
		{"non-knowledge type", dreamtest.Call{Name: "create_knowledge", Args: map[string]any{"name": "x", "entry_type": "episode", "description": "typed wrong", "body": "x"}}, "not a knowledge type"},
		{"bad salience", dreamtest.Call{Name: "record_episode", Args: map[string]any{"what": "something", "salience": "extreme"}}, "salience"},
		{"diary without front-matter", dreamtest.Call{Name: "write_dream_log", Args: map[string]any{"content": "# just text"}}, "front-matter"},
		{"about_me as dreamer", dreamtest.Call{Name: "update_about_me", Args: map[string]any{"content": "I am the Sleep Agent: I extract memories from each session-log."}}, "update_about_me refused"},
		{"about_me as dreamer zh", dreamtest.Call{Name: "update_about_me", Args: map[string]any{"content": "我是记忆管理助手，负责做梦。"}}, "update_about_me refused"},
		{"profile traversal", dreamtest.Call{Name: "update_about_user", Args: map[string]any{"content": "x", "user_id": "../../evil"}}, "unsafe name"},
		{"profile with front-matter", dreamtest.Call{Name: "update_about_user", Args: map[string]any{"content": "---\nname: x\n---\nhi"}}, "without front-matter"},
	}
	st := newStore(t, "2026-03-02_002.md")
	calls := make([]dreamtest.Call, len(tests))
	for i, tc := range tests {
		calls[i] = tc.call
	}
	model := dreamtest.NewModel(
		dreamtest.Step{Calls: calls},
		dreamtest.Step{Calls: []dreamtest.Call{{Name: "list_items", Args: map[string]any{}}}},
		dreamtest.Step{Content: "done"},
	)
	res := newDreamer(st, model).Run(context.Background(), "test")
	// Every write was refused, so nothing was consolidated: an error, but
	// only after the loop went on to the model's last turn.
	if res.Status != dream.StatusError || !strings.Contains(res.Reason, "every memory write failed") || model.Turns() != 3 {
		t.Fatalf("the loop did not go on after refusals, or hid them: %+v after %d turns", res, model.Turns())
	}
	reqs := model.Requests()
	var replies []string
	for _, m := range reqs[1] {
		if m.Role == "tool" {
			replies = append(replies, m.Content)
		}
	}
	if len(replies) != len(tests) {
		t.Fatalf("%d replies for %d calls", len(replies), len(tests))
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.HasPrefix(replies[i], "Error: ") || !strings.Contains(replies[i], tc.want) {
				t.Errorf("reply = %q, want an error containing %q", replies[i], tc.want)
			}
		})
	}
	// Nothing was written anywhere: no entries, no escapes, the log still pending.
	assertOnlyPaths(t, st.DataDir(), "memory/session-log/2026-03-02_002.md")
	if _, err := os.Stat("/tmp/evil"); err == nil {
		t.Error("/tmp/evil was created")
	}
}

// assertOnlyPaths fails unless the files under root are exactly want (slash
// paths). The dream's own run record (dream-log/.runs/) is not memory and is
// written for every dream that woke the model, so it is not counted.
func assertOnlyPaths(t *testing.T, root string, want ...string) {
	t.Helper()
	got := map[string]bool{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !memory.IsLockFile(d.Name()) && filepath.Base(filepath.Dir(p)) != ".runs" {
			r, _ := filepath.Rel(root, p)
			got[filepath.ToSlash(r)] = true
		}
		return nil
	})
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing %s", w)
		}
		delete(got, w)
	}
	for p := range got {
		t.Errorf("unexpected file %s", p)
	}
}

func TestCreateKnowledgeRefusesDuplicates(t *testing.T) {
	st := newStore(t, "2026-03-02_002.md")
	ctx := context.Background()
	if _, err := st.CreateKnowledge(ctx, memory.KnowledgeInput{Name: "somni-metrics-port", Type: "fact", Description: "somni metrics endpoint listens on port 9464 by default", Body: "Port 9464 unless SOMNI_METRICS_ADDR is set.", Verified: true}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]any
		why  string
	}{
		{"same name", map[string]any{"name": "somni-metrics-port", "entry_type": "fact", "description": "totally different words here", "body": "x"}, "same name"},
		{"same directory name", map[string]any{"name": "somni metrics port", "entry_type": "fact", "description": "other words again", "body": "x"}, "same directory name"},
		{"near-duplicate description", map[string]any{"name": "metrics-port", "entry_type": "fact", "description": "somni metrics endpoint listens on port 9464 by default.", "body": "x"}, "similar description"},
	}
	var calls []dreamtest.Call
	for _, tc := range tests {
		calls = append(calls, dreamtest.Call{Name: "create_knowledge", Args: tc.args})
	}
	model := dreamtest.NewModel(dreamtest.Step{Calls: calls}, dreamtest.Step{Content: "ok"})
	if res := newDreamer(st, model).Run(ctx, "test"); res.Status != dream.StatusDeepSleep {
		t.Fatalf("res = %+v", res)
	}
	replies := model.ToolReplies()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := replies[i]
			for _, want := range []string{"not created", tc.why, "update_knowledge", "Port 9464 unless SOMNI_METRICS_ADDR is set."} {
				if !strings.Contains(r, want) {
					t.Errorf("reply lacks %q:\n%s", want, r)
				}
			}
		})
	}
	entries, _, err := st.ListItems(ctx, "knowledge")
	if err != nil || len(entries) != 1 {
		t.Fatalf("knowledge entries = %d (%v), want exactly the original", len(entries), err)
	}
}

func TestUpdateReinforces(t *testing.T) {
	st := newStore(t, "2026-03-02_002.md")
	ctx := context.Background()
	e, err := st.CreateKnowledge(ctx, memory.KnowledgeInput{Name: "port", Type: "fact", Description: "somni metrics port", Body: "9464", Verified: true})
	if err != nil {
		t.Fatal(err)
	}
	// Make it look last used long ago, so the reinforcement is a new-day one.
	e.Meta.Set(memory.KeyLastUsed, "2026-01-01")
	if err := st.Save(e); err != nil {
		t.Fatal(err)
	}
	model := dreamtest.NewModel(
		dreamtest.Step{Calls: []dreamtest.Call{{Name: "update_knowledge", Args: map[string]any{"name": "port", "body": "9464 (SOMNI_METRICS_ADDR overrides)"}}}},
		dreamtest.Step{Content: "ok"},
	)
	newDreamer(st, model).Run(ctx, "test")
	got, err := st.ReadItem(ctx, "port")
	if err != nil {
		t.Fatal(err)
	}
	if got.Stability() != 1 || got.Score() <= 0.5 || got.Meta.Value(memory.KeyLastUsed) != "2026-03-04" || !strings.Contains(got.Body, "overrides") {
		t.Fatalf("not reinforced: stability %d score %v last_used %s body %q (reply %q)", got.Stability(), got.Score(), got.Meta.Value(memory.KeyLastUsed), got.Body, model.ToolReplies())
	}
}

func TestRunOutcomes(t *testing.T) {
	tests := []struct {
		name       string
		logs       []string
		backend    func() dream.ChatBackend
		wantStatus string
		wantReason string
		// wantPending is the number of pending logs afterwards.
		wantPending int
	}{
		{"no logs", nil, func() dream.ChatBackend { return dreamtest.NewModel() }, dream.StatusSkipped, dream.ReasonNoPendingLogs, 0},
		{"empty log settled without a model", []string{"2026-03-03_001.md"}, func() dream.ChatBackend { return nil }, dream.StatusSkipped, dream.ReasonNoPendingLogs, 0},
		{"no model", []string{"2026-03-02_002.md"}, func() dream.ChatBackend { return nil }, dream.StatusError, dream.ReasonNoLLM, 1},
		{"host error", []string{"2026-03-02_002.md"}, func() dream.ChatBackend {
			return dreamtest.Host{Model: dreamtest.NewModel(dreamtest.Step{Err: errors.New("rate limited by provider")})}.Backend()
		}, dream.StatusError, "rate limited by provider", 1},
		{"malformed host result", []string{"2026-03-02_002.md"}, func() dream.ChatBackend {
			return dreamtest.Host{Raw: []byte(`{"message":"not an object"}`)}.Backend()
		}, dream.StatusError, "malformed", 1},
		{"host error after progress keeps progress", []string{"2026-03-02_001.md", "2026-03-02_002.md"}, func() dream.ChatBackend {
			return dreamtest.NewModel(
				dreamtest.Step{Calls: []dreamtest.Call{{Name: "mark_log_processed", Args: map[string]any{"path": "$LOG0"}}}},
				dreamtest.Step{Err: errors.New("context window exceeded")},
			)
		}, dream.StatusError, "context window exceeded", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t, tc.logs...)
			d := newDreamer(st, tc.backend())
			res := d.Run(context.Background(), "test")
			if res.Status != tc.wantStatus || !strings.Contains(res.Reason, tc.wantReason) {
				t.Fatalf("res = %+v, want %s/%s", res, tc.wantStatus, tc.wantReason)
			}
			if (res.Status == dream.StatusError || res.Status == dream.StatusSkipped) && res.TokenUsage != nil {
				t.Errorf("token_usage on %s", res.Status)
			}
			if n := d.Status(context.Background()).PendingLogs; n != tc.wantPending {
				t.Errorf("pending = %d, want %d", n, tc.wantPending)
			}
		})
	}
}

func TestEmptyLogsSkipTheModel(t *testing.T) {
	st := newStore(t, "2026-03-02_002.md", "2026-03-03_001.md")
	model := dreamtest.NewModel(dreamtest.Step{Content: "nothing worth keeping"})
	res := newDreamer(st, model).Run(context.Background(), "test")
	if res.Status != dream.StatusDeepSleep {
		t.Fatalf("res = %+v", res)
	}
	listed := dreamtest.LogPaths(model.Requests()[0])
	if len(listed) != 1 || filepath.Base(listed[0]) != "2026-03-02_002.md" {
		t.Fatalf("listed %v, want only the non-empty log", listed)
	}
	if _, err := os.Stat(filepath.Join(st.MemoryDir(), "session-log", "archived", "2026-03-03_001.md")); err != nil {
		t.Fatalf("empty log not archived: %v", err)
	}
}

func TestMaxLogsOldestFirst(t *testing.T) {
	st := newStore(t, "2026-03-02_002.md", "2026-03-02_001.md")
	model := dreamtest.NewModel(dreamtest.Step{Content: "x"})
	newDreamer(st, model, func(c *dream.Config) {
		c.MaxLogs = 1
	}).Run(context.Background(), "test")
	listed := dreamtest.LogPaths(model.Requests()[0])
	if len(listed) != 1 || filepath.Base(listed[0]) != "2026-03-02_001.md" {
		t.Fatalf("listed %v, want the oldest log only", listed)
	}
}

func TestMaxIterations(t *testing.T) {
	tests := []struct{ logs, capIters, want int }{
		{1, 0, 30}, {2, 0, 35}, {5, 0, 65}, {5, 40, 40}, {1, 100, 30}, {0, 0, 30},
	}
	for _, tc := range tests {
		if got := dream.MaxIterations(tc.logs, tc.capIters); got != tc.want {
			t.Errorf("MaxIterations(%d, %d) = %d, want %d", tc.logs, tc.capIters, got, tc.want)
		}
	}
}

func TestSleepMaxItersHonoured(t *testing.T) {
	st := newStore(t, "2026-03-02_002.md")
	steps := make([]dreamtest.Step, 50)
	for i := range steps {
		steps[i] = dreamtest.Step{Calls: []dreamtest.Call{{Name: "list_items", Args: map[string]any{}}}}
	}
	model := dreamtest.NewModel(steps...)
	res := newDreamer(st, model, func(c *dream.Config) {
		c.MaxIters = 4
	}).Run(context.Background(), "test")
	if model.Turns() != 4 {
		t.Fatalf("model called %d times, want 4", model.Turns())
	}
	if res.Status != dream.StatusDeepSleep || !strings.Contains(res.Summary, "iteration cap of 4") {
		t.Fatalf("res = %+v", res)
	}
}

func TestAlreadyRunning(t *testing.T) {
	st := newStore(t, "2026-03-02_002.md")
	release := make(chan struct{})
	model := dreamtest.NewModel(dreamtest.Step{Block: release}, dreamtest.Step{Content: "done"})
	d := newDreamer(st, model)
	done := make(chan dream.Result, 1)
	go func() { done <- d.Run(context.Background(), "first") }()
	<-model.Blocked
	if s := d.Status(context.Background()); !s.Sleeping || s.PendingLogs != 1 {
		t.Errorf("status during dream = %+v", s)
	}
	if res := d.Run(context.Background(), "second"); res.Status != dream.StatusSkipped || res.Reason != dream.ReasonAlreadyRunning {
		t.Errorf("second run = %+v", res)
	}
	close(release)
	if res := <-done; res.Status != dream.StatusDeepSleep {
		t.Errorf("first run = %+v", res)
	}
}

// TestAnotherProcessDreaming runs a second dreamer over a second store on
// the same data dir (as a second sidecar or an MCP server would): while the
// first dreams, the second is skipped without calling its model; once the
// first is done, the second dreams.
func TestAnotherProcessDreaming(t *testing.T) {
	st := newStore(t, "2026-03-02_002.md")
	other, err := memory.Open(memory.Config{DataDir: st.DataDir(), Now: now, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	first := dreamtest.NewModel(dreamtest.Step{Block: release}, dreamtest.Step{Content: "done"})
	second := dreamtest.NewModel(dreamtest.Step{Content: "nothing left"})
	d1, d2 := newDreamer(st, first), newDreamer(other, second)
	done := make(chan dream.Result, 1)
	go func() { done <- d1.Run(context.Background(), "first") }()
	<-first.Blocked
	res := d2.Run(context.Background(), "second")
	if res.Status != dream.StatusSkipped || res.Reason != dream.ReasonOtherProcess {
		t.Errorf("second process's run = %+v", res)
	}
	if b, _ := json.Marshal(res); string(b) != `{"status":"skipped","reason":"another process is dreaming"}` {
		t.Errorf("wire shape %s", b)
	}
	if second.Turns() != 0 {
		t.Errorf("the skipped dream called its model %d times", second.Turns())
	}
	close(release)
	if res := <-done; res.Status != dream.StatusDeepSleep {
		t.Errorf("first run = %+v", res)
	}
	if res := d2.Run(context.Background(), "after"); res.Status == dream.StatusSkipped && res.Reason == dream.ReasonOtherProcess {
		t.Errorf("the lock outlived the first dream: %+v", res)
	}
}

func TestCancelInterruptsPromptly(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		name := "backend honours ctx"
		if ignore {
			name = "backend never answers"
		}
		t.Run(name, func(t *testing.T) {
			st := newStore(t, "2026-03-02_001.md", "2026-03-02_002.md")
			never := make(chan struct{})
			defer close(never)
			model := dreamtest.NewModel(
				dreamtest.Step{Calls: []dreamtest.Call{
					{Name: "read_session_log", Args: map[string]any{"path": "$LOG0"}},
					{Name: "mark_log_processed", Args: map[string]any{"path": "$LOG0"}},
				}, Usage: dream.Usage{PromptTokens: 500, CompletionTokens: 5}},
				dreamtest.Step{Block: never, IgnoreContext: ignore},
			)
			var synced atomic.Int32
			d := newDreamer(st, model, func(c *dream.Config) {
				c.OnChanged = func(context.Context) { synced.Add(1) }
			})
			done := make(chan dream.Result, 1)
			go func() { done <- d.Run(context.Background(), "test") }()
			<-model.Blocked
			d.Cancel()
			var res dream.Result
			select {
			case res = <-done:
			case <-time.After(time.Second):
				t.Fatal("dream not interrupted within 1 s of sleep.cancel")
			}
			if res.Status != dream.StatusInterrupted || res.TokenUsage == nil || res.TokenUsage.TotalTokens != 505 {
				t.Fatalf("res = %+v", res)
			}
			mem := st.MemoryDir()
			if _, err := os.Stat(filepath.Join(mem, "session-log", "archived", "2026-03-02_001.md")); err != nil {
				t.Errorf("processed log lost: %v", err)
			}
			if _, err := os.Stat(filepath.Join(mem, "session-log", "2026-03-02_002.md")); err != nil {
				t.Errorf("unprocessed log no longer pending: %v", err)
			}
			if synced.Load() != 1 {
				t.Errorf("OnChanged after a partial dream: %d calls", synced.Load())
			}
			// A new dream can start right away and picks up the rest.
			next := dreamtest.NewModel(dreamtest.Step{Content: "rest"})
			d2 := newDreamer(st, next)
			if r := d2.Run(context.Background(), "again"); r.Status != dream.StatusDeepSleep || len(dreamtest.LogPaths(next.Requests()[0])) != 1 {
				t.Errorf("resume = %+v", r)
			}
		})
	}
}

func TestCancelWithoutDreamIsNoop(t *testing.T) {
	st := newStore(t, "2026-03-02_002.md")
	model := dreamtest.NewModel(dreamtest.Step{Content: "fine"})
	d := newDreamer(st, model)
	d.Cancel() // a stale cancel must not poison the next dream
	if res := d.Run(context.Background(), "test"); res.Status != dream.StatusDeepSleep {
		t.Fatalf("res = %+v", res)
	}
}

func TestStrategyOverride(t *testing.T) {
	st := newStore(t, "2026-03-02_002.md")
	p := st.StrategyOverridePath()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: memory-extraction\n---\n\nOnly keep facts about cats.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := dreamtest.NewModel(dreamtest.Step{Content: "x"})
	newDreamer(st, model).Run(context.Background(), "test")
	sys := model.Requests()[0][0].Content
	if !strings.Contains(sys, "Only keep facts about cats.") || strings.Contains(sys, "Update before create") || strings.Contains(sys, "name: memory-extraction") {
		t.Fatalf("override not used cleanly:\n%s", sys)
	}
}

func TestLLMName(t *testing.T) {
	st := newStore(t)
	if got := newDreamer(st, nil).LLM(); got != "none" {
		t.Errorf("nil backend: %q", got)
	}
	if got := newDreamer(st, dream.NewHostBackend(nil)).LLM(); got != "host" {
		t.Errorf("host backend: %q", got)
	}
}

func TestResultJSONShapes(t *testing.T) {
	u := &dream.TokenUsage{PromptTokens: 3, CompletionTokens: 2, CachedTokens: 1, TotalTokens: 5}
	tests := []struct {
		res  dream.Result
		want string
	}{
		{dream.Result{Status: dream.StatusDeepSleep, Summary: "s", TokenUsage: u},
			`{"status":"deep_sleep","summary":"s","token_usage":{"prompt_tokens":3,"completion_tokens":2,"cached_tokens":1,"total_tokens":5}}`},
		{dream.Result{Status: dream.StatusDeepSleep},
			`{"status":"deep_sleep","summary":"","token_usage":{"prompt_tokens":0,"completion_tokens":0,"cached_tokens":0,"total_tokens":0}}`},
		{dream.Result{Status: dream.StatusInterrupted, Reason: "cancelled", TokenUsage: u},
			`{"status":"interrupted","reason":"cancelled","token_usage":{"prompt_tokens":3,"completion_tokens":2,"cached_tokens":1,"total_tokens":5}}`},
		{dream.Result{Status: dream.StatusSkipped, Reason: dream.ReasonAlreadyRunning}, `{"status":"skipped","reason":"already_running"}`},
		{dream.Result{Status: dream.StatusError, Reason: "boom"}, `{"status":"error","reason":"boom"}`},
	}
	for _, tc := range tests {
		got, err := json.Marshal(tc.res)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v → %s (%v), want %s", tc.res, got, err, tc.want)
		}
	}
}
