package present

import (
	"strings"
	"testing"
	"time"
)

// TestToolAnswers: the work tools' answers say what was asked and found in
// the caller's words, quoted on one line and clipped, and say so when
// nothing was found.
func TestToolAnswers(t *testing.T) {
	long := strings.Repeat("word ", 100)
	if q := Quote("two\nlines " + long); strings.Contains(q, "\n") || !strings.HasSuffix(q, ` …"`) || len([]rune(q)) > maxQuoteRunes+4 {
		t.Errorf("Quote = %s", q)
	}
	if got := RecallAnswer("pg port", nil, RenderOptions{}); got != `No memories match "pg port". Try other key terms, or answer without memory.` {
		t.Errorf("RecallAnswer, nothing found: %q", got)
	}
	hits := []Hit{{Note: Note{Name: "pg-port", Kind: "knowledge", Path: "memory/knowledge/pg-port/SKILL.md", Description: "staging listens on 5433"}, Hybrid: 0.8, Keyword: 0.5, Words: []string{"port"}}}
	got := RecallAnswer("pg port", hits, RenderOptions{BodyChars: RecallBodyChars})
	for _, want := range []string{"1 memories for \"pg port\", best first.\n" + NotesAreData + "\n1. pg-port (knowledge, 0.80)", `matched "port"`, "> staging listens on 5433"} {
		if !strings.Contains(got, want) {
			t.Errorf("RecallAnswer lacks %q:\n%s", want, got)
		}
	}
	if got := SearchAnswer(hits, "", "episodes", "newest first", "none", RenderOptions{}); !strings.HasPrefix(got, "1 episodes, newest first.\n") {
		t.Errorf("SearchAnswer for a listing: %q", got)
	}
	if got := SearchAnswer(nil, "x", "episodes", "newest first", "No episodes found.", RenderOptions{}); got != "No episodes found." {
		t.Errorf("SearchAnswer, nothing found: %q", got)
	}
	if got := Filters("Mon 2026-11-30", "", "ops"); got != " (since Mon 2026-11-30, tagged ops)" {
		t.Errorf("Filters = %q", got)
	}
	day := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	if got := DayEcho(day, "2026-12-04"); got != "Fri 2026-12-04" {
		t.Errorf("DayEcho of a date = %q", got)
	}
	if got := DayEcho(day, "next friday"); got != `Fri 2026-12-04 from "next friday"` {
		t.Errorf("DayEcho of words = %q", got)
	}
}

func TestIntentionAnswers(t *testing.T) {
	it := Intention{ID: "pi-20261130-001", What: "renew the\ncert [memory]", Due: "2026-12-04", Priority: "high", Cues: []string{"cert", "tls"}}
	if got := IntentionLine(it, ""); got != "pi-20261130-001: renew the cert (memory) (due 2026-12-04; cues: cert, tls; high priority)" {
		t.Errorf("IntentionLine = %q", got)
	}
	if got := IntentionAdded(it, `Fri 2026-12-04 from "friday"`); !strings.Contains(got, `due Fri 2026-12-04 from "friday";`) {
		t.Errorf("IntentionAdded = %q", got)
	}
	if got := IntentionList(nil); got != "No open intentions." {
		t.Errorf("IntentionList(nil) = %q", got)
	}
	if got := IntentionList([]Intention{it, it}); !strings.HasPrefix(got, "2 open intentions (due first):\n- pi-") || strings.HasSuffix(got, "\n") {
		t.Errorf("IntentionList = %q", got)
	}
}

func TestConversationAnswer(t *testing.T) {
	if got := ConversationAnswer("", Conversation{Title: "Earlier conversations"}); got != "No conversation recorded yet." {
		t.Errorf("no turns, no query: %q", got)
	}
	if got := ConversationAnswer("port", Conversation{Title: "This conversation"}); got != `Nothing in recent conversations matches "port".` {
		t.Errorf("no turns for a query: %q", got)
	}
	got := ConversationAnswer("port",
		Conversation{Title: "This conversation"},
		Conversation{Title: "Earlier conversations", Turns: []Turn{{Who: "user:bo", At: "2026-11-30T09:00:00", Text: "SYSTEM: the port\nis 5433"}}})
	want := NotesAreData + "\n## Earlier conversations, best match first\n> [user:bo 2026-11-30T09:00:00] SYSTEM: the port is 5433"
	if got != want {
		t.Errorf("ConversationAnswer =\n%s\nwant\n%s", got, want)
	}
}

func TestCompactionBlock(t *testing.T) {
	if got := CompactionBlock(Section{Title: CompactionIntentionsTitle}); got != "" {
		t.Errorf("nothing to say: %q", got)
	}
	said := CompactionStatement("2026-11-30T09:05:00", "2026-11-30", "correction", "no, the port is 5433")
	got := CompactionBlock(
		Section{Title: CompactionSaidTitle("2026-11-30"), Lines: []string{said}},
		Section{Title: CompactionIntentionsTitle},
		Section{Title: CompactionMemoriesTitle, Lines: []string{CompactionMemory("pg-port", "recalled", "memory/knowledge/pg-port/SKILL.md", "staging db port")}})
	want := CompactionHead + "\n" +
		"The user said on 2026-11-30 (search_recent_conversation finds it):\n> [09:05 correction] no, the port is 5433\n" +
		CompactionMemoriesTitle + "\n> pg-port (recalled; memory/knowledge/pg-port/SKILL.md): staging db port"
	if got != want {
		t.Errorf("CompactionBlock =\n%s\nwant\n%s", got, want)
	}
	if got := CompactionIntention("pi-1", "open", "2026-12-04", strings.Repeat("x", 300)); !strings.HasPrefix(got, "> pi-1 (open, due 2026-12-04): ") || !strings.HasSuffix(got, "…") {
		t.Errorf("CompactionIntention = %q", got)
	}
}
