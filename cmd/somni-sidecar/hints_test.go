package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hintMemory writes a small memory set naming hosts, ports and a notes
// file, the shapes tool arguments carry.
func hintMemory(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, fm := range map[string][2]string{
		"staging-postgres": {"Staging Postgres host and port",
			"Staging Postgres runs on pg-stage-7, port 6543. Details in docs/staging-postgres-notes.md."},
		"staging-redis": {"The staging Redis and how to authenticate",
			"The staging Redis is redis-stage-3 on port 6380; AUTH with the password from Vault."},
		"go-errors": {"Error handling convention in Go services",
			"Wrap errors with fmt.Errorf and %w adding the operation; log only at the top."},
	} {
		p := filepath.Join(dir, "memory", "knowledge", name, "SKILL.md")
		mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
		body := fmt.Sprintf("---\nname: %s\ndescription: %s\ntype: fact\n---\n\n%s\n", name, fm[0], fm[1])
		mustDo(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

// TestActionHintsOnSymbols: a tool call whose arguments name a remembered
// host, port or file gets that memory as a hint on the symbol alone, with
// the hash embedder (what a user without the model runs) and with vectors
// off; an ordinary coding call gets nothing.
func TestActionHintsOnSymbols(t *testing.T) {
	calls := []struct {
		name, tool string
		args       map[string]any
		want       string // memory name, "" = no hint
	}{
		{"read the notes file", "read", map[string]any{"file_path": "/home/ann/src/infra/docs/staging-postgres-notes.md"}, "staging-postgres"},
		// a file named after a remembered host: its stem is the cue
		{"read a config named for the host", "read", map[string]any{"file_path": "/home/ann/src/infra/conf/pg-stage-7.conf"}, "staging-postgres"},
		{"read it by a relative path", "read", map[string]any{"file_path": "conf/pg-stage-7.conf"}, "staging-postgres"},
		{"psql to the host and port", "bash", map[string]any{"command": "psql -h pg-stage-7 -p 6543", "description": "Connect to the database"}, "staging-postgres"},
		{"redis-cli to the host", "bash", map[string]any{"command": "redis-cli -h redis-stage-3"}, "staging-redis"},
		{"ordinary: go test", "bash", map[string]any{"command": "go test ./...", "description": "Run the tests"}, ""},
		{"ordinary: read package.json", "read", map[string]any{"file_path": "/home/ann/src/app/package.json"}, ""},
	}
	for _, embed := range []string{"hash", "off"} {
		t.Run(embed, func(t *testing.T) {
			s := start(t, hintMemory(t), []string{"--embed", embed})
			s.tool("recall_memories", map[string]any{"query": "warm up"}) // the index is open
			for i, c := range calls {
				var res struct {
					Items []struct {
						Name  string  `json:"name"`
						Score float64 `json:"score"`
					} `json:"items"`
					Hint string `json:"hint"`
				}
				s.call("assoc.action", map[string]any{"sessionId": fmt.Sprint("s", i), "toolName": c.tool, "args": c.args}, &res)
				got := ""
				if len(res.Items) > 0 {
					got = res.Items[0].Name
				}
				if got != c.want || len(res.Items) > 1 {
					t.Errorf("%s: items %+v, want %q", c.name, res.Items, c.want)
				}
				if c.want != "" && !strings.Contains(res.Hint, "【记忆提示】[memory] "+c.want+":") {
					t.Errorf("%s: hint %q", c.name, res.Hint)
				}
			}
		})
	}
}

// TestActionHintsOnPathWords: over the protocol, on a memory as the
// dreamer writes it from "Staging Postgres: host pg-stage-7, port 6543"
// (it names no file), reading a file named after that topic hints it, by
// a bare name or a full path and with every embedder a user may run.
func TestActionHintsOnPathWords(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "memory", "knowledge", "staging-postgres", "SKILL.md")
	mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
	mustDo(t, os.WriteFile(p, []byte("---\nname: staging-postgres\ndescription: Staging Postgres host and port\ntype: fact\n---\n\nStaging Postgres: host `pg-stage-7`, port 6543.\n"), 0o644))
	for _, embed := range []string{"hash", "off"} {
		t.Run(embed, func(t *testing.T) {
			s := start(t, dir, []string{"--embed", embed})
			s.tool("recall_memories", map[string]any{"query": "warm up"})
			for i, path := range []string{"staging-postgres-notes.md", "/home/ann/src/infra/docs/staging-postgres-notes.md"} {
				var res struct {
					Hint string `json:"hint"`
				}
				s.call("assoc.action", map[string]any{"sessionId": fmt.Sprint("p", i), "toolName": "read", "args": map[string]any{"file_path": path}}, &res)
				if !strings.Contains(res.Hint, "【记忆提示】[memory] staging-postgres:") {
					t.Errorf("read %s: hint %q", path, res.Hint)
				}
			}
		})
	}
}
