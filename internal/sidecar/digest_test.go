package sidecar

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
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
	// A tool call as the plugin makes it (tools.call, which the session's
	// ring records) and logs it: "name(args)" and the result text.
	use := func(session, tool, args string) string {
		t.Helper()
		res, err := srv.Methods()["tools.call"](ctx, json.RawMessage(`{"sessionId":`+strconv.Quote(session)+`,"name":`+strconv.Quote(tool)+`,"args":`+args+`}`))
		if err != nil {
			t.Fatal(err)
		}
		out := res.(map[string]string)["result"]
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
		"> " + id + " (open, due 2099-01-15): send the quarterly report to Lena",
		"docker-build-cache (recalled; memory/knowledge/docker-build-cache/SKILL.md)",
	} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("digest lacks %q:\n%s", want, got.Text)
		}
	}
	// The first statement is replaced by the correction, the question states nothing, chat-b is another session.
	for _, never := range []string{"] Our staging database is on port 5432", "slow queries", "Tom"} {
		if strings.Contains(got.Text, never) {
			t.Errorf("digest shows %q:\n%s", never, got.Text)
		}
	}
	if got.Intentions != 1 || got.Memories < 1 || got.Statements != 1 {
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

// TestNapConsolidatesOnlyItsSessionOnce drives sleep.run with a sessionId:
// the nap closes that session's live log and the model is shown only that
// session's log; the session's next words start a new log, and the next
// full dream is shown that one and other sessions' logs, never the napped
// part again.
func TestNapConsolidatesOnlyItsSessionOnce(t *testing.T) {
	ctx := context.Background()
	model := dreamtest.NewModel(
		dreamtest.Step{Calls: []dreamtest.Call{{Name: "read_session_log", Args: map[string]any{"path": "$LOG0"}}}},
		dreamtest.Step{Calls: []dreamtest.Call{{Name: "mark_log_processed", Args: map[string]any{"path": "$LOG0"}}}},
		dreamtest.Step{Content: "napped"},
		dreamtest.Step{Content: "full dream"},
	)
	srv, err := New(Config{DataDir: t.TempDir(), Embed: embedOff(), Logger: quiet(), HostModel: model})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	say := func(session, text string) {
		t.Helper()
		if _, err := srv.capture.Append(session, "user", text, "default", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	say("chat-a", "Morning: our staging database port is 6543.")
	say("chat-b", "Another session: the cat is called Tom.")
	if _, err := srv.capture.Close("chat-b"); err != nil { // pending: a full dream would read it
		t.Fatal(err)
	}

	res, err := srv.Methods()["sleep.run"](ctx, json.RawMessage(`{"trigger":"nap","sessionId":"chat-a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := res.(dream.Result); r.Status != dream.StatusDeepSleep {
		t.Fatalf("nap: %+v", r)
	}
	napped := dreamtest.LogPaths(model.Requests()[0])
	if len(napped) != 1 || !strings.Contains(readLog(t, napped[0]), "Morning: our staging") {
		t.Fatalf("the nap was shown %q, want chat-a's log only", napped)
	}
	if replies := strings.Join(model.ToolReplies(), "\n"); strings.Contains(replies, "Tom") {
		t.Errorf("the nap read another session:\n%s", replies)
	}

	say("chat-a", "Afternoon: the release is on Friday.")
	srv.capture.CloseAll()
	if _, err := srv.Methods()["sleep.run"](ctx, json.RawMessage(`{"trigger":"idle"}`)); err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	full := dreamtest.LogPaths(reqs[len(reqs)-1])
	var shown strings.Builder
	for _, p := range full {
		shown.WriteString(readLog(t, p))
	}
	if len(full) != 2 || !strings.Contains(shown.String(), "Afternoon") || !strings.Contains(shown.String(), "Tom") {
		t.Errorf("the full dream was shown %q, want chat-a's new log and chat-b's", full)
	}
	if strings.Contains(shown.String(), "Morning") {
		t.Errorf("the full dream was shown the napped part again")
	}
	if _, err := srv.Methods()["sleep.run"](ctx, json.RawMessage(`{"sessionId":""}`)); err != nil {
		t.Errorf("an empty sessionId is a full dream, got %v", err)
	}
}

// readLog reads a listed log, in the archive once a dream processed it.
func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		b, err = os.ReadFile(filepath.Join(filepath.Dir(path), "archived", filepath.Base(path)))
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
