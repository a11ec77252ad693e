package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/sessionlog"
	"github.com/somni-dev/somni/internal/testutil"
)

// TestFraming drives bad and odd frames through the real binary; after each
// one the sidecar must still answer a ping.
func TestFraming(t *testing.T) {
	s := start(t, t.TempDir(), nil)
	tests := []struct {
		name     string
		line     string
		id       string // raw id the reply must carry
		wantCode int64  // 0 ⇒ success
		wantMsg  string
	}{
		{"bad json", `{"jsonrpc":"2.0","id":1,"method":"ping"`, "null", -32700, "parse error"},
		{"batch refused", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "null", -32600, "batch requests are not supported"},
		{"not an object", `"ping"`, "null", -32700, "not a JSON object"},
		{"id beyond int64 echoed", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, "12345678901234567890", 0, ""},
		{"negative id echoed", `{"jsonrpc":"2.0","id":-1,"method":"ping"}`, "-1", 0, ""},
		{"escaped unicode string id echoed", `{"jsonrpc":"2.0","id":"\u00e9\n\"日","method":"ping"}`, `"\u00e9\n\"日"`, 0, ""},
		{"no jsonrpc member served", `{"id":"bare","method":"ping"}`, `"bare"`, 0, ""},
		{"invalid utf8", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\x28\"}}", "null", -32700, "UTF-8"},
		{"unknown method", `{"jsonrpc":"2.0","id":"u-1","method":"memory.delete_everything"}`, `"u-1"`, -32601, "method not found: memory.delete_everything"},
		{"params null", `{"jsonrpc":"2.0","id":3,"method":"ping","params":null}`, "3", 0, ""},
		{"string id echoed", `{"jsonrpc":"2.0","id":"abc","method":"ping"}`, `"abc"`, 0, ""},
		{"missing sessionId", `{"jsonrpc":"2.0","id":4,"method":"session.append","params":{"role":"user","text":"hi"}}`, "4", -32602, `"sessionId": is required`},
		{"empty sessionId", `{"jsonrpc":"2.0","id":5,"method":"session.append","params":{"sessionId":"","role":"user","text":"hi"}}`, "5", -32602, `"sessionId": is required`},
		{"null sessionId", `{"jsonrpc":"2.0","id":6,"method":"session.close","params":{"sessionId":null}}`, "6", -32602, `"sessionId": is required`},
		{"wrong param type", `{"jsonrpc":"2.0","id":7,"method":"session.append","params":{"sessionId":1,"role":"user","text":"hi"}}`, "7", -32602, "expected string, got number"},
		{"bad role", `{"jsonrpc":"2.0","id":8,"method":"session.append","params":{"sessionId":"s","role":"system","text":"hi"}}`, "8", -32602, "role"},
		{"params array", `{"jsonrpc":"2.0","id":9,"method":"assoc.reset","params":["s"]}`, "9", -32602, "must be a JSON object"},
		{"empty params array is no params", `{"jsonrpc":"2.0","id":"ea","method":"sleep.status","params":[]}`, `"ea"`, 0, ""},
		{"missing cue", `{"jsonrpc":"2.0","id":10,"method":"assoc.thought","params":{"sessionId":"s"}}`, "10", -32602, `"cue": is required`},
		{"unknown tool", `{"jsonrpc":"2.0","id":11,"method":"tools.call","params":{"name":"rm_rf","args":{}}}`, "11", -32602, "unknown tool"},
		{"tool args not object", `{"jsonrpc":"2.0","id":12,"method":"tools.call","params":{"name":"recall_memories","args":"tea"}}`, "12", -32602, "expected object"},
		{"tool wrong arg type", `{"jsonrpc":"2.0","id":13,"method":"tools.call","params":{"name":"recall_memories","args":{"query":"tea","limit":"five"}}}`, "13", -32602, `argument "limit": expected integer, got string`},
		{"tool missing arg", `{"jsonrpc":"2.0","id":14,"method":"tools.call","params":{"name":"add_intention","args":{"what":""}}}`, "14", -32602, `argument "what": is required`},
		{"tool bad intention id", `{"jsonrpc":"2.0","id":17,"method":"tools.call","params":{"name":"complete_intention","args":{"intention_id":"nope"}}}`, "17", -32602, `complete_intention: argument "intention_id"`},
		{"huge bad role named briefly", `{"jsonrpc":"2.0","id":18,"method":"session.append","params":{"sessionId":"s","role":"` + strings.Repeat("r", 100000) + `","text":"hi"}}`, "18", -32602, "must be user or agent"},
		{"huge bad priority named briefly", `{"jsonrpc":"2.0","id":19,"method":"tools.call","params":{"name":"add_intention","args":{"what":"x","priority":"` + strings.Repeat("p", 100000) + `"}}}`, "19", -32602, "must be high, mid or low"},
		{"huge sessionId refused", `{"jsonrpc":"2.0","id":20,"method":"session.append","params":{"sessionId":"` + strings.Repeat("s", 100000) + `","role":"user","text":"hi"}}`, "20", -32602, "sessionId is longer than"},
		{"tool since after until", `{"jsonrpc":"2.0","id":21,"method":"tools.call","params":{"name":"search_episodes","args":{"since":"2026-12-01","until":"2026-01-01"}}}`, "21", -32602, "is after until"},
		{"tool bad date", `{"jsonrpc":"2.0","id":15,"method":"tools.call","params":{"name":"search_episodes","args":{"since":"a while back"}}}`, "15", -32602, `"since"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.t = t
			ch := s.expect(tc.id)
			s.sendRaw(tc.line)
			w := s.wait(ch, tc.name)
			if tc.wantCode == 0 {
				if w.Error != nil {
					t.Fatalf("unexpected error %s", w.raw)
				}
			} else if w.Error == nil || w.Error.Code != tc.wantCode || !strings.Contains(w.Error.Message, tc.wantMsg) {
				t.Fatalf("got %.500s, want code %d with %q", w.raw, tc.wantCode, tc.wantMsg)
			} else if len(w.Error.Message) > 600 { // a runaway value is named, not echoed
				t.Fatalf("error message is %d bytes", len(w.Error.Message))
			}
			var p map[string]any
			s.call("ping", nil, &p) // still serving
		})
	}
	s.t = t
	s.call("shutdown", nil, nil)
	if code := s.waitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	s.assertProtocolOnly()
}

// TestMethods walks the whole method table on a copy of a Python-format
// data directory that contains a broken file among good ones.
func TestMethods(t *testing.T) {
	dir := testutil.Pydata(t)
	brokenPath := filepath.Join(dir, "memory/knowledge/broken-yaml/SKILL.md")
	broken := testutil.ReadFile(t, brokenPath)
	s := start(t, dir, []string{"-m", "somni_memory"}) // wrong position is fine too: see TestArgs

	var ping struct {
		Version, DataDir, MemoryDir, SkillDir, LLM string
		Vector                                     bool
		PendingLogs                                int
	}
	s.call("ping", map[string]any{}, &ping)
	if ping.DataDir != dir || ping.MemoryDir != filepath.Join(dir, "memory") || ping.SkillDir != filepath.Join(dir, "skills") || ping.LLM != "host" || ping.Vector {
		t.Fatalf("ping = %+v", ping)
	}
	if ping.PendingLogs != 2 { // 2026-11-29_001 (status pending) and the headerless _002
		t.Fatalf("pendingLogs = %d, want 2", ping.PendingLogs)
	}
	// fd 1 now points at stderr, so stray stdout writes (native libraries)
	// cannot corrupt the protocol, which runs on a private duplicate.
	if fd1, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "fd", "1")); err == nil {
		fd2, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "fd", "2"))
		if fd1 != fd2 {
			t.Fatalf("fd 1 (%s) is not stderr (%s)", fd1, fd2)
		}
	}

	t.Run("prompt.build", func(t *testing.T) {
		s.t = t
		var pb struct{ Identity, Intentions, Discipline string }
		s.call("prompt.build", map[string]any{"speakerUserId": "alice", "currentMessage": "can you check the gateway?"}, &pb)
		mustContain(t, "identity", pb.Identity, "team's coding assistant", "Alice", "Owns the gateway")
		mustContain(t, "intentions", pb.Intentions, "pi-20261129-001", "mentioned now")
		if pb.Discipline == "" {
			t.Fatal("empty discipline")
		}
		// Traversal in a user id reads nothing outside users/.
		s.call("prompt.build", map[string]any{"speakerUserId": "../../../etc"}, &pb)
		if strings.Contains(pb.Identity, "root:") {
			t.Fatal("identity leaked a file outside memory")
		}
	})

	t.Run("tools.list", func(t *testing.T) {
		s.t = t
		var tl struct {
			Tools []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Parameters  struct {
					Type       string                     `json:"type"`
					Properties map[string]json.RawMessage `json:"properties"`
					Required   []string                   `json:"required"`
				} `json:"parameters"`
			} `json:"tools"`
		}
		s.call("tools.list", nil, &tl)
		want := map[string]string{ // tool → required list
			"recall_memories": "query", "search_episodes": "", "search_recent_conversation": "",
			"search_knowledge": "", "add_intention": "what", "complete_intention": "intention_id",
			"cancel_intention": "intention_id", "list_intentions": "",
		}
		if len(tl.Tools) != len(want) {
			t.Fatalf("%d tools, want %d", len(tl.Tools), len(want))
		}
		for _, tool := range tl.Tools {
			req, ok := want[tool.Name]
			if !ok || tool.Description == "" || tool.Parameters.Type != "object" || strings.Join(tool.Parameters.Required, ",") != req {
				t.Fatalf("bad tool %+v", tool)
			}
		}
		var limit struct {
			Type    string `json:"type"`
			Default int    `json:"default"`
		}
		json.Unmarshal(tl.Tools[0].Parameters.Properties["limit"], &limit)
		if limit.Type != "integer" || limit.Default != 5 {
			t.Fatalf("recall_memories.limit = %+v", limit)
		}
	})

	t.Run("recall tools", func(t *testing.T) {
		s.t = t
		out := s.tool("recall_memories", map[string]any{"query": "docker build cache BuildKit"})
		mustContain(t, "recall", out, "docker-build-cache", `matched "docker"`, "· memory/knowledge/docker-build-cache/SKILL.md\n")
		out = s.tool("recall_memories", map[string]any{"query": "团队成员"})
		mustContain(t, "cjk recall", out, "团队成员")
		out = s.tool("search_knowledge", map[string]any{"query": "", "entry_type": "experience"})
		mustContain(t, "search_knowledge listing", out, "docker-build-cache")
		out = s.tool("search_episodes", map[string]any{})
		mustContain(t, "search_episodes listing", out, "2026-11-20_001")
		out = s.tool("recall_memories", map[string]any{"query": "broken header nobody can parse"})
		if strings.Contains(out, "broken-yaml") {
			t.Fatalf("an unparsable file was recalled:\n%s", out)
		}
	})

	t.Run("intentions", func(t *testing.T) {
		s.t = t
		out := s.tool("add_intention", map[string]any{"what": "续费域名 example.com", "due": "2099-12-01", "cue": "域名", "priority": "high"})
		id := regexp.MustCompile(`pi-\d{8}-\d{3}`).FindString(out)
		if id == "" {
			t.Fatalf("no id in %q", out)
		}
		mustContain(t, "list", s.tool("list_intentions", nil), id, "pi-20261129-001")
		mustContain(t, "complete", s.tool("complete_intention", map[string]any{"intention_id": id}), "Completed", id)
		mustContain(t, "complete again", s.tool("complete_intention", map[string]any{"intention_id": id}), "No open intention")
		code, msg := s.callErr("tools.call", map[string]any{"name": "cancel_intention", "args": map[string]any{"intention_id": "../../knowledge/docker-build-cache"}})
		if code != -32602 || !strings.Contains(msg, "not an intention id") {
			t.Fatalf("traversal id: %d %s", code, msg)
		}
		code, _ = s.callErr("tools.call", map[string]any{"name": "add_intention", "args": map[string]any{"what": "x", "due": "someday maybe"}})
		if code != -32602 {
			t.Fatalf("bad due: code %d", code)
		}
		// A fresh add never reuses the completed id.
		out2 := s.tool("add_intention", map[string]any{"what": "another"})
		if strings.Contains(out2, id+":") {
			t.Fatalf("id %s reused: %s", id, out2)
		}
	})

	t.Run("sessions", func(t *testing.T) {
		s.t = t
		var r map[string]any
		s.call("session.append", map[string]any{"sessionId": "chat-9", "role": "user", "text": "我的 token=hunter2secret 放在哪里？", "userId": "alice", "chatType": "direct"}, &r)
		if r["ok"] != true || r["skipped"] != nil {
			t.Fatalf("append = %v", r)
		}
		s.call("session.append", map[string]any{"sessionId": "chat-9", "role": "user", "text": "   "}, &r)
		if r["skipped"] != "empty" {
			t.Fatalf("blank append = %v", r)
		}
		s.call("session.append", map[string]any{"sessionId": "chat-9", "role": "assistant", "text": "在 vault 里，别贴出来。"}, &r)
		s.call("session.tool", map[string]any{"sessionId": "chat-9", "call": map[string]any{"cmd": "ls"}, "result": strings.Repeat("x", 1000), "reason": "look"}, &r)
		conv := s.tool("search_recent_conversation", map[string]any{"query": "vault"}, "sessionId", "chat-9")
		mustContain(t, "conversation search", conv, "This conversation", "vault")
		latest := s.tool("search_recent_conversation", map[string]any{}, "sessionId", "chat-9")
		mustContain(t, "latest turns", latest, "[REDACTED]", "别贴出来")
		var closed struct{ Path *string }
		s.call("session.close", map[string]any{"sessionId": "chat-9"}, &closed)
		if closed.Path == nil {
			t.Fatal("close returned no path")
		}
		log := testutil.ReadFile(t, *closed.Path)
		mustContain(t, "closed log", log, "chat_id: chat-9", "status: pending", "[agent]", "[tool]", "[REDACTED]")
		if strings.Contains(log, "hunter2secret") {
			t.Fatal("secret reached disk")
		}
		if strings.Count(log, "x") > 400 {
			t.Fatal("tool result not capped")
		}
		s.call("session.close", map[string]any{"sessionId": "never-opened"}, &closed)
		if closed.Path != nil {
			t.Fatalf("unknown session path = %v", *closed.Path)
		}
		// Traversal in ids and speaker labels never reaches the file system.
		s.call("session.append", map[string]any{"sessionId": "../../../evil", "role": "user", "text": "x", "userId": "../../evil", "speaker": "../evil]"}, nil)
		s.call("session.close", map[string]any{"sessionId": "../../../evil"}, &closed)
		if closed.Path == nil || !strings.HasPrefix(*closed.Path, filepath.Join(dir, "memory", "session-log")+string(filepath.Separator)) {
			t.Fatalf("traversal session log path: %v", closed.Path)
		}
		filepath.Walk(filepath.Dir(dir), func(p string, info os.FileInfo, err error) error {
			if err == nil && strings.Contains(info.Name(), "evil") {
				t.Errorf("traversal created %s", p)
			}
			return nil
		})
		s.call("session.append", map[string]any{"sessionId": "a", "role": "user", "text": "one"}, nil)
		s.call("session.append", map[string]any{"sessionId": "b", "role": "user", "text": "two"}, nil)
		var all struct{ Closed int }
		s.call("session.closeAll", nil, &all)
		if all.Closed != 2 {
			t.Fatalf("closeAll = %d", all.Closed)
		}
	})

	t.Run("assoc", func(t *testing.T) {
		s.t = t
		var a struct {
			Items []map[string]any `json:"items"`
			Hint  *string          `json:"hint"`
		}
		s.call("assoc.thought", map[string]any{"sessionId": "s", "cue": "docker build fails with --mount"}, &a)
		if a.Items == nil || a.Hint == nil {
			t.Fatalf("assoc.thought shape: %+v", a)
		}
		s.call("assoc.action", map[string]any{"sessionId": "s", "toolName": "bash", "args": map[string]any{"command": "docker build ."}}, &a)
		if a.Items == nil || a.Hint == nil {
			t.Fatalf("assoc.action shape: %+v", a)
		}
		var ok map[string]bool
		s.call("assoc.reset", map[string]any{"sessionId": "s"}, &ok)
		if !ok["ok"] {
			t.Fatal("assoc.reset")
		}
	})

	t.Run("sleep and index", func(t *testing.T) {
		s.t = t
		var st struct {
			Sleeping    bool
			PendingLogs int
			LLM         string
		}
		s.call("sleep.status", nil, &st)
		if st.Sleeping || st.LLM != "host" || st.PendingLogs < 2 {
			t.Fatalf("sleep.status = %+v", st)
		}
		var ok map[string]bool
		s.call("index.sync", map[string]any{"reason": "test"}, &ok)
		s.call("sleep.cancel", nil, &ok)
		if !ok["ok"] {
			t.Fatal("sleep.cancel")
		}
		// A host whose llm.chat fails: the dream reports an error, the sidecar survives.
		s.mu.Lock()
		s.onCall = func(w wire) (any, *wireErr) {
			if w.Method != "llm.chat" || !strings.HasPrefix(string(w.ID), `"somni-`) {
				t.Errorf("unexpected reverse call %s", w.raw)
			}
			return nil, &wireErr{Code: -32000, Message: "model offline"}
		}
		s.mu.Unlock()
		var run struct {
			Status, Reason string
		}
		s.call("sleep.run", map[string]any{"trigger": "test"}, &run)
		if run.Status != "error" && run.Status != "interrupted" {
			t.Fatalf("sleep.run = %+v", run)
		}
		s.call("ping", nil, nil)
	})

	// The broken file was reported with its line and never rewritten.
	if got := testutil.ReadFile(t, brokenPath); got != broken {
		t.Fatal("unparsable file was rewritten")
	}
	s.t = t
	s.call("shutdown", nil, nil)
	if code := s.waitExit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	mustContain(t, "stderr", s.stderr.String(), "broken-yaml/SKILL.md:", " WARNING ")
	s.assertProtocolOnly()
}

