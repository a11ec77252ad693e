package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/mcpserver"
	"github.com/somni-dev/somni/internal/testutil"
)

// A fixed clock and zone: both protocols must resolve "tomorrow" and
// allocate intention ids alike.
var (
	mcpArgs = []string{"--timezone", "UTC"}
	mcpEnv  = "SOMNI_TEST_NOW=2026-11-29T09:00:00Z"
)

// mcpOnlyTools are the tools MCP clients get beyond tools.list.
var mcpOnlyTools = []string{"remember", "dream_status", "dream_now"}

// TestMCPMatchesJSONRPC runs the JSON-RPC sidecar and the MCP server on two
// copies of one data dir and makes the same calls: tool names and schemas,
// every work tool's result (errors included), the resources against the
// files and the prompt against prompt.build must agree; dream_now without
// sampling says what it needs; stdout carries only MCP frames.
func TestMCPMatchesJSONRPC(t *testing.T) {
	rpcDir, mcpDir := testutil.Pydata(t), testutil.Pydata(t)
	rpc := start(t, rpcDir, mcpArgs, mcpEnv)
	m := startMCP(t, mcpDir, nil, mcpArgs, mcpEnv)

	if got := m.cs.InitializeResult(); got.ServerInfo.Name != "somni" || !strings.Contains(got.Instructions, "recall_memories") {
		t.Errorf("initialize: server %+v, instructions %q", got.ServerInfo, got.Instructions)
	}
	// The SDK client asks for 2026-07-28 first; sampling needs the server
	// to fall back to the newest version with server-initiated requests.
	if v := m.cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated protocol %s, want 2025-11-25", v)
	}

	var list struct {
		Tools []struct {
			Name        string
			Description string
			Parameters  json.RawMessage
		}
	}
	rpc.call("tools.list", nil, &list)
	listed, err := m.cs.ListTools(m.ctx(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*mcp.Tool{}
	for _, tl := range listed.Tools {
		names = append(names, tl.Name)
		byName[tl.Name] = tl
	}
	var want []string
	for _, tl := range list.Tools {
		want = append(want, tl.Name)
		got := byName[tl.Name]
		if got == nil {
			continue
		}
		if got.Description != tl.Description {
			t.Errorf("%s: description %q, tools.list says %q", tl.Name, got.Description, tl.Description)
		}
		if g, w := normJSON(t, got.InputSchema), normJSON(t, tl.Parameters); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: MCP schema %v\ntools.list %v", tl.Name, g, w)
		}
	}
	// The SDK lists tools by name; the set is what must agree.
	want = append(want, mcpOnlyTools...)
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("MCP tools %v, want %v", names, want)
	}

	// Every work tool, in an order where the later calls see the earlier
	// writes; bad calls must fail alike.
	calls := []struct {
		name string
		args map[string]any
		bad  bool
	}{
		{name: "recall_memories", args: map[string]any{"query": "docker build cache", "limit": 3}},
		{name: "recall_memories", args: map[string]any{"query": "gateway", "limit": 99, "junk": true}},
		{name: "recall_memories", args: map[string]any{"query": "x", "limit": "5"}, bad: true},
		{name: "recall_memories", args: map[string]any{}, bad: true},
		{name: "search_knowledge", args: map[string]any{"query": "docker"}},
		{name: "search_knowledge", args: map[string]any{}},
		{name: "search_episodes", args: map[string]any{}},
		{name: "search_episodes", args: map[string]any{"since": "someday soon"}, bad: true},
		{name: "search_recent_conversation", args: map[string]any{"query": "deploy"}},
		{name: "add_intention", args: map[string]any{"what": "renew the TLS certificate", "due": "tomorrow", "cue": "tls, cert"}},
		{name: "add_intention", args: map[string]any{"what": "  "}, bad: true},
		{name: "list_intentions", args: nil},
		{name: "complete_intention", args: map[string]any{"intention_id": "pi-20261129-002"}},
		{name: "cancel_intention", args: map[string]any{"intention_id": "pi-20261128-001"}},
		{name: "cancel_intention", args: map[string]any{"intention_id": "pi-20261128-001"}},
		{name: "complete_intention", args: map[string]any{"intention_id": "../x"}, bad: true},
		{name: "list_intentions", args: map[string]any{}},
	}
	seen := map[string]bool{}
	for _, c := range calls {
		seen[c.name] = true
		got, isErr := m.call(c.name, c.args)
		if c.bad {
			_, msg := rpc.callErr("tools.call", map[string]any{"name": c.name, "args": c.args})
			if !isErr || got != msg {
				t.Errorf("%s %v: MCP (isError %v) %q\nJSON-RPC error %q", c.name, c.args, isErr, got, msg)
			}
			continue
		}
		args := c.args
		if args == nil {
			args = map[string]any{}
		}
		if w := rpc.tool(c.name, args); isErr || got != w {
			t.Errorf("%s %v: MCP (isError %v)\n%s\nJSON-RPC\n%s", c.name, c.args, isErr, got, w)
		}
	}
	for _, tl := range list.Tools {
		if !seen[tl.Name] {
			t.Errorf("tool %s never called", tl.Name)
		}
	}

	// Resources: the files as they are now.
	res, err := m.cs.ListResources(m.ctx(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if w := []string{"somni://about_me", "somni://intentions", "somni://users/alice", "somni://users/default"}; !slices.Equal(uris, w) {
		t.Errorf("resources %v, want %v", uris, w)
	}
	tmpls, err := m.cs.ListResourceTemplates(m.ctx(), nil)
	if err != nil || len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != "somni://users/{user_id}" {
		t.Errorf("resource templates %+v %v", tmpls, err)
	}
	mem := filepath.Join(mcpDir, "memory")
	mustContain(t, "about_me", m.read("somni://about_me"), "# About me", firstBodyLine(t, filepath.Join(mem, "about_me.md")))
	mustContain(t, "default user", m.read("somni://users/default"), "# About the user", firstBodyLine(t, filepath.Join(mem, "about_user.md")))
	mustContain(t, "alice", m.read("somni://users/alice"), "# About the user alice", firstBodyLine(t, filepath.Join(mem, "users", "alice", "about_user.md")))
	mustContain(t, "unknown user", m.read("somni://users/nobody"), "Nothing known yet")
	intents := m.read("somni://intentions")
	mustContain(t, "intentions", intents, "# Open intentions", rpc.tool("list_intentions", map[string]any{}))
	if _, err := m.cs.ReadResource(m.ctx(), &mcp.ReadResourceParams{URI: "somni://users/..%2F..%2Fetc"}); err == nil {
		t.Error("a user id leaving users/ was read")
	}

	// The prompt is prompt.build's three sections.
	var pb struct{ Identity, Intentions, Discipline string }
	rpc.call("prompt.build", map[string]any{"currentMessage": "域名 renewal"}, &pb)
	prompts, err := m.cs.ListPrompts(m.ctx(), nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != mcpserver.PromptName {
		t.Fatalf("prompts %+v %v", prompts, err)
	}
	got, err := m.cs.GetPrompt(m.ctx(), &mcp.GetPromptParams{Name: mcpserver.PromptName, Arguments: map[string]string{"message": "域名 renewal"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 || got.Messages[0].Content.(*mcp.TextContent).Text != mcpserver.ContextText(pb.Identity, pb.Intentions, pb.Discipline) {
		t.Errorf("somni-context %+v\nprompt.build %+v", got.Messages, pb)
	}
	mustContain(t, "somni-context", mcpserver.ContextText(pb.Identity, pb.Intentions, pb.Discipline), "About me", "Open intentions", "Today is")

	// The MCP-only tools.
	var st struct{ PendingLogs int }
	rpc.call("sleep.status", nil, &st)
	status := m.tool("dream_status", nil)
	mustContain(t, "dream_status", status, "No dream is running", "Pending logs (waiting for a dream): "+itoa(st.PendingLogs),
		"does not offer MCP sampling", "Newest dream diary: memory/dream-log/2026-11-20_dream_001.md")
	text, isErr := m.call("dream_now", nil)
	if !isErr {
		t.Errorf("dream_now without sampling succeeded: %s", text)
	}
	mustContain(t, "dream_now without sampling", text, "does not offer MCP sampling", "--llm openai", "Pending logs now: "+itoa(st.PendingLogs))
	mustContain(t, "remember", m.tool("remember", map[string]any{"text": "the user prefers tabs"}), "Kept")
	m.stop()
}

// TestMCPRememberThenDream keeps a note over MCP and dreams with the
// client's model: a client sampling handler answers like the scripted
// model the JSON-RPC dream tests use; the note ends up as knowledge.
func TestMCPRememberThenDream(t *testing.T) {
	dir := t.TempDir()
	const logID = "2026-11-29_001" // the first log of the fixed day
	model := dreamtest.NewModel(dreamtest.Consolidate(dreamtest.Consolidation{
		Fact: dreamtest.Fact{Name: "staging-bastion", Type: "fact",
			Description: "the staging bastion host and its ssh port", Body: "bastion-7.example.net listens for ssh on 2222."},
		Episode:  "the user noted the staging bastion",
		SourceID: logID,
		Diary:    "---\ntrigger: mcp\n---\n\nFiled a note about the staging bastion.\n",
		Summary:  "1 note consolidated: staging-bastion",
		Usage:    dream.Usage{PromptTokens: 10},
	})...)
	m := startMCP(t, dir, samplingModel(t, model), mcpArgs, mcpEnv)

	mustContain(t, "remember", m.tool("remember", map[string]any{
		"text": "The staging bastion is bastion-7.example.net, ssh on port 2222.", "tags": "staging, ssh"}), "Kept")
	text, isErr := m.call("remember", map[string]any{"text": strings.Repeat("long ", 900)})
	if !isErr {
		t.Errorf("an oversized note was kept: %s", text)
	}
	mustContain(t, "oversized note", text, "argument \"text\"", "at most 4000")
	mustContain(t, "dream_status before", m.tool("dream_status", nil), "Notes from this client not yet pending: 1",
		"this client's own model (MCP sampling with tools)", "No dream diary yet")

	mustContain(t, "dream_now", m.tool("dream_now", nil), "Dream deep_sleep: 1 note consolidated: staging-bastion")
	if model.Turns() != 6 {
		t.Errorf("the dream took %d model turns, the script has 6", model.Turns())
	}
	// The model read the note as the log carries it: from this client.
	var read strings.Builder
	for _, req := range model.Requests() {
		for _, msg := range req {
			if msg.Role == "tool" {
				read.WriteString(msg.Content + "\n")
			}
		}
	}
	mustContain(t, "what the model read", read.String(), "[user:"+mcpClientName+"]", "Remember: The staging bastion is bastion-7.example.net", "Tags: staging, ssh")
	if tools := model.Tools(); len(tools) < 10 {
		t.Errorf("the model was offered %d tools", len(tools))
	}

	mem := filepath.Join(dir, "memory")
	mustContain(t, "knowledge", testutil.ReadFile(t, filepath.Join(mem, "knowledge", "staging-bastion", "SKILL.md")), "bastion-7.example.net")
	mustContain(t, "archived note log", testutil.ReadFile(t, filepath.Join(mem, "session-log", "archived", logID+".md")),
		"chat_id: mcp-"+mcpClientName, "chat_type: mcp", "status: processed", "Remember: The staging bastion")
	mustContain(t, "recall after the dream", m.tool("search_knowledge", map[string]any{"query": "staging bastion"}), "staging-bastion")
	mustContain(t, "dream_status after", m.tool("dream_status", nil), "Pending logs (waiting for a dream): 0",
		"Last dream from this server:", "deep_sleep: 1 note consolidated", "Newest dream diary: memory/dream-log/2026-11-29_dream_001.md")
	m.stop()
}

// TestMCPRememberKeepsNoSecrets sends the secret corpus through remember;
// after the server exits (closing the note log) no secret is on disk.
func TestMCPRememberKeepsNoSecrets(t *testing.T) {
	secrets := testutil.SecretCorpus(t, "secrets.jsonl")
	dir := t.TempDir()
	m := startMCP(t, dir, nil, mcpArgs, mcpEnv)
	told := 0
	for _, l := range secrets {
		text := l.Text
		if r := []rune(text); len(r) > mcpserver.MaxNoteChars {
			text = string(r[:mcpserver.MaxNoteChars])
		}
		if strings.Contains(m.tool("remember", map[string]any{"text": text, "tags": "secret, " + l.Name}), "replaced by placeholders") {
			told++
		}
	}
	m.stop()
	all := dirBytes(t, dir)
	if !bytes.Contains(all, []byte("Remember: ")) {
		t.Fatal("no note reached disk at all")
	}
	testutil.CheckLeaks(t, "remember", secrets, func(l testutil.SecretLine) bool { return bytes.Contains(all, []byte(l.Secret)) })
	t.Logf("%d secret formats through remember; %d results said secrets were replaced", len(secrets), told)
	if told < len(secrets)/2 {
		t.Errorf("only %d of %d results said secrets were replaced", told, len(secrets))
	}
}

func normJSON(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// firstBodyLine is the first non-blank body line of a Markdown file.
func firstBodyLine(t testing.TB, p string) string {
	t.Helper()
	text := testutil.ReadFile(t, p)
	if _, rest, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n"); ok && strings.HasPrefix(text, "---\n") {
		text = rest
	}
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	t.Fatalf("%s has no body", p)
	return ""
}
