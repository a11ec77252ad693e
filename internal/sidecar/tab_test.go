package sidecar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/browse"
	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/gitsync"
	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/testutil"
)

// tabNow is the fixture's day: api-gateway-503 (score 0.15) retires at the
// next decay, docker-build-cache decays.
var tabNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.Local)

// tabServer is a server over a copy of the Python-format fixture.
func tabServer(t *testing.T) (*Server, string) {
	t.Helper()
	dir := testutil.Pydata(t)
	srv, err := New(Config{DataDir: dir, Embed: embedOff(), Logger: quiet(), Now: func() time.Time { return tabNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, dir
}

// call drives one method through the table and decodes its result into out.
func call(t *testing.T, srv *Server, name, params string, out any) error {
	t.Helper()
	res, err := srv.Methods()[name](context.Background(), json.RawMessage(params))
	if err != nil {
		return err
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		t.Fatal(merr)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s result %s: %v", name, b, err)
		}
	}
	return nil
}

func rpcCode(err error) int64 {
	var re *rpc.Error
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

func jsonString(v string) string { b, _ := json.Marshal(v); return string(b) }

func TestMemoryListAndRead(t *testing.T) {
	srv, _ := tabServer(t)
	var all browse.ListResult
	if err := call(t, srv, "memory.list", `{"kind":"knowledge"}`, &all); err != nil {
		t.Fatal(err)
	}
	if all.Total < 2 || all.Entries[0].Kind != "knowledge" {
		t.Fatalf("list %+v", all)
	}
	for i := 1; i < len(all.Entries); i++ {
		if all.Entries[i-1].Created < all.Entries[i].Created {
			t.Errorf("not newest first: %s before %s", all.Entries[i-1].Created, all.Entries[i].Created)
		}
	}
	var ranked browse.ListResult
	if err := call(t, srv, "memory.list", `{"query":"BuildKit cache mounts","limit":3}`, &ranked); err != nil {
		t.Fatal(err)
	}
	if len(ranked.Entries) == 0 || ranked.Entries[0].Name != "docker-build-cache" || ranked.Entries[0].Hit == nil {
		t.Fatalf("ranked %+v", ranked)
	}
	// The reason line is the one recall shows.
	out, err := srv.tools.Call(context.Background(), "recall_memories", ToolEnv{}, []byte(`{"query":"BuildKit cache mounts"}`))
	if err != nil {
		t.Fatal(err)
	}
	if why := ranked.Entries[0].Hit.Why; why == "" || !strings.Contains(out, why) {
		t.Errorf("why %q not in recall's answer:\n%s", why, out)
	}
	var doc browse.Document
	if err := call(t, srv, "memory.read", `{"path":"memory/knowledge/docker-build-cache/SKILL.md"}`, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.Raw, "---\nname: docker-build-cache") || doc.Version == "" || doc.Kind != "knowledge" || len(doc.FrontMatter) < 5 {
		t.Errorf("read %+v", doc)
	}
	var sawProjected, sawStored bool
	for _, p := range doc.Strength {
		sawProjected = sawProjected || p.Projected
		sawStored = sawStored || p.Event == "stored" && p.Day == "2026-11-25" && p.Value == 0.72
	}
	if !sawProjected || !sawStored {
		t.Errorf("strength %+v", doc.Strength)
	}
}

// TestMemoryPathsStayInside: every path the tab gives is refused with
// -32602 when it leads out of the data directory, however it tries.
func TestMemoryPathsStayInside(t *testing.T) {
	srv, dir := tabServer(t)
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("---\nname: x\ndescription: y\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "memory", "knowledge", "evil")
	if err := os.MkdirAll(link, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(link, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"../x.md", "memory/../../x.md", outside, "/etc/passwd", "memory/knowledge/evil/SKILL.md", "memory/.somni.lock", ""} {
		for _, m := range []struct{ name, params string }{
			{"memory.read", `{"path":` + jsonString(path) + `}`},
			{"memory.write", `{"path":` + jsonString(path) + `,"raw":"---\nname: a\ndescription: b\n---\nc\n","version":"x"}`},
			{"memory.pin", `{"path":` + jsonString(path) + `,"pinned":true}`},
			{"memory.forget", `{"path":` + jsonString(path) + `}`},
		} {
			err := call(t, srv, m.name, m.params, nil)
			if rpcCode(err) != rpc.CodeInvalidParams {
				t.Errorf("%s %q: %v, want -32602", m.name, path, err)
			}
		}
	}
	if b, _ := os.ReadFile(outside); !strings.Contains(string(b), "name: x") || strings.Contains(string(b), "pinned") {
		t.Errorf("the file outside changed: %s", b)
	}
}

func TestMemoryWrite(t *testing.T) {
	srv, dir := tabServer(t)
	const rel = "memory/knowledge/docker-build-cache/SKILL.md"
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	read := func() browse.Document {
		t.Helper()
		var doc browse.Document
		if err := call(t, srv, "memory.read", `{"path":"`+rel+`"}`, &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	write := func(raw, version string) (browse.WriteResult, error) {
		var res browse.WriteResult
		err := call(t, srv, "memory.write", `{"path":"`+rel+`","raw":`+jsonString(raw)+`,"version":"`+version+`"}`, &res)
		return res, err
	}
	doc := read()
	for _, tc := range []struct{ name, raw, want string }{
		{"oversized", doc.Raw + strings.Repeat("x", browse.MaxRawBytes), "over the"},
		{"no front-matter", "just text\n", "no front-matter"},
		{"no description", "---\nname: docker-build-cache\n---\nbody\n", "description"},
		{"bad date", strings.Replace(doc.Raw, "created: 2026-10-01", "created: last tuesday", 1), "created"},
		{"unparsable", "---\nname: a\ndescription: b\n  - [unclosed\nno colon here\n---\nbody\n", "does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := write(tc.raw, doc.Version)
			if rpcCode(err) != rpc.CodeInvalidParams || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want -32602 with %q", err, tc.want)
			}
			if b, _ := os.ReadFile(abs); string(b) != doc.Raw {
				t.Error("file changed")
			}
		})
	}
	// A secret lands redacted.
	edited := strings.Replace(doc.Raw, "set DOCKER_BUILDKIT=1", "set DOCKER_BUILDKIT=1", 1) +
		"\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
	res, err := write(edited, doc.Version)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(abs)
	if res.Redacted < 1 || strings.Contains(string(b), "wJalrXUtnFEMI") || !strings.Contains(string(b), "[REDACTED]") {
		t.Errorf("redacted %d, file:\n%s", res.Redacted, b)
	}
	if res.Version != read().Version {
		t.Error("the version returned is not the file's")
	}
	// A conflicting write fails with the text on disk and leaves it alone.
	theirs := strings.Replace(string(b), "cache mounts", "cache mounts (edited elsewhere)", 1)
	if err := os.WriteFile(abs, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = write(doc.Raw, res.Version)
	var re *rpc.Error
	if !errors.As(err, &re) || re.Code != CodeConflict || !strings.Contains(re.Message, "changed on disk") {
		t.Fatalf("conflict: %v", err)
	}
	var data struct{ Current, Version string }
	if err := json.Unmarshal(re.Data, &data); err != nil || data.Current != theirs || data.Version != browse.Token([]byte(theirs)) {
		t.Errorf("conflict data %s (%v)", re.Data, err)
	}
	if b, _ := os.ReadFile(abs); string(b) != theirs {
		t.Error("a conflicting write changed the file")
	}
}

func TestMemoryPinAndForget(t *testing.T) {
	srv, dir := tabServer(t)
	const weak = "memory/knowledge/api-gateway-503/SKILL.md"
	var doc browse.Document
	if err := call(t, srv, "memory.read", `{"path":"`+weak+`"}`, &doc); err != nil {
		t.Fatal(err)
	}
	// A stale version is a conflict; the current one pins.
	if err := call(t, srv, "memory.pin", `{"path":"`+weak+`","pinned":true,"version":"stale"}`, nil); rpcCode(err) != CodeConflict {
		t.Fatalf("pin with a stale version: %v", err)
	}
	var pinned struct{ Version string }
	if err := call(t, srv, "memory.pin", `{"path":"`+weak+`","pinned":true,"version":"`+doc.Version+`"}`, &pinned); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.store.DecayAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(weak)))
	if err != nil || !strings.Contains(string(b), "\npinned: true\n") || browse.Token(b) != pinned.Version {
		t.Fatalf("pinned entry after decay: %v\n%s", err, b)
	}
	var list browse.ListResult
	if err := call(t, srv, "memory.list", `{"kind":"knowledge"}`, &list); err != nil {
		t.Fatal(err)
	}
	for _, it := range list.Entries {
		if it.Path == weak && !it.Pinned {
			t.Error("list does not show the pin")
		}
	}
	// Forget archives it the way decay does; the archive lists it.
	var forgot struct {
		ArchivedTo string `json:"archivedTo"`
	}
	if err := call(t, srv, "memory.forget", `{"path":"`+weak+`","version":"`+pinned.Version+`"}`, &forgot); err != nil {
		t.Fatal(err)
	}
	if forgot.ArchivedTo != "memory/archived/api-gateway-503/SKILL.md" {
		t.Errorf("archivedTo %q", forgot.ArchivedTo)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(weak))); !os.IsNotExist(err) {
		t.Errorf("forgotten entry still active: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(forgot.ArchivedTo))); err != nil {
		t.Error(err)
	}
	var archived browse.ListResult
	if err := call(t, srv, "memory.list", `{"archived":true,"kind":"knowledge"}`, &archived); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range archived.Entries {
		found = found || it.Path == forgot.ArchivedTo && it.Archived
	}
	if !found {
		t.Errorf("archive listing %+v", archived.Entries)
	}

	// Restore undoes it: a version read before a hand edit of the archived
	// file is refused with the conflict and nothing moves; the current one
	// puts the entry back where it was, the edit kept, and recall finds it.
	var inArchive browse.Document
	if err := call(t, srv, "memory.read", `{"path":"`+forgot.ArchivedTo+`"}`, &inArchive); err != nil {
		t.Fatal(err)
	}
	archivedAbs := filepath.Join(dir, filepath.FromSlash(forgot.ArchivedTo))
	if err := os.WriteFile(archivedAbs, []byte(inArchive.Raw+"\nEdited in the archive.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := call(t, srv, "memory.restore", `{"path":"`+forgot.ArchivedTo+`","version":"`+inArchive.Version+`"}`, nil); rpcCode(err) != CodeConflict {
		t.Fatalf("restore with a stale version: %v, want a conflict", err)
	}
	if err := call(t, srv, "memory.read", `{"path":"`+forgot.ArchivedTo+`"}`, &inArchive); err != nil {
		t.Fatal(err)
	}
	var restored struct {
		RestoredTo string `json:"restoredTo"`
	}
	if err := call(t, srv, "memory.restore", `{"path":"`+forgot.ArchivedTo+`","version":"`+inArchive.Version+`"}`, &restored); err != nil {
		t.Fatal(err)
	}
	if restored.RestoredTo != weak {
		t.Errorf("restoredTo %q, want %q", restored.RestoredTo, weak)
	}
	if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(weak))); err != nil || !strings.Contains(string(b), "Edited in the archive.") {
		t.Errorf("the restored entry lost the edit: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(forgot.ArchivedTo))); !os.IsNotExist(err) {
		t.Errorf("the archived copy is still there: %v", err)
	}
	// What the host does after a change it made: the index takes the restore in.
	if err := call(t, srv, "index.sync", `{}`, nil); err != nil {
		t.Fatal(err)
	}
	var again browse.ListResult
	if err := call(t, srv, "memory.list", `{"query":"api gateway 503"}`, &again); err != nil {
		t.Fatal(err)
	}
	found = false
	for _, it := range again.Entries {
		found = found || it.Path == weak
	}
	if !found {
		t.Errorf("search does not find the restored entry: %+v", again.Entries)
	}
}

// TestMemorySession: the hints and work-tool calls of one session, newest
// first, each item with its score and why; another session's are not shown.
func TestMemorySession(t *testing.T) {
	srv, _ := tabServer(t)
	ctx := context.Background()
	if _, err := srv.syncedIndex(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, params string }{
		{"tools.call", `{"name":"recall_memories","args":{"query":"BuildKit cache mounts"},"sessionId":"s1"}`},
		{"assoc.thought", `{"sessionId":"s1","cue":"docker build cache mounts need BuildKit on the CI runner"}`},
		{"tools.call", `{"name":"add_intention","args":{"what":"rotate the CI cache","due":"2099-01-01"},"sessionId":"s1"}`},
		{"tools.call", `{"name":"recall_memories","args":{"query":"gateway 503"},"sessionId":"s2"}`},
	} {
		if err := call(t, srv, c.method, c.params, nil); err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
	}
	var got struct{ Events []browse.Event }
	if err := call(t, srv, "memory.session", `{"sessionId":"s1"}`, &got); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ev := range got.Events {
		kinds = append(kinds, ev.Kind+":"+ev.Tool)
	}
	want := []string{"intention:add_intention", "hint:assoc.thought", "recall:recall_memories"}
	if strings.Join(kinds, ",") != strings.Join(want, ",") {
		t.Fatalf("events %v, want %v", kinds, want)
	}
	if h := got.Events[1]; h.Text == "" || len(h.Items) == 0 || h.Items[0].Why == "" || h.Items[0].Path != "memory/knowledge/docker-build-cache/SKILL.md" {
		t.Errorf("hint event %+v", h)
	}
	rec := got.Events[len(got.Events)-1]
	if rec.Query != "BuildKit cache mounts" || len(rec.Items) == 0 || rec.Items[0].Path != "memory/knowledge/docker-build-cache/SKILL.md" ||
		rec.Items[0].Why == "" || rec.Items[0].Score <= 0 {
		t.Errorf("recall event %+v", rec)
	}
	if it := got.Events[0]; !strings.HasPrefix(it.Query, "pi-") || it.Text != "rotate the CI cache" {
		t.Errorf("intention event %+v", it)
	}
	if err := call(t, srv, "memory.session", `{"sessionId":"nobody"}`, &got); err != nil || len(got.Events) != 0 {
		t.Errorf("unknown session: %v %+v", err, got.Events)
	}
}

func TestMemoryHealth(t *testing.T) {
	srv, dir := tabServer(t)
	var lines []string
	for i := 0; i < 150; i++ {
		lines = append(lines, fmt.Sprintf("time=x level=INFO msg=line%d", i))
	}
	lines = append(lines, "level=WARN msg=leak aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "logs", "somni.log"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var h struct {
		Doctor      []Finding
		Index       *IndexStats
		PendingLogs int
		LogTail     []string
		LogError    string
	}
	if err := call(t, srv, "memory.health", `{}`, &h); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range h.Doctor {
		found = found || f.Kind == "unparsable" && strings.HasSuffix(f.Path, filepath.Join("broken-yaml", "SKILL.md"))
	}
	if !found || h.Index == nil || h.Index.Entries == 0 {
		t.Errorf("doctor %+v index %+v", h.Doctor, h.Index)
	}
	if len(h.LogTail) != browse.MaxLogTailLines || h.LogTail[0] != "time=x level=INFO msg=line51" {
		t.Errorf("tail of %d lines from %q", len(h.LogTail), h.LogTail[0])
	}
	if last := h.LogTail[len(h.LogTail)-1]; strings.Contains(last, "wJalrXUtnFEMI") {
		t.Errorf("secret in the log tail: %s", last)
	}
	// The index line's poll: the same counters, without doctor or the log.
	var ixs map[string]any
	if err := call(t, srv, "memory.indexStatus", `{}`, &ixs); err != nil {
		t.Fatal(err)
	}
	if ixs["entries"] != float64(h.Index.Entries) || ixs["pending"] != float64(h.Index.Pending) || ixs["embedded"] != float64(h.Index.Embedded) || len(ixs) != 4 {
		t.Errorf("memory.indexStatus %v, health's index %+v", ixs, *h.Index)
	}
	// A log that is a link out of the data directory is refused, not read.
	outside := filepath.Join(t.TempDir(), "other.log")
	if err := os.WriteFile(outside, []byte("private\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "logs", "somni.log")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "logs", "somni.log")); err != nil {
		t.Fatal(err)
	}
	h.LogTail = nil
	if err := call(t, srv, "memory.health", `{}`, &h); err != nil || !strings.Contains(h.LogError, "outside") || len(h.LogTail) != 0 || len(h.Doctor) == 0 {
		t.Errorf("a log linked out: %v %+v", err, h)
	}
}

// gatedModel holds its first answer until released, so a test can look at
// sleep.status mid-dream.
type gatedModel struct {
	*dreamtest.Model
	entered, release chan struct{}
	once             sync.Once
}

func (g *gatedModel) Chat(ctx context.Context, msgs []dream.Message, tools []dream.Tool) (dream.Message, dream.Usage, error) {
	g.once.Do(func() {
		close(g.entered)
		<-g.release
	})
	return g.Model.Chat(ctx, msgs, tools)
}

// TestMemoryDreams: sleep.status shows the running dream's progress (its
// old fields unchanged), and memory.dreams the dreamer's own record of what
// the dream changed, with its diary.
func TestMemoryDreams(t *testing.T) {
	model := &gatedModel{Model: dreamtest.NewModel(
		dreamtest.Step{Calls: []dreamtest.Call{
			{Name: "create_knowledge", Args: map[string]any{"name": "staging-db-port", "entry_type": "fact", "description": "staging database listens on 6543", "body": "Port 6543."}},
			{Name: "write_dream_log", Args: map[string]any{"content": "---\ndream_id: x\ntrigger: idle\n---\n\n## Created\n- staging-db-port\n"}},
			{Name: "mark_log_processed", Args: map[string]any{"path": "$LOG0"}},
		}, Usage: dream.Usage{PromptTokens: 50, CompletionTokens: 5}},
		dreamtest.Step{Content: "done"},
	), entered: make(chan struct{}), release: make(chan struct{})}
	srv, err := New(Config{DataDir: t.TempDir(), Embed: embedOff(), Logger: quiet(), HostModel: model, Now: func() time.Time { return tabNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if _, err := srv.capture.Append("chat-a", "user", "Our staging database port is 6543.", "default", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.capture.Close("chat-a"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- call(t, srv, "sleep.run", `{"trigger":"idle"}`, nil) }()
	<-model.entered
	var st map[string]any
	if err := call(t, srv, "sleep.status", `{}`, &st); err != nil {
		t.Fatal(err)
	}
	if st["sleeping"] != true || st["step"] != 1.0 || st["maxSteps"].(float64) < 30 || st["startedAt"] == nil || st["llm"] == nil {
		t.Errorf("status mid-dream %v", st)
	}
	close(model.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st = nil
	if err := call(t, srv, "sleep.status", `{}`, &st); err != nil {
		t.Fatal(err)
	}
	if _, ok := st["step"]; ok || st["sleeping"] != false {
		t.Errorf("status after the dream %v", st)
	}
	var got struct{ Dreams []browse.Dream }
	if err := call(t, srv, "memory.dreams", `{"limit":5}`, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Dreams) != 1 {
		t.Fatalf("dreams %+v", got.Dreams)
	}
	d := got.Dreams[0]
	if strings.Join(d.Created, ",") != "memory/knowledge/staging-db-port/SKILL.md" || !strings.Contains(d.Diff, "+Port 6543.") ||
		d.Status != "deep_sleep" || d.Tokens != 55 || d.Trigger != "idle" || !strings.Contains(d.Diary, "## Created") {
		t.Errorf("dream %+v", d)
	}
}

func TestMemoryListFilters(t *testing.T) {
	srv, _ := tabServer(t)
	tests := []struct {
		params    string
		wantCode  int64
		wantTotal func(int) bool
		wantPath  string // the first row's path, when set
	}{
		{`{"kind":"bogus"}`, rpc.CodeInvalidParams, nil, ""},
		{`{"since":"yesterday"}`, rpc.CodeInvalidParams, nil, ""},
		{`{"since":"2026-11-01","until":"2026-10-01"}`, rpc.CodeInvalidParams, nil, ""},
		{`{"query":` + jsonString(strings.Repeat("q", browse.MaxQueryBytes+1)) + `}`, rpc.CodeInvalidParams, nil, ""},
		{`{"kind":"episode","since":"2026-11-20","until":"2026-11-20"}`, 0, func(n int) bool { return n == 1 }, "memory/episodes/2026-11-20_001/SKILL.md"},
		{`{"kind":"episode","until":"2026-01-01"}`, 0, func(n int) bool { return n == 0 }, ""},
		{`{"tag":"no-such-tag"}`, 0, func(n int) bool { return n == 0 }, ""},
		{`{"kind":"knowledge","limit":1,"offset":1}`, 0, func(n int) bool { return n >= 2 }, ""},
		{`{"kind":"identity"}`, 0, func(n int) bool { return n >= 1 }, ""},
		{`{"limit":500}`, 0, func(n int) bool { return n > 0 }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.params, func(t *testing.T) {
			var res browse.ListResult
			err := call(t, srv, "memory.list", tc.params, &res)
			if tc.wantCode != 0 {
				if rpcCode(err) != tc.wantCode {
					t.Fatalf("%v, want code %d", err, tc.wantCode)
				}
				return
			}
			if err != nil || !tc.wantTotal(res.Total) || len(res.Entries) > browse.MaxListLimit {
				t.Fatalf("%v total %d entries %d", err, res.Total, len(res.Entries))
			}
			if tc.wantPath != "" && res.Entries[0].Path != tc.wantPath {
				t.Errorf("first %s", res.Entries[0].Path)
			}
		})
	}
}

func TestMemoryForgetIntention(t *testing.T) {
	srv, dir := tabServer(t)
	var list browse.ListResult
	if err := call(t, srv, "memory.list", `{"kind":"intention"}`, &list); err != nil || len(list.Entries) == 0 {
		t.Fatalf("%v %+v", err, list)
	}
	p := list.Entries[0].Path
	var forgot struct {
		ArchivedTo string `json:"archivedTo"`
	}
	if err := call(t, srv, "memory.forget", `{"path":"`+p+`"}`, &forgot); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(forgot.ArchivedTo, "memory/intentions/archived/") || !strings.HasSuffix(forgot.ArchivedTo, "/INTENT.md") {
		t.Errorf("archivedTo %q", forgot.ArchivedTo)
	}
	if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(forgot.ArchivedTo))); err != nil || !strings.Contains(string(b), "(cancelled)") {
		t.Errorf("%v\n%s", err, b)
	}
}

// syncedDir is a data dir with one note that `sync init` put under sync
// with a fresh bare repository, which it returns too.
func syncedDir(t *testing.T) (dir, remote string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not installed, and sync is tested with the real git: install it (apt install git): %v", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	remote = filepath.Join(t.TempDir(), "memory.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	dir = filepath.Join(t.TempDir(), "laptop")
	note := filepath.Join(dir, "memory", "knowledge", "staging-kafka-port", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "---\nname: staging-kafka-port\ndescription: staging kafka port\ntype: fact\n---\n\nThe staging kafka listens on port 9094.\n"
	if err := os.WriteFile(note, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := gitsync.Init(context.Background(), dir, remote, gitsync.WithDriver("false"), gitsync.WithLogger(quiet())); err != nil {
		t.Fatalf("sync init: %v", err)
	}
	return dir, remote
}

// TestHealthAndPingSync: memory.health's sync and ping's say where git
// sync stands without running git — nothing on a data dir sync init never
// set up; the last round's record on disk before this server ran a round
// (in step, with the remote, a token left out of it); this server's own
// failed round once the remote is gone, with the failure's sentence.
func TestHealthAndPingSync(t *testing.T) {
	tests := []struct {
		name string
		// setUp makes the data dir and acts on the server; it returns the
		// remote health must name ("" for none)
		setUp func(t *testing.T) (dir string, act func(srv *Server), remote string)
		want  *SyncState // Remote, LastAt and Said checked apart
		said  string     // a part of Said
	}{
		{
			name: "not set up",
			setUp: func(t *testing.T) (string, func(*Server), string) {
				return t.TempDir(), func(*Server) {}, ""
			},
		},
		{
			name: "the last round's record",
			setUp: func(t *testing.T) (string, func(*Server), string) {
				dir, remote := syncedDir(t)
				return dir, func(*Server) {}, remote
			},
			want: &SyncState{InStep: true},
			said: "in step with origin",
		},
		{
			name: "a token in the remote's URL is left out",
			setUp: func(t *testing.T) (string, func(*Server), string) {
				dir, _ := syncedDir(t)
				if out, err := exec.Command("git", "-C", dir, "remote", "set-url", "origin", "https://me:ghp_secret@git.example.invalid/me/memory.git").CombinedOutput(); err != nil {
					t.Fatalf("git remote set-url: %v\n%s", err, out)
				}
				return dir, func(*Server) {}, "https://git.example.invalid/me/memory.git"
			},
			want: &SyncState{InStep: true},
			said: "in step with origin",
		},
		{
			name: "this server's round failed",
			setUp: func(t *testing.T) (string, func(*Server), string) {
				dir, remote := syncedDir(t)
				return dir, func(srv *Server) {
					if err := os.RemoveAll(remote); err != nil {
						t.Fatal(err)
					}
					srv.sync.round(context.Background())
				}, remote
			},
			want: &SyncState{Failed: true},
			said: "cannot reach",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, act, remote := tc.setUp(t)
			// No rounds of its own: the test says when one runs.
			srv, err := New(Config{DataDir: dir, Embed: embedOff(), Logger: quiet(), SyncInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			act(srv)
			var h struct{ Sync *SyncState }
			if err := call(t, srv, "memory.health", `{}`, &h); err != nil {
				t.Fatal(err)
			}
			var p struct{ Sync *SyncState }
			if err := call(t, srv, "ping", `{}`, &p); err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if h.Sync != nil || p.Sync != nil {
					t.Fatalf("sync on a data dir sync init never set up: health %+v, ping %+v", h.Sync, p.Sync)
				}
				return
			}
			if h.Sync == nil || p.Sync == nil {
				t.Fatalf("no sync: health %+v, ping %+v", h.Sync, p.Sync)
			}
			if h.Sync.Remote != remote || p.Sync.Remote != "" {
				t.Errorf("remote: health %q, ping %q; want %q in health only", h.Sync.Remote, p.Sync.Remote, remote)
			}
			if at, err := time.Parse(time.RFC3339, h.Sync.LastAt); err != nil || time.Since(at) > time.Minute {
				t.Errorf("lastAt %q: %v", h.Sync.LastAt, err)
			}
			if h.Sync.InStep != tc.want.InStep || h.Sync.Failed != tc.want.Failed || !strings.Contains(h.Sync.Said, tc.said) {
				t.Errorf("health's sync %+v, want inStep %v, failed %v, said holding %q", *h.Sync, tc.want.InStep, tc.want.Failed, tc.said)
			}
			h.Sync.Remote = ""
			if *p.Sync != *h.Sync {
				t.Errorf("ping's sync %+v, health's %+v", *p.Sync, *h.Sync)
			}
		})
	}
}

// TestMemoryCreate: a memory written by hand in the tab is a knowledge
// entry on disk that recall finds; a second one under the same name, a
// name holding a secret and a missing body are refused with the reason,
// and nothing more is written.
func TestMemoryCreate(t *testing.T) {
	srv, dir := tabServer(t)
	var made struct{ Path string }
	if err := call(t, srv, "memory.create", `{"name":"office-wifi","type":"fact","description":"The office Wi-Fi network and where its password is kept","body":"The office Wi-Fi is **corp-5g**; its password is on the card at reception."}`, &made); err != nil {
		t.Fatal(err)
	}
	if made.Path != "memory/knowledge/office-wifi/SKILL.md" {
		t.Fatalf("created %q", made.Path)
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(made.Path)))
	if err != nil || !strings.Contains(string(b), "name: office-wifi\n") || !strings.Contains(string(b), "corp-5g") {
		t.Fatalf("on disk: %v\n%s", err, b)
	}
	if err := call(t, srv, "index.sync", `{}`, nil); err != nil {
		t.Fatal(err)
	}
	var found browse.ListResult
	if err := call(t, srv, "memory.list", `{"query":"office wifi"}`, &found); err != nil {
		t.Fatal(err)
	}
	if len(found.Entries) == 0 || found.Entries[0].Path != made.Path {
		t.Errorf("search does not find the new memory first: %+v", found.Entries)
	}
	before, _ := filepath.Glob(filepath.Join(dir, "memory", "knowledge", "*", "SKILL.md"))
	for _, tc := range []struct{ params, want string }{
		{`{"name":"office-wifi","description":"Another note","body":"x"}`, `"office-wifi" already exists`},
		{`{"name":"deploy-ghp_Zx8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz0Xc2V","description":"Deploy token","body":"x"}`, "secret"},
		{`{"name":"empty","description":"Nothing in it","body":"  "}`, `"body": is required`},
	} {
		err := call(t, srv, "memory.create", tc.params, nil)
		if rpcCode(err) != rpc.CodeInvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("create %s: %v, want -32602 saying %q", tc.params, err, tc.want)
		}
	}
	after, _ := filepath.Glob(filepath.Join(dir, "memory", "knowledge", "*", "SKILL.md"))
	if len(after) != len(before) {
		t.Errorf("refused creates wrote files: %v then %v", before, after)
	}
}
