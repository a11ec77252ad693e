package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/testutil"
)

// TestSecretsNeverReachDisk sends the secret corpus down every channel that
// writes to disk — capture (messages and tool calls), add_intention, and a
// dream whose model copies the secrets into knowledge, an episode, a profile
// and its diary — then searches every byte under the data dir (index.sqlite
// included) for each secret. The look-alike corpus goes through capture and
// must come out unchanged.
func TestSecretsNeverReachDisk(t *testing.T) {
	secrets := testutil.SecretCorpus(t, "secrets.jsonl")
	ordinary := testutil.SecretCorpus(t, "ordinary.jsonl")
	channels := []struct {
		name string
		feed func(t *testing.T, s *proc, l testutil.SecretLine)
		bulk func(t *testing.T, s *proc, ls []testutil.SecretLine) // one call for all lines
	}{
		{name: "session.append", feed: func(t *testing.T, s *proc, l testutil.SecretLine) {
			s.call("session.append", map[string]any{"sessionId": "c", "role": "user", "text": l.Text}, nil)
		}},
		{name: "session.tool", feed: func(t *testing.T, s *proc, l testutil.SecretLine) {
			s.call("session.tool", map[string]any{"sessionId": "c", "call": "exec-shell(" + l.Text + ")", "result": l.Text, "reason": l.Text}, nil)
		}},
		{name: "add_intention", feed: func(t *testing.T, s *proc, l testutil.SecretLine) {
			what := strings.ReplaceAll(l.Text, "\n", " ")
			if len([]rune(what)) > 500 { // over the description bound: refused whole, so nothing to leak
				what = string([]rune(what)[:480])
			}
			// A bare secret without its context is undetectable anywhere, so the
			// cue carries the same sentence, not the secret alone.
			s.tool("add_intention", map[string]any{"what": what, "cue": what})
		}},
		{name: "dream writes", bulk: dreamCopying},
	}
	for _, ch := range channels {
		t.Run(ch.name, func(t *testing.T) {
			dir := t.TempDir()
			s := start(t, dir, nil)
			if ch.bulk != nil {
				ch.bulk(t, s, secrets)
			} else {
				for _, l := range secrets {
					ch.feed(t, s, l)
				}
			}
			s.call("session.closeAll", nil, nil)
			s.call("index.sync", map[string]any{}, nil)
			s.call("shutdown", nil, nil)
			s.waitExit()
			all := dirBytes(t, dir)
			leaks := 0
			for _, l := range secrets {
				if bytes.Contains(all, []byte(l.Secret)) {
					leaks++
					t.Errorf("%s: %q reached disk", ch.name, l.Name)
				}
			}
			t.Logf("%s: %d secret formats, %d reached disk", ch.name, len(secrets), leaks)
		})
	}
	t.Run("look-alikes through capture", func(t *testing.T) {
		dir := t.TempDir()
		s := start(t, dir, nil)
		for _, l := range ordinary {
			s.call("session.append", map[string]any{"sessionId": "c", "role": "user", "text": l.Text}, nil)
		}
		s.call("session.closeAll", nil, nil)
		s.call("shutdown", nil, nil)
		s.waitExit()
		all := dirBytes(t, dir)
		changed := 0
		for _, l := range ordinary {
			if !bytes.Contains(all, []byte(l.Text)) {
				changed++
				t.Logf("changed: %q", l.Name)
			}
		}
		t.Logf("%d ordinary texts, %d changed on the way to disk", len(ordinary), changed)
		if changed > 1 {
			t.Errorf("%d look-alikes mangled (target ≤ 1)", changed)
		}
	})
}

// dreamCopying runs a dream whose model copies every secret into what it writes.
func dreamCopying(t *testing.T, s *proc, ls []testutil.SecretLine) {
	var body strings.Builder
	for _, l := range ls {
		body.WriteString(l.Text + "\n\n")
	}
	s.call("session.append", map[string]any{"sessionId": "d", "role": "user", "text": "remember the credentials"}, nil)
	var closed struct{ Path string }
	s.call("session.close", map[string]any{"sessionId": "d"}, &closed)
	model := dreamtest.NewModel(dreamtest.Consolidate(dreamtest.Consolidation{
		Fact:     dreamtest.Fact{Name: "credentials", Type: "fact", Description: "credentials " + ls[0].Secret, Body: body.String()},
		Episode:  "the user pasted credentials " + strings.Join(secretsOf(ls[:5]), " "),
		SourceID: strings.TrimSuffix(filepath.Base(closed.Path), ".md"),
		Diary:    "---\ntrigger: test\n---\n\n" + body.String(),
		Summary:  "copied",
		Usage:    dream.Usage{PromptTokens: 1},
	})...)
	dreamHost(s, model)
	var run struct{ Status, Reason string }
	s.call("sleep.run", map[string]any{"trigger": "test"}, &run)
	if run.Status != "deep_sleep" {
		t.Fatalf("sleep.run = %+v", run)
	}
	if !strings.Contains(strings.Join(model.ToolReplies(), "\n"), "credentials") {
		t.Fatalf("the dream wrote nothing: %v", model.ToolReplies())
	}
}

func secretsOf(ls []testutil.SecretLine) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Secret)
	}
	return out
}

// dirBytes is every regular file under dir, concatenated.
func dirBytes(t *testing.T, dir string) []byte {
	t.Helper()
	var all bytes.Buffer
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			all.Write(data)
			all.WriteByte(0)
		}
		return nil
	})
	return all.Bytes()
}