// TestStopClosesSessions: stdin EOF and SIGTERM both finalise open session
// logs and exit 0.
func TestStopClosesSessions(t *testing.T) {
	for _, how := range []string{"eof", "sigterm", "sigint"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			s := start(t, dir, nil)
			s.call("session.append", map[string]any{"sessionId": "x", "role": "user", "text": "hello " + how}, nil)
			switch how {
			case "eof":
				s.stdin.Close()
			case "sigterm":
				s.cmd.Process.Signal(syscall.SIGTERM)
			case "sigint":
				s.cmd.Process.Signal(syscall.SIGINT)
			}
			if code := s.waitExit(); code != 0 {
				t.Fatalf("exit %d", code)
			}
			logs, _ := filepath.Glob(filepath.Join(dir, "memory/session-log/*.md"))
			if len(logs) != 1 {
				t.Fatalf("logs: %v", logs)
			}
			mustContain(t, "log", testutil.ReadFile(t, logs[0]), "status: pending", "hello "+how, "end_time:")
		})
	}
}

// TestArgs checks the compat argv: the Python launch line is accepted.
func TestArgs(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binPath, "-m", "somni_memory", "--data-dir", dir, "--llm", "openai", "--embed", "off",
		"--assoc-threshold", "0.6", "--assoc-gap", "0.05", "--assoc-max-items", "0", "--log-level", "WARNING")
	cmd.Env = append(os.Environ(), "SLEEP_API_KEY=", "OPENAI_API_KEY=", "SLEEP_MODEL=", "OPENAI_MODEL=")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	var w wire
	if err := json.Unmarshal(out, &w); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	var p struct{ LLM string }
	json.Unmarshal(w.Result, &p)
	if p.LLM != "none" {
		t.Fatalf("openai without key: llm = %q, want none", p.LLM)
	}
	bad := exec.Command(binPath, "--llm", "gpt")
	if err := bad.Run(); err == nil {
		t.Fatal("--llm gpt accepted")
	}
}

