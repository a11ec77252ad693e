package sidecar

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/testutil"
)

// TestSessionDigest drives session.digest through the method table over a
// real data dir: what the session's log says (statements, the intention its
// add_intention call made, the memory its recall returned) and nothing of
// another session; the budget bounds it; bad params are refused.
func TestSessionDigest(t *testing.T) {
	ctx := context.Background()
	srv, err := New(Config{DataDir: testutil.Pydata(t), Embed: embedOff(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	say := func(session, role, text string) {
		t.Helper()
		if _, err := srv.capture.Append(session, role, text, "default", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	// A tool call as the plugin logs it: "name(args)" and the result text.
	use := func(session, tool, args string) string {
		t.Helper()
		out, err := srv.tools.Call(ctx, tool, ToolEnv{SessionID: session}, []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.capture.Tool(session, tool+"("+args+")", out, ""); err != nil {
			t.Fatal(err)
		}
		return out
	}
	say("chat-a", "user", "Our staging database is on port 5432. Can you look at the slow queries?")
	say("chat-a", "assistant", "Sure, looking at the slow queries now.")
	added := use("chat-a", "add_intention", `{"what":"send the quarterly report to Lena","due":"2099-01-15"}`)
	use("chat-a", "recall_memories", `{"query":"BuildKit cache mounts"}`)
	say("chat-a", "user", "Actually, correction: the staging database port is 6543, not 5432.")
	say("chat-b", "user", "My cat is called Tom and I prefer tea.")

	digestOf := func(params string) (digestResult, error) {
		t.Helper()
		res, err := srv.Methods()["session.digest"](ctx, json.RawMessage(params))
		if err != nil {
			return digestResult{}, err
		}
		return res.(digestResult), nil
	}
	got, err := digestOf(`{"sessionId":"chat-a"}`)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.Fields(strings.TrimPrefix(added, "Added intention "))[0]
	id = strings.TrimSuffix(id, ":")
	for _, want := range []string{
		"correction] Actually, correction: the staging database port is 6543, not 5432.",
		"fact] Our staging database is on port 5432.",
		"> " + id + " (open, due 2099-01-15): send the quarterly report to Lena",
		"docker-build-cache (recalled; memory/knowledge/docker-build-cache/SKILL.md)",
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("digest lacks %q:\n%s", want, got.Text)
		}
	}
	if strings.Contains(got.Text, "Tom") || strings.Contains(got.Text, "slow queries") {
		t.Errorf("digest shows another session's words or a question:\n%s", got.Text)
	}
	if got.Intentions != 1 || got.Memories < 1 || got.Statements != 2 {
		t.Errorf("counts %+v", got.Counts)
	}

	small, err := digestOf(`{"sessionId":"chat-a","maxChars":400}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(small.Text); n > 400 || !strings.Contains(small.Text, "6543") {
		t.Errorf("400-char budget: %d runes, correction kept: %v\n%s", n, strings.Contains(small.Text, "6543"), small.Text)
	}
	if none, err := digestOf(`{"sessionId":"chat-never"}`); err != nil || none.Text != "" {
		t.Errorf("unknown session: %q, %v", none.Text, err)
	}
	for _, bad := range []string{`{}`, `{"sessionId":""}`, `{"sessionId":"a","maxChars":"many"}`} {
		_, err := digestOf(bad)
		var re *rpc.Error
		if !errors.As(err, &re) || re.Code != rpc.CodeInvalidParams {
			t.Errorf("params %s: err %v, want invalid params", bad, err)
		}
	}
}
