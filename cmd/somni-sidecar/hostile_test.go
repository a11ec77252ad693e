//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// canary is in every hostile file's content: it must never come back
// through the protocol, nor land in the index or anywhere outside.
const canary = "CANARY-7f3e-outside"

// TestHostileFiles plants one hostile file per case in a data dir and drives
// the binary through every reader a user reaches (ping, recall, the search
// tools, prompt.build, intentions, the index) and the CLI doctor: nothing
// hangs, nothing outside the data dir is read or written, and doctor names
// what it refused.
func TestHostileFiles(t *testing.T) {
	entry := func(name string) string {
		return "---\nname: " + name + "\ndescription: staging postgres " + canary + "\ntype: fact\n---\n\nport 6543 " + canary + "\n"
	}
	type env struct{ data, outside string }
	link := func(target func(e env) string, at string) func(t *testing.T, e env) {
		return func(t *testing.T, e env) {
			p := filepath.Join(e.data, at)
			mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
			mustDo(t, os.Symlink(target(e), p))
		}
	}
	outsideFile := func(e env) string { return filepath.Join(e.outside, "secret", "SKILL.md") }
	tests := []struct {
		name string
		// plant makes the hostile file; refused is the path doctor must name ("" when doctor needs not).
		plant   func(t *testing.T, e env)
		refused string
	}{
		{"absolute link to a file outside", link(outsideFile, "memory/knowledge/evil/SKILL.md"), "memory/knowledge/evil/SKILL.md"},
		{"relative link climbing out", link(func(env) string { return "../../../../outside/secret/SKILL.md" }, "memory/knowledge/evil/SKILL.md"), "memory/knowledge/evil/SKILL.md"},
		{"linked directory to outside", link(func(e env) string { return filepath.Join(e.outside, "secret") }, "memory/knowledge/evil"), "memory/knowledge/evil"},
		{"linked episodes folder", link(func(e env) string { return e.outside }, "memory/episodes"), "memory/episodes"},
		{"linked skill", link(outsideFile, "skills/agent_learned_skills/evil/SKILL.md"), "skills/agent_learned_skills/evil/SKILL.md"},
		{"linked about_me", link(outsideFile, "memory/about_me.md"), "memory/about_me.md"},
		{"linked user profile", link(outsideFile, "memory/users/default/about_user.md"), "memory/users/default/about_user.md"},
		{"linked intention", link(outsideFile, "memory/intentions/pi-20261201-001/INTENT.md"), "memory/intentions/pi-20261201-001/INTENT.md"},
		{"linked session log", link(outsideFile, "memory/session-log/2026-12-01_001.md"), "memory/session-log/2026-12-01_001.md"},
		{"linked dream log", link(outsideFile, "memory/dream-log/2026-12-01_dream_001.md"), "memory/dream-log/2026-12-01_dream_001.md"},
		{"fifo entry", func(t *testing.T, e env) {
			p := filepath.Join(e.data, "memory/knowledge/fifo/SKILL.md")
			mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
			mustDo(t, syscall.Mkfifo(p, 0o644))
		}, "memory/knowledge/fifo/SKILL.md"},
		{"fifo session log", func(t *testing.T, e env) {
			p := filepath.Join(e.data, "memory/session-log/2026-12-01_002.md")
			mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
			mustDo(t, syscall.Mkfifo(p, 0o644))
		}, "memory/session-log/2026-12-01_002.md"},
		{"fifo about_me", func(t *testing.T, e env) {
			mustDo(t, os.MkdirAll(filepath.Join(e.data, "memory"), 0o755))
			mustDo(t, syscall.Mkfifo(filepath.Join(e.data, "memory/about_me.md"), 0o644))
		}, "memory/about_me.md"},
		{"100 MB entry", func(t *testing.T, e env) {
			p := filepath.Join(e.data, "memory/knowledge/huge/SKILL.md")
			mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
			mustDo(t, os.WriteFile(p, []byte(entry("huge")), 0o644))
			mustDo(t, os.Truncate(p, 100<<20)) // sparse: the size is what matters
		}, "memory/knowledge/huge/SKILL.md"},
		{"mode 000 entry", func(t *testing.T, e env) {
			p := filepath.Join(e.data, "memory/knowledge/locked/SKILL.md")
			mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
			// Inside the data dir, so not hostile content (root reads it anyway): it must only not break anything.
			mustDo(t, os.WriteFile(p, []byte("---\nname: locked\ndescription: a locked note\n---\n\nx\n"), 0o000))
		}, ""},
		{"alias bomb", func(t *testing.T, e env) {
			p := filepath.Join(e.data, "memory/knowledge/bomb/SKILL.md")
			mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
			var b strings.Builder
			b.WriteString("---\nname: bomb\ndescription: staging postgres\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
			prev := "a"
			for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
				fmt.Fprintf(&b, "%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", n, n, prev, prev, prev, prev, prev, prev, prev, prev, prev)
				prev = n
			}
			b.WriteString("---\n\nbody\n")
			mustDo(t, os.WriteFile(p, []byte(b.String()), 0o644))
		}, "memory/knowledge/bomb/SKILL.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			e := env{data: filepath.Join(base, "data"), outside: filepath.Join(base, "outside")}
			mustDo(t, os.MkdirAll(filepath.Join(e.outside, "secret"), 0o755))
			mustDo(t, os.WriteFile(outsideFile(e), []byte(entry("secret")), 0o644))
			good := filepath.Join(e.data, "memory/knowledge/pg-port/SKILL.md")
			mustDo(t, os.MkdirAll(filepath.Dir(good), 0o755))
			mustDo(t, os.WriteFile(good, []byte("---\nname: pg-port\ndescription: staging postgres listens on 6543\ntype: fact\n---\n\nUse port 6543.\n"), 0o644))
			tc.plant(t, e)
			before := snapshot(t, e.outside)

			done := make(chan struct{})
			go func() {
				defer close(done)
				s := start(t, e.data, nil)
				var ping map[string]any
				s.call("ping", nil, &ping)
				var outs []string
				outs = append(outs, s.tool("recall_memories", map[string]any{"query": "staging postgres port"}))
				outs = append(outs, s.tool("search_knowledge", map[string]any{"query": "staging postgres"}))
				outs = append(outs, s.tool("search_episodes", map[string]any{"query": "staging postgres"}))
				outs = append(outs, s.tool("search_recent_conversation", map[string]any{"query": "staging postgres"}))
				outs = append(outs, s.tool("list_intentions", map[string]any{}))
				var pr map[string]any
				s.call("prompt.build", map[string]any{"currentMessage": "staging postgres"}, &pr)
				outs = append(outs, fmt.Sprint(pr))
				_, _ = s.send("tools.call", map[string]any{"name": "complete_intention", "args": map[string]any{"intention_id": "pi-20261201-001"}})
				s.call("index.sync", map[string]any{}, nil)
				var st map[string]any
				s.call("sleep.status", nil, &st)
				for _, o := range outs {
					if strings.Contains(o, canary) {
						t.Errorf("hostile content came back: %.300s", o)
					}
				}
				if !strings.Contains(outs[0], "pg-port") {
					t.Errorf("the ordinary entry was not recalled beside the hostile file: %.300s", outs[0])
				}
				s.call("shutdown", nil, nil)
				if code := s.waitExit(); code != 0 {
					t.Errorf("exit %d", code)
				}
				s.assertProtocolOnly()
			}()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("the sidecar hung on the hostile file")
			}
			if idx, err := os.ReadFile(filepath.Join(e.data, "index.sqlite")); err == nil && bytes.Contains(idx, []byte(canary)) {
				t.Error("hostile content reached index.sqlite")
			}
			if after := snapshot(t, e.outside); after != before {
				t.Errorf("outside the data dir changed:\nbefore %s\nafter  %s", before, after)
			}
			if fi, err := os.Lstat(filepath.Join(e.data, strings.TrimSuffix(tc.refused, "/"))); tc.refused != "" && (err != nil || fi.Size() == 0 && fi.Mode().IsRegular()) {
				t.Errorf("the hostile file was removed or emptied: %v", err)
			}
			out, err := exec.Command(binPath, "--data-dir", e.data, "--embed", "off", "doctor").CombinedOutput()
			if strings.Contains(string(out), canary) {
				t.Errorf("doctor printed hostile content:\n%s", out)
			}
			if tc.refused != "" {
				if err == nil || !strings.Contains(string(out), filepath.FromSlash(tc.refused)) {
					t.Errorf("doctor (err %v) does not name %s:\n%s", err, tc.refused, out)
				}
			}
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot is every file under dir with its size, mode and content hash.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		data := []byte{}
		if fi.Mode().IsRegular() {
			data, _ = os.ReadFile(p)
		}
		fmt.Fprintf(&b, "%s %v %d %x;", strings.TrimPrefix(p, dir), fi.Mode(), fi.Size(), data)
		return nil
	})
	return b.String()
}