// TestCLI runs the people-facing subcommands on the Python-format fixture.
func TestCLI(t *testing.T) {
	dir := testutil.Pydata(t)
	run := func(args ...string) (string, int) {
		return runCLI(t, append([]string{"--data-dir", dir, "--embed", "off", "--log-level", "error"}, args...)...)
	}
	out, code := run("recall", "BuildKit cache")
	if code != 0 || !strings.Contains(out, "docker-build-cache") {
		t.Fatalf("recall (%d): %s", code, out)
	}
	out, code = run("doctor")
	if code != 1 {
		t.Fatalf("doctor exit %d, want 1:\n%s", code, out)
	}
	mustContain(t, "doctor", out, "broken-yaml/SKILL.md:", "unparsable")
	if !regexp.MustCompile(`broken-yaml/SKILL\.md:\d+: unparsable`).MatchString(out) {
		t.Fatalf("doctor does not give path:line:\n%s", out)
	}
	out, code = run("stats", "--json")
	if code != 0 {
		t.Fatalf("stats exit %d", code)
	}
	var st struct {
		Entries    map[string]int
		Unparsable int
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("stats json: %v\n%s", err, out)
	}
	if st.Entries["knowledge"] != 3 || st.Unparsable != 1 {
		t.Fatalf("stats = %+v", st)
	}
	// A clean directory passes.
	clean := t.TempDir()
	cmd := exec.Command(binPath, "--data-dir", clean, "doctor")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("doctor on an empty dir: %v\n%s", err, out)
	}
}

