package sidecar

import (
	"context"
	"strings"
	"testing"
)

// TestSearchRecentConversation drives search_recent_conversation over real
// session logs: the role never scores, a reply is found through the turn
// it answers, the current session comes first and the char budget keeps
// the newest turns.
func TestSearchRecentConversation(t *testing.T) {
	ctx := context.Background()
	newServer := func(t *testing.T, budget int) *Server {
		t.Helper()
		srv, err := New(Config{DataDir: t.TempDir(), Embed: embedOff(), Logger: quiet(), ConvCharBudget: budget})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		say := func(session, role, text string) {
			if _, err := srv.capture.Append(session, role, text, "default", "", ""); err != nil {
				t.Fatal(err)
			}
		}
		say("chat-old", "user", "Remind me where the spare keys are.")
		say("chat-old", "assistant", "The spare keys are in the blue drawer.")
		say("chat-cur", "user", "Can you help me pick a mechanical keyboard?")
		say("chat-cur", "assistant", "The Keychron Q1 with silent switches fits your budget.")
		say("chat-cur", "user", "Where did we put the spare keys again?")
		say("chat-cur", "assistant", "Still in the blue drawer, next to the batteries.")
		return srv
	}
	search := func(t *testing.T, srv *Server, session, args string) string {
		t.Helper()
		out, err := srv.tools.Call(ctx, "search_recent_conversation", ToolEnv{SessionID: session}, []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tests := []struct {
		name    string
		budget  int
		session string
		args    string
		want    []string // in this order
		absent  []string
	}{
		{name: "role word matches no turn", session: "chat-cur", args: `{"query":"user"}`,
			want: []string{"Nothing in recent conversations matches"}},
		{name: "reply found through its question", session: "chat-cur", args: `{"query":"which mechanical keyboard"}`,
			want: []string{"This conversation", "Keychron Q1"}},
		{name: "current session before older ones", session: "chat-cur", args: `{"query":"spare keys blue drawer"}`,
			want: []string{"This conversation", "next to the batteries", "Earlier conversations", "The spare keys are in the blue drawer"}},
		{name: "budget keeps the newest turns", budget: 150, session: "chat-cur", args: `{}`,
			want: []string{"next to the batteries"}, absent: []string{"mechanical keyboard", "Remind me"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := search(t, newServer(t, tc.budget), tc.session, tc.args)
			at := 0
			for _, w := range tc.want {
				i := strings.Index(out[at:], w)
				if i < 0 {
					t.Fatalf("want %q after offset %d in:\n%s", w, at, out)
				}
				at += i + len(w)
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("unexpected %q in:\n%s", a, out)
				}
			}
		})
	}
}
