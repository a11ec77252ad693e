package rank

import (
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/present"
)

// TestRenderHitBounds checks that a hit is at most a header, a reason and
// noteLines quoted lines however long its memory is, and that an episode
// shows its details on one line.
func TestRenderHitBounds(t *testing.T) {
	long := strings.Repeat("a line of a long runbook\n", 80)
	ep := "- when: 2026-12-01T10:14:00\n- actors: user, agent\n- outcome: success\n- tags: postgres\n- salience: mid\n- source: 2026-12-01_001"
	hits := []Hit{
		{Doc: Doc{Path: "/d/memory/knowledge/runbook/SKILL.md", Kind: KindKnowledge, Name: "runbook", Description: "the runbook",
			AppliesWhen: "on call", Body: long}, Hybrid: 0.5, Keyword: 0.3, Words: []string{"runbook"}},
		{Doc: Doc{Path: "/d/memory/episodes/e/SKILL.md", Kind: KindEpisode, Type: "episode", Name: "e", Description: "fixed the port",
			Body: ep, When: time.Date(2026, 12, 1, 10, 14, 0, 0, time.Local)}, Hybrid: 0.3},
	}
	out := present.RenderHits(Shown(hits), present.RenderOptions{BodyChars: 400, ShowPath: func(p string) string { return strings.TrimPrefix(p, "/d/") }})
	want := `1. runbook (knowledge, 0.50) · memory/knowledge/runbook/SKILL.md
   matched "runbook"
   > the runbook
   > applies when: on call
   > a line of a long runbook
   > a line of a long runbook
   > a line of a long runbook
   > … (13 more lines not shown)
2. e (episode, 2026-12-01 10:14, 0.30) · memory/episodes/e/SKILL.md
   > fixed the port
   > actors: user, agent; outcome: success; tags: postgres`
	if out != want {
		t.Errorf("render\n got:\n%s\nwant:\n%s", out, want)
	}
}