// TestKill9DuringWriteBurst kills the sidecar mid-burst and restarts it:
// every acknowledged append is on disk, every file parses, nothing is
// half-written.
func TestKill9DuringWriteBurst(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, nil)
	const sessions, perSession = 4, 150
	type sent struct {
		text string
		ch   chan wire
	}
	var all []sent
	var firstIntent chan wire
	for i := 0; i < perSession; i++ {
		for j := 0; j < sessions; j++ {
			text := strings.Repeat("内容", 40) + " marker-" + itoa(j) + "-" + itoa(i)
			_, ch := s.send("session.append", map[string]any{"sessionId": "burst-" + itoa(j), "role": "user", "text": text})
			all = append(all, sent{text, ch})
		}
		if i%10 == 0 {
			_, ch := s.send("tools.call", map[string]any{"name": "add_intention", "args": map[string]any{"what": "burst " + itoa(i)}})
			if firstIntent == nil {
				firstIntent = ch
			}
		}
	}
	// Wait for a good part of the burst (and one intention: requests run
	// concurrently, so none may have finished yet), then kill -9 while the
	// rest is in flight.
	s.wait(firstIntent, "add_intention")
	acked := map[string]bool{}
	for _, x := range all[:len(all)/2] {
		w := s.wait(x.ch, "append")
		if w.Error == nil {
			acked[x.text] = true
		}
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	for _, x := range all[len(all)/2:] {
		select {
		case w := <-x.ch:
			if w.Error == nil {
				acked[x.text] = true
			}
		default:
		}
	}

	// Every acknowledged message is on disk. A log may end in a torn,
	// unacknowledged block (SIGKILL can stop a write(2) between pages): the
	// restart below must finalise it.
	logs, _ := filepath.Glob(filepath.Join(dir, "memory/session-log/*.md"))
	var disk strings.Builder
	before := map[string]string{}
	for _, l := range logs {
		before[l] = testutil.ReadFile(t, l)
		disk.WriteString(before[l])
	}
	for text := range acked {
		if !strings.Contains(disk.String(), text) {
			t.Fatalf("acknowledged append lost: %q", text[len(text)-20:])
		}
	}
	intents, _ := filepath.Glob(filepath.Join(dir, "memory/intentions/*/INTENT.md"))
	for _, p := range intents {
		if _, err := frontmatter.Parse(p, []byte(testutil.ReadFile(t, p))); err != nil {
			t.Fatalf("half-written intention %s: %v", p, err)
		}
	}
	if len(intents) == 0 {
		t.Fatal("no intention was written before the kill")
	}

	// Restart: the sidecar serves, nothing is unparsable, and writing resumes.
	s2 := start(t, dir, nil)
	var p map[string]any
	s2.call("ping", nil, &p)
	kept := logs[:0]
	for _, l := range logs {
		if _, err := os.Stat(l); os.IsNotExist(err) {
			// The restart removes a log left without a block (one made ahead
			// for the next rotation): nothing was said in it.
			if n := len(sessionlog.Parse(l, []byte(before[l])).Blocks); n > 0 {
				t.Fatalf("the restart removed %s, which held %d blocks", l, n)
			}
			continue
		}
		kept = append(kept, l)
	}
	logs = kept
	for _, l := range logs {
		doc, err := frontmatter.Parse(l, []byte(testutil.ReadFile(t, l)))
		if err != nil {
			t.Fatalf("log not repaired by the restart %s: %v", l, err)
		}
		if doc.Meta.Value("status") != sessionlog.StatusPending {
			t.Fatalf("log left open by the kill not finalised: %s", l)
		}
	}
	disk.Reset()
	for _, l := range logs {
		disk.WriteString(testutil.ReadFile(t, l))
	}
	for text := range acked {
		if !strings.Contains(disk.String(), text) {
			t.Fatalf("repair cut an acknowledged append: %q", text[len(text)-20:])
		}
	}
	s2.call("session.append", map[string]any{"sessionId": "burst-0", "role": "user", "text": "after restart"}, nil)
	s2.call("shutdown", nil, nil)
	s2.waitExit()
	out, err := exec.Command(binPath, "--data-dir", dir, "doctor").CombinedOutput()
	if err != nil {
		t.Fatalf("doctor after kill -9: %v\n%s", err, out)
	}
	s2.assertProtocolOnly()
	t.Logf("%d appends acknowledged before kill -9, %d logs, %d intentions", len(acked), len(logs), len(intents))
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestSessionOrderAcrossSessions pipelines interleaved appends and tool
// records for two sessions (several log rotations each), then
// session.closeAll, then one more append, all without waiting. Session
// methods run per session, side by side, so this checks what the host
// relies on: each session's log holds its messages in the order sent,
// closeAll finalised every earlier message (message_count matches), and the
// append after closeAll opened a fresh log.
func TestSessionOrderAcrossSessions(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, nil)
	sessions := []string{"alpha", "beta"}
	const perSession = 240 // ~300-byte blocks: a 24 KiB rotation every ~80
	filler := strings.Repeat("ordering text ", 20)
	var replies []chan wire
	for i := 0; i < perSession; i++ {
		for _, sid := range sessions {
			mark := fmt.Sprintf("mk-%s-%04d", sid, i)
			var ch chan wire
			if i%9 == 4 {
				_, ch = s.send("session.tool", map[string]any{"sessionId": sid, "call": "lookup " + mark, "result": "ok"})
			} else {
				_, ch = s.send("session.append", map[string]any{"sessionId": sid, "role": "user", "text": filler + mark})
			}
			replies = append(replies, ch)
		}
	}
	_, closeAll := s.send("session.closeAll", nil)
	_, after := s.send("session.append", map[string]any{"sessionId": "alpha", "role": "agent", "text": "mk-after-closeAll"})
	for _, ch := range replies {
		if w := s.wait(ch, "session write"); w.Error != nil {
			t.Fatalf("session write failed: %s", w.raw)
		}
	}
	var closed struct{ Closed int }
	if w := s.wait(closeAll, "closeAll"); w.Error != nil || json.Unmarshal(w.Result, &closed) != nil || closed.Closed != 2 {
		t.Fatalf("closeAll = %s, want closed 2", w.raw)
	}
	if w := s.wait(after, "append after closeAll"); w.Error != nil {
		t.Fatalf("append after closeAll: %s", w.raw)
	}

	logs, _ := filepath.Glob(filepath.Join(dir, "memory/session-log/*.md"))
	sort.Strings(logs) // YYYY-MM-DD_NNN: a session's files are numbered in the order it opened them
	markRe := regexp.MustCompile(`mk-(alpha|beta)-(\d{4})`)
	blockRe := regexp.MustCompile(`(?m)^\[(user|agent|tool)[^\]\n]*\] `)
	next := map[string]int{}
	files := map[string]int{}
	afterLogs := 0
	for _, p := range logs {
		data := testutil.ReadFile(t, p)
		doc, err := frontmatter.Parse(p, []byte(data))
		if err != nil {
			t.Fatalf("log %s: %v", p, err)
		}
		if strings.Contains(data, "mk-after-closeAll") {
			afterLogs++
			if doc.Meta.Value("chat_id") != "alpha" || markRe.MatchString(data) || doc.Meta.Value("status") != "" {
				t.Fatalf("the append after closeAll must open a new, still open alpha log:\n%s", data)
			}
			continue
		}
		sid := doc.Meta.Value("chat_id")
		files[sid]++
		for _, m := range markRe.FindAllStringSubmatch(data, -1) {
			if m[1] != sid {
				t.Fatalf("%s (session %s) holds a message of %s", p, sid, m[1])
			}
			if n, _ := strconv.Atoi(m[2]); n != next[sid] {
				t.Fatalf("session %s: message %d where %d was due (%s)", sid, n, next[sid], p)
			}
			next[sid]++
		}
		// closeAll saw every earlier write: the log is finalised and counts them all.
		blocks := len(blockRe.FindAllString(doc.Body, -1))
		if doc.Meta.Value("status") != "pending" || doc.Meta.Value("end_time") == "" || doc.Meta.Value("message_count") != strconv.Itoa(blocks) {
			t.Fatalf("%s not finalised with its %d blocks: status=%q end_time=%q message_count=%q", p, blocks,
				doc.Meta.Value("status"), doc.Meta.Value("end_time"), doc.Meta.Value("message_count"))
		}
	}
	for _, sid := range sessions {
		if next[sid] != perSession || files[sid] < 2 {
			t.Fatalf("session %s: %d of %d messages in %d files (want all, with rotation)", sid, next[sid], perSession, files[sid])
		}
	}
	if afterLogs != 1 {
		t.Fatalf("append after closeAll found in %d logs, want 1", afterLogs)
	}
	s.call("shutdown", nil, nil)
	if code := s.waitExit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s.assertProtocolOnly()
}

