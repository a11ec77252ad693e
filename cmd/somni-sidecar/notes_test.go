package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// homeData copies testdata/pydata to a data dir under a fake home, the way
// a user's ~/.dsh/somni looks, so a leaked prefix is easy to spot.
func homeData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "home", "ann", ".dsh", "somni")
	testutil.CopyTree(t, testutil.Testdata("pydata"), dir)
	return dir
}

// TestModelSeesNoHomeDirectory checks every text the model reads (hints
// after a message and after a tool, recall and listing results) names
// files relative to the data dir, while the hint items keep the stored
// absolute path of the compat shape.
func TestModelSeesNoHomeDirectory(t *testing.T) {
	dir := homeData(t)
	s := start(t, dir, []string{"--embed", "hash"})
	texts := map[string]string{
		"recall_memories":            s.tool("recall_memories", map[string]any{"query": "docker build cache BuildKit"}),
		"search_knowledge":           s.tool("search_knowledge", map[string]any{}),
		"search_episodes":            s.tool("search_episodes", map[string]any{}),
		"search_recent_conversation": s.tool("search_recent_conversation", map[string]any{}),
		"list_intentions":            s.tool("list_intentions", nil),
	}
	var thought, action struct {
		Items []struct{ Name, Path string }
		Hint  string
	}
	s.call("assoc.thought", map[string]any{"sessionId": "a", "cue": "Docker builds on the CI runner: cache mounts need BuildKit"}, &thought)
	s.call("assoc.action", map[string]any{"sessionId": "b", "toolName": "bash",
		"args": map[string]any{"command": "DOCKER_BUILDKIT=1 docker build --mount=type=cache,target=/root/.cache ."}}, &action)
	texts["assoc.thought"], texts["assoc.action"] = thought.Hint, action.Hint
	for what, text := range texts {
		if strings.Contains(text, dir) || strings.Contains(text, "/home/ann") {
			t.Errorf("%s shows the home directory:\n%s", what, text)
		}
	}
	const rel = "memory/knowledge/docker-build-cache/SKILL.md"
	mustContain(t, "recall", texts["recall_memories"], "· "+rel+"\n")
	mustContain(t, "listing", texts["search_episodes"], "· memory/episodes/2026-11-20_001/SKILL.md")
	for what, r := range map[string]struct {
		Items []struct{ Name, Path string }
		Hint  string
	}{"assoc.thought": thought, "assoc.action": action} {
		if len(r.Items) == 0 || r.Items[0].Name != "docker-build-cache" {
			t.Fatalf("%s: no hint for docker-build-cache: %+v", what, r)
		}
		mustContain(t, what, r.Hint, "【记忆提示】[memory] docker-build-cache: ", "("+rel+")")
		if r.Items[0].Path != filepath.Join(dir, rel) {
			t.Errorf("%s: item path %q, want the stored absolute path", what, r.Items[0].Path)
		}
	}
}

// TestRecallSaysWhyInWords checks a recall result gives its reasons in the
// query's words (not stems) with the exact symbol, and that a long memory
// takes at most 8 lines of it: header, reason, 6 quoted lines.
func TestRecallSaysWhyInWords(t *testing.T) {
	dir := homeData(t)
	var body strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&body, "Step %d of the staging runbook.\n", i)
	}
	note := "---\nname: staging-postgres-port\ndescription: \"Staging Postgres (pg-stage-7) listens on port 5544, not 5432\"\n" +
		"type: fact\nscore: 0.6\n---\n\nThe staging Postgres host is pg-stage-7.\n" + body.String()
	p := filepath.Join(dir, "memory", "knowledge", "staging-postgres-port", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, dir, nil)
	out := s.tool("recall_memories", map[string]any{"query": "which port does staging Postgres use? 5544"})
	mustContain(t, "recall", out, `1. staging-postgres-port (knowledge/fact, `,
		`   matched "port", "staging", "Postgres"; exact: 5544`+"\n", "more lines not shown)")
	for _, stem := range []string{"postgr,", "stag,", "words:", "why:", "cos "} {
		if strings.Contains(out, stem) {
			t.Errorf("recall shows %q:\n%s", stem, out)
		}
	}
	hit := regexp.MustCompile(`^\d+\. `)
	n := 0
	for _, l := range strings.Split(out, "\n")[2:] {
		if hit.MatchString(l) {
			n = 0
		}
		if n++; n > 8 {
			t.Fatalf("a hit takes more than 8 lines:\n%s", out)
		}
	}
}
