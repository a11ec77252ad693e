package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// dream whose model copies the secrets into knowledge entries, an episode and
// its diary — then searches every byte under the data dir (index.sqlite
// included) for each secret, counting the tuning and held-out halves apart.
// The look-alike corpus goes through capture and must come out unchanged.
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
		// The plugin captures a tool call as name(JSON arguments): the text arrives escaped.
		{name: "session.tool json args", feed: func(t *testing.T, s *proc, l testutil.SecretLine) {
			args, err := json.Marshal(map[string]any{"path": "notes.md", "content": l.Text})
			if err != nil {
				t.Fatal(err)
			}
			s.call("session.tool", map[string]any{"sessionId": "c", "call": "write_file(" + string(args) + ")", "result": string(args)}, nil)
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
			index := dirBytes(t, dir, "index.sqlite")
			if len(index) == 0 {
				t.Errorf("%s: no index.sqlite to search", ch.name)
			}
			// As the feed flattened it for add_intention.
			onDisk := func(b []byte, l testutil.SecretLine) bool {
				secret := l.Secret
				if ch.name == "add_intention" {
					secret = strings.ReplaceAll(secret, "\n", " ")
				}
				return bytes.Contains(b, []byte(secret))
			}
			testutil.CheckLeaks(t, ch.name, secrets, func(l testutil.SecretLine) bool { return onDisk(all, l) })
			testutil.CheckLeaks(t, ch.name+" index.sqlite", secrets, func(l testutil.SecretLine) bool { return onDisk(index, l) })
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
		total, changed := map[string]int{}, map[string]int{}
		for _, l := range ordinary {
			total[l.Half()]++
			if !bytes.Contains(all, []byte(l.Text)) {
				changed[l.Half()]++
				if l.Half() == testutil.Tuning {
					t.Logf("changed: %q", l.Name)
				}
			}
		}
		for _, h := range []string{testutil.Tuning, testutil.HeldOut} {
			t.Logf("look-alikes %s: %d texts, %d changed on the way to disk", h, total[h], changed[h])
		}
		if n := changed[testutil.Tuning] + changed[testutil.HeldOut]; n > 1 {
			t.Errorf("%d look-alikes mangled (target ≤ 1)", n)
		}
	})
}

// dreamCopying runs dreams whose model copies every corpus line into a knowledge entry of its own
// (body and, flattened, description: a front-matter value the store quotes), and the first few
// into an episode and the diary. A dream makes at most dream.MaxToolCallsPerDream tool calls, so
// the corpus is copied by as many dreams as that takes, one closed session each.
func dreamCopying(t *testing.T, s *proc, ls []testutil.SecretLine) {
	perDream := dream.MaxToolCallsPerDream - 20 // the consolidation's own calls around the copies
	for from, d := 0, 0; from < len(ls); from, d = from+perDream, d+1 {
		dreamCopyingFrom(t, s, ls, from, min(from+perDream, len(ls)), d)
	}
}

// dreamCopyingFrom is dream d of dreamCopying: it copies all[first:end]. Each dream's episode and
// diary take the corpus's first lines, whose secrets are found without their sentence (the
// episode holds the bare secrets).
func dreamCopyingFrom(t *testing.T, s *proc, all []testutil.SecretLine, first, end, d int) {
	ls := all[first:end]
	var diary strings.Builder
	for _, l := range all[:10] {
		diary.WriteString(l.Text + "\n\n")
	}
	session := fmt.Sprintf("d%d", d)
	s.call("session.append", map[string]any{"sessionId": session, "role": "user", "text": "remember the credentials"}, nil)
	var closed struct{ Path string }
	s.call("session.close", map[string]any{"sessionId": session}, &closed)
	steps := dreamtest.Consolidate(dreamtest.Consolidation{
		Fact:     dreamtest.Fact{Name: fmt.Sprintf("credentials-%d", d), Type: "fact", Description: "credentials " + all[0].Secret, Body: all[0].Text},
		Episode:  "the user pasted credentials " + strings.Join(secretsOf(all[:3]), " "),
		SourceID: strings.TrimSuffix(filepath.Base(closed.Path), ".md"),
		Diary:    "---\ntrigger: test\n---\n\n" + diary.String(),
		Summary:  "copied",
		Usage:    dream.Usage{PromptTokens: 1},
	})
	// One entry per line, in turns of at most 30 calls, before the decay-and-diary turn.
	var copies []dreamtest.Step
	for i := 0; i < len(ls); i += 30 {
		var calls []dreamtest.Call
		for j := i; j < min(i+30, len(ls)); j++ {
			desc := []rune(strings.Join(strings.Fields(ls[j].Text), " "))
			calls = append(calls, dreamtest.Call{Name: "create_knowledge", Args: map[string]any{
				"name": fmt.Sprintf("secret-%03d", first+j), "entry_type": "fact",
				"description": string(desc[:min(len(desc), 480)]), "body": ls[j].Text,
			}})
		}
		copies = append(copies, dreamtest.Step{Calls: calls, Usage: dream.Usage{PromptTokens: 1}})
	}
	last := len(steps) - 2
	steps = append(steps[:last:last], append(copies, steps[last:]...)...)
	model := dreamtest.NewModel(steps...)
	dreamHost(s, model)
	var run struct{ Status, Reason string }
	s.call("sleep.run", map[string]any{"trigger": "test"}, &run)
	if run.Status != "deep_sleep" {
		t.Fatalf("sleep.run = %+v", run)
	}
	if n := strings.Count(strings.Join(model.ToolReplies(), "\n"), "Created knowledge entry secret-"); n != len(ls) {
		t.Fatalf("dream %d wrote %d of %d entries: %q", d, n, len(ls), model.ToolReplies())
	}
}

func secretsOf(ls []testutil.SecretLine) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Secret)
	}
	return out
}

// dirBytes is every regular file under dir, concatenated; with a prefix, only the files whose
// name starts with it (index.sqlite and its journals).
func dirBytes(t *testing.T, dir string, prefix ...string) []byte {
	t.Helper()
	var all bytes.Buffer
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && (len(prefix) == 0 || strings.HasPrefix(fi.Name(), prefix[0])) {
			data, _ := os.ReadFile(p)
			all.Write(data)
			all.WriteByte(0)
		}
		return nil
	})
	return all.Bytes()
}