// TestConversationSearch: the current session comes first, other logs
// after, and the char budget drops the oldest turns, never the newest.
func TestConversationSearch(t *testing.T) {
	s := start(t, t.TempDir(), nil, "CONV_SEARCH_CHAR_BUDGET=600")
	s.call("session.append", map[string]any{"sessionId": "old", "role": "user", "text": "alpha: the kiwi supplier changed last month"}, nil)
	s.call("session.close", map[string]any{"sessionId": "old"}, nil)
	for i := 0; i < 30; i++ {
		s.call("session.append", map[string]any{"sessionId": "cur", "role": "user", "text": "turn " + itoa(i) + " talking about kiwi shipments " + strings.Repeat("·", 30)}, nil)
	}
	latest := s.tool("search_recent_conversation", map[string]any{}, "sessionId", "cur")
	mustContain(t, "latest", latest, "## This conversation", "turn 29 ")
	if strings.Contains(latest, "turn 0 ") || strings.Contains(latest, "alpha") {
		t.Fatalf("budget kept old turns or another session:\n%s", latest)
	}
	if n := len([]rune(latest)); n > 900 {
		t.Fatalf("output %d runes ignores the 600 budget", n)
	}
	hit := s.tool("search_recent_conversation", map[string]any{"query": "supplier"}, "sessionId", "cur")
	mustContain(t, "fallback to older logs", hit, "## Earlier conversations", "alpha")
	if strings.Contains(hit, "## This conversation") {
		t.Fatalf("current session has no 'supplier' turn:\n%s", hit)
	}
	both := s.tool("search_recent_conversation", map[string]any{"query": "kiwi", "limit": 3}, "sessionId", "cur")
	if i, j := strings.Index(both, "## This conversation"), strings.Index(both, "alpha"); i < 0 || (j >= 0 && j < i) {
		t.Fatalf("current session not first:\n%s", both)
	}
	s.call("shutdown", nil, nil)
	s.waitExit()
	s.assertProtocolOnly()
}

// TestDreamOverReverseCalls runs sleep.run against a fake host model
// answering the sidecar's reverse llm.chat calls.
func TestDreamOverReverseCalls(t *testing.T) {
	dir := testutil.Pydata(t)
	s := start(t, dir, nil)
	var calls atomic.Int32
	s.mu.Lock()
	s.onCall = func(w wire) (any, *wireErr) {
		var p struct {
			Messages []map[string]any `json:"messages"`
			Tools    []struct {
				Type     string                `json:"type"`
				Function struct{ Name string } `json:"function"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(w.Params, &p); err != nil || len(p.Messages) == 0 || len(p.Tools) == 0 || p.Tools[0].Type != "function" {
			t.Errorf("llm.chat params malformed: %s", w.raw)
		}
		n := calls.Add(1)
		usage := map[string]int{"prompt_tokens": 100, "completion_tokens": 10}
		if n == 1 {
			return map[string]any{"message": map[string]any{"role": "assistant", "content": "",
				"tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "list_items", "arguments": `{"scope":"knowledge"}`}}}}, "usage": usage}, nil
		}
		return map[string]any{"message": map[string]any{"role": "assistant", "content": "梦见了 docker"}, "usage": usage}, nil
	}
	s.mu.Unlock()
	var run struct {
		Status, Summary, Reason string
		TokenUsage              *struct{ PromptTokens, CompletionTokens, TotalTokens int } `json:"token_usage"`
	}
	s.call("sleep.run", map[string]any{"trigger": "test"}, &run)
	if run.Status != "deep_sleep" || run.Summary != "梦见了 docker" || run.TokenUsage == nil {
		t.Fatalf("sleep.run = %+v", run)
	}
	if calls.Load() != 2 {
		t.Fatalf("%d llm.chat calls, want 2", calls.Load())
	}

	s.call("shutdown", nil, nil)
	if code := s.waitExit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s.assertProtocolOnly()
}

// TestAbandonedModelCallIsCancelledAtHost interrupts a dream whose llm.chat
// hangs, in each way the host can: the host must receive
// `$/cancelRequest` for that call's id (so it stops its model stream and the
// tokens it costs), the dream ends interrupted, and the late answer the host
// sends anyway is ignored.
func TestAbandonedModelCallIsCancelledAtHost(t *testing.T) {
	tests := []struct {
		name    string
		abandon func(s *proc, sleepID string)
	}{
		{"sleep.cancel", func(s *proc, _ string) { s.call("sleep.cancel", nil, nil) }},
		{"host cancels sleep.run", func(s *proc, sleepID string) {
			s.sendRaw(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + sleepID + `}}`)
		}},
	}
	s := start(t, testutil.Pydata(t), nil)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.t = t
			chats := make(chan wire, 4)
			release := make(chan struct{})
			defer close(release)
			s.mu.Lock()
			s.onCall = func(w wire) (any, *wireErr) {
				chats <- w
				<-release // the model never answers in time
				return map[string]any{"message": map[string]any{"role": "assistant", "content": "late"}}, nil
			}
			s.mu.Unlock()
			sid := "hang-" + itoa(i)
			s.call("session.append", map[string]any{"sessionId": sid, "role": "user", "text": "material worth a dream " + sid}, nil)
			s.call("session.close", map[string]any{"sessionId": sid}, nil)
			sleepID, ch := s.send("sleep.run", map[string]any{"trigger": "test"})
			var chat wire
			select {
			case chat = <-chats:
			case <-time.After(20 * time.Second):
				t.Fatal("the dream never called llm.chat")
			}
			if chat.Method != "llm.chat" || !strings.HasPrefix(string(chat.ID), `"somni-`) {
				t.Fatalf("reverse call = %s", chat.raw)
			}
			tc.abandon(s, sleepID)
			w := s.wait(ch, "abandoned sleep.run")
			var run struct{ Status string }
			if w.Error != nil || json.Unmarshal(w.Result, &run) != nil || run.Status != "interrupted" {
				t.Fatalf("abandoned dream = %s, want status interrupted", w.raw)
			}
			s.waitNote(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + string(chat.ID) + `}}`)
		})
		s.t = t
		s.call("ping", nil, nil) // the late llm.chat reply (sent on release) was ignored
	}
	var st struct{ Sleeping bool }
	s.call("sleep.status", nil, &st)
	if st.Sleeping {
		t.Fatal("still sleeping after the dreams were interrupted")
	}
	s.call("shutdown", nil, nil)
	if code := s.waitExit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s.assertProtocolOnly()
}

// TestHandEditsFoundWithoutRestart edits memory files behind the running
// binary's back and expects recall to see each change without a restart
// (through the index's 2 s mtime rescan; the file watcher is not wired, see
// sidecar.scanInterval).
func TestHandEditsFoundWithoutRestart(t *testing.T) {
	const window = 10 * time.Second // ≫ the 2 s rescan interval
	dir := testutil.Pydata(t)
	s := start(t, dir, nil)
	recall := func(query string) string {
		return s.tool("recall_memories", map[string]any{"query": query, "limit": 10})
	}
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(name, desc, body string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\ntype: fact\nstability: 1\nscore: 0.6\ncreated: 2026-11-01\nlast_used: 2026-11-01\nlast_decay: 2026-11-01\n---\n\n" + body + "\n"
	}
	// poll searches until seen(out) or the deadline.
	poll := func(query string, seen func(string) bool, deadline time.Time) (time.Time, bool) {
		for {
			sent := time.Now()
			if seen(recall(query)) {
				return sent, true
			}
			if time.Now().After(deadline) {
				return sent, false
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	has := func(w string) func(string) bool { return func(out string) bool { return strings.Contains(out, w) } }
	lacks := func(w string) func(string) bool { return func(out string) bool { return !strings.Contains(out, w) } }

	recall("warm up") // the startup sync has finished

	docker := testutil.ReadFile(t, filepath.Join(dir, "memory/knowledge/docker-build-cache/SKILL.md"))
	tests := []struct {
		name  string
		edit  func()
		query string
		seen  func(string) bool
	}{
		{"edit an existing entry", func() {
			write("memory/knowledge/docker-build-cache/SKILL.md",
				strings.Replace(docker, "Use `RUN", "zebracornflakes: use `RUN", 1))
		}, "zebracornflakes", has("docker-build-cache")},
		{"new knowledge entry", func() {
			write("memory/knowledge/tide-tables/SKILL.md", entry("tide-tables", "marmosetquill tide tables for the harbour", "high tide at six"))
		}, "marmosetquill", has("tide-tables")},
		{"new user skill collection", func() {
			write("skills/team_skills/release-notes/SKILL.md", entry("release-notes", "pangolinbrass how to write release notes", "steps"))
		}, "pangolinbrass", has("release-notes")},
		{"new episode", func() {
			write("memory/episodes/2026-11-30_001/SKILL.md", "---\nname: 2026-11-30_001\ndescription: axolotlferry harbour trip\nsalience: mid\nstability: 1\nscore: 0.6\ncreated: 2026-11-30\nlast_used: 2026-11-30\nlast_decay: 2026-11-30\n---\n\nwe took the ferry\n")
		}, "axolotlferry", has("2026-11-30_001")},
		{"deleted entry", func() {
			if err := os.RemoveAll(filepath.Join(dir, "memory/knowledge/tide-tables")); err != nil {
				t.Fatal(err)
			}
		}, "marmosetquill", lacks("tide-tables")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.t = t
			tc.edit()
			if _, ok := poll(tc.query, tc.seen, time.Now().Add(window)); !ok {
				t.Fatalf("change not recalled within %v", window)
			}
		})
	}
	s.t = t
	s.assertProtocolOnly()
}

// TestHugeInputs: a 10 MB frame and a 1 MB message or query are served
// without blowing up the reply, the memory stays readable and the process
// keeps answering.
func TestHugeInputs(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, nil)
	mega := strings.Repeat("tea ", 256<<10) // 1 MiB
	s.call("session.append", map[string]any{"sessionId": "big", "role": "user", "text": mega}, nil)
	s.call("session.append", map[string]any{"sessionId": "big", "role": "user", "text": strings.Repeat("x", 10<<20)}, nil)
	s.call("session.append", map[string]any{"sessionId": "big", "role": "agent", "text": "small reply"}, nil)
	// Every other field of the capture methods is bounded too.
	s.call("session.append", map[string]any{"sessionId": "meta", "role": "user", "text": "hi",
		"userId": strings.Repeat("u", 1<<20), "chatType": mega, "speaker": mega}, nil)
	s.call("session.tool", map[string]any{"sessionId": "meta", "call": mega, "result": mega, "reason": mega}, nil)
	var meta struct {
		Path string `json:"path"`
	}
	s.call("session.close", map[string]any{"sessionId": "meta"}, &meta)
	if n := len(testutil.ReadFile(t, meta.Path)); n > 64<<10 {
		t.Fatalf("session log with 1 MiB userId/chatType/speaker/call/reason is %d bytes", n)
	}
	tests := []struct{ tool string }{
		{"recall_memories"}, {"search_episodes"}, {"search_knowledge"}, {"search_recent_conversation"},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			s.t = t
			out := s.tool(tc.tool, map[string]any{"query": mega}, "sessionId", "big")
			// The model should never get its megabyte query echoed back.
			if len(out) > 64<<10 {
				t.Fatalf("%s answered %d bytes for a 1 MiB query: %.200s", tc.tool, len(out), out)
			}
		})
	}
	s.t = t
	var closed struct {
		Path string `json:"path"`
	}
	s.call("session.close", map[string]any{"sessionId": "big"}, &closed)
	log := testutil.ReadFile(t, closed.Path)
	if len(log) > 64<<10 {
		t.Fatalf("session log is %d bytes: messages were not capped", len(log))
	}
	mustContain(t, "log", log, "status: pending", "small reply")
	var p map[string]any
	s.call("ping", nil, &p)
	s.call("shutdown", nil, nil)
	if code := s.waitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	s.assertProtocolOnly()
}

// TestParseArgs checks argv and the compat environment in-process; a value
// that is set but unusable is a startup error naming it, never silently
// the default.
func TestParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(t *testing.T, o *options)
		wantErr string
	}{
		{name: "python launch line", args: []string{"-m", "somni_memory", "--data-dir", "/d", "--assoc-max-items", "0"},
			check: func(t *testing.T, o *options) {
				if o.cfg.DataDir != "/d" || o.cfg.Assoc.MaxItems != 1 || o.command != "" {
					t.Fatalf("cfg = %+v, command %q", o.cfg, o.command)
				}
			}},
		{name: "absent gate flags keep assoc's defaults", args: []string{"--data-dir", "/d"},
			check: func(t *testing.T, o *options) {
				a := o.cfg.Assoc
				if a.Threshold != assoc.DefaultThreshold || a.Gap != assoc.DefaultGap || a.MaxItems != assoc.DefaultMaxItems {
					t.Fatalf("assoc = %+v", a)
				}
			}},
		{name: "gate flags", args: []string{"--assoc-threshold", "0.6", "--assoc-gap", "0.05", "--assoc-max-items", "3"},
			check: func(t *testing.T, o *options) {
				if a := o.cfg.Assoc; a.Threshold != 0.6 || a.Gap != 0.05 || a.MaxItems != 3 {
					t.Fatalf("assoc = %+v", a)
				}
			}},
		{name: "env honoured", args: []string{"--data-dir", "/d"},
			env: map[string]string{"MEMORY_ROOT_PATH": "/m", "SKILL_ROOT_PATH": "/s", "SOMNI_EMBED_PROVIDER": "hash",
				"SOMNI_COS_FLOOR": "0.3", "SOMNI_COS_SPAN": "0.5", "CONV_SEARCH_CHAR_BUDGET": "500", "SLEEP_MAX_ITERS": "7"},
			check: func(t *testing.T, o *options) {
				c := o.cfg
				if c.MemoryDir != "/m" || c.SkillDir != "/s" || c.Embed.Provider != "hash" || c.ConvCharBudget != 500 || c.MaxIters != 7 {
					t.Fatalf("cfg = %+v", c)
				}
				if c.Calibration == nil || c.Calibration.Floor != 0.3 || c.Calibration.Span != 0.5 {
					t.Fatalf("calibration = %+v", c.Calibration)
				}
			}},
		{name: "flag beats env", args: []string{"--embed", "off"}, env: map[string]string{"SOMNI_EMBED_PROVIDER": "hash"},
			check: func(t *testing.T, o *options) {
				if o.cfg.Embed.Provider != "off" {
					t.Fatalf("embed = %q", o.cfg.Embed.Provider)
				}
			}},
		{name: "unknown flag", args: []string{"--bogus"}, wantErr: "-bogus"},
		{name: "bad embed env", env: map[string]string{"SOMNI_EMBED_PROVIDER": "gpu"}, wantErr: `"gpu"`},
		{name: "bad cos floor", env: map[string]string{"SOMNI_COS_FLOOR": "abc"}, wantErr: "SOMNI_COS_FLOOR"},
		{name: "bad cos span", env: map[string]string{"SOMNI_COS_SPAN": "-1"}, wantErr: "SOMNI_COS_SPAN"},
		{name: "bad conv budget", env: map[string]string{"CONV_SEARCH_CHAR_BUDGET": "lots"}, wantErr: "CONV_SEARCH_CHAR_BUDGET"},
		{name: "bad max iters", env: map[string]string{"SLEEP_MAX_ITERS": "0x10"}, wantErr: "SLEEP_MAX_ITERS"},
		{name: "bad max logs", env: map[string]string{"SLEEP_MAX_LOGS": "-2"}, wantErr: "SLEEP_MAX_LOGS"},
		{name: "bad timezone", args: []string{"--timezone", "UTC+8"}, wantErr: "--timezone"},
		{name: "bad test clock", env: map[string]string{"SOMNI_TEST_NOW": "tomorrow"}, wantErr: "SOMNI_TEST_NOW"},
		{name: "timezone", args: []string{"--timezone", "Asia/Tokyo"},
			check: func(t *testing.T, o *options) {
				if o.cfg.Location == nil || o.cfg.Location.String() != "Asia/Tokyo" {
					t.Fatalf("location = %v", o.cfg.Location)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseArgs(tc.args, func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, o)
		})
	}
}

// TestPingVectorNotStale: the host's readiness ping comes before the index
// has opened; once a search has waited for it, ping must say vector true at
// once, not repeat the startup answer for the cache's lifetime.
func TestPingVectorNotStale(t *testing.T) {
	s := start(t, testutil.Pydata(t), []string{"--embed", "hash"})
	var p struct {
		Vector bool `json:"vector"`
	}
	s.call("ping", nil, &p) // typically before the index is ready
	s.tool("recall_memories", map[string]any{"query": "gateway 503"})
	s.call("ping", nil, &p)
	if !p.Vector {
		t.Fatal("ping says vector false after a search with the hash embedder")
	}
	s.call("shutdown", nil, nil)
	if code := s.waitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
