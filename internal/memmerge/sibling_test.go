package memmerge

import (
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/frontmatter"
)

func TestPlaceSibling(t *testing.T) {
	tests := []struct {
		path, name   string
		want, wantAs string // sibling path, name:
		wantOf       string // conflicts_with:
	}{
		{"memory/knowledge/a/SKILL.md", "a", "memory/knowledge/a-conflict-h/SKILL.md", "a-conflict-h", "a"},
		{"memory/knowledge/Docker-cache/SKILL.md", "Docker cache", "memory/knowledge/Docker-cache-conflict-h/SKILL.md", "Docker cache-conflict-h", "Docker cache"},
		{"memory/episodes/2026-11-20_001/SKILL.md", "", "memory/episodes/2026-11-20_001-conflict-h/SKILL.md", "2026-11-20_001-conflict-h", "2026-11-20_001"},
		{"skills/agent_learned_skills/deploy/SKILL.md", "deploy", "skills/agent_learned_skills/deploy-conflict-h/SKILL.md", "deploy-conflict-h", "deploy"},
		{"memory/archived/old/SKILL.md", "old", "memory/archived/old-conflict-h/SKILL.md", "old-conflict-h", "old"},
		{"memory/intentions/pi-20261128-001/INTENT.md", "pi-20261128-001", "memory/knowledge/pi-20261128-001-conflict-h/SKILL.md", "pi-20261128-001-conflict-h", "pi-20261128-001"},
		{"memory/intentions/archived/pi-20261128-002/INTENT.md", "", "memory/knowledge/pi-20261128-002-conflict-h/SKILL.md", "pi-20261128-002-conflict-h", "pi-20261128-002"},
		{"memory/about_me.md", "about_me", "memory/knowledge/about_me-conflict-h/SKILL.md", "about_me-conflict-h", "memory/about_me.md"},
		{"memory/users/alice/about_user.md", "Alice", "memory/knowledge/about_user-alice-conflict-h/SKILL.md", "about_user-alice-conflict-h", "memory/users/alice/about_user.md"},
		{"memory/about_user.md", "", "memory/knowledge/about_user-default-conflict-h/SKILL.md", "about_user-default-conflict-h", "memory/about_user.md"},
		{"about_me.md", "about_me", "knowledge/about_me-conflict-h/SKILL.md", "about_me-conflict-h", "about_me.md"},
		{"memory/session-log/2026-11-29_001.md", "", "memory/session-log/2026-11-29_001-conflict-h.md", "2026-11-29_001-conflict-h", "2026-11-29_001"},
		{"notes.md", "", "notes-conflict-h.md", "notes-conflict-h", "notes"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got := placeSibling(tc.path, tc.name, "h")
			if got != (place{tc.want, tc.wantAs, tc.wantOf}) {
				t.Errorf("got %+v, want {%s %s %s}", got, tc.want, tc.wantAs, tc.wantOf)
			}
		})
	}
}

// A profile's sibling is knowledge the store lists: named, described, pointing at the profile.
func TestMergeProfileSibling(t *testing.T) {
	base := file("Prefers Chinese in chat.\n", "user_id: alice", "name: Alice", "type: identity", "updated: 2026-11-20")
	ours := file("Prefers English in chat.\n", "user_id: alice", "name: Alice", "type: identity", "updated: 2026-11-29")
	theirs := file("Prefers Japanese in chat.\n", "user_id: alice", "name: Alice", "type: identity", "updated: 2026-11-28")
	res, err := Merge("memory/users/alice/about_user.md", []byte(base), []byte(ours), []byte(theirs))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Merged) != ours {
		t.Errorf("merged:\n%s\nwant ours:\n%s", res.Merged, ours)
	}
	if res.Sibling == nil {
		t.Fatal("no sibling")
	}
	doc, err := frontmatter.Parse(res.Sibling.Path, res.Sibling.Data)
	if err != nil {
		t.Fatal(err)
	}
	h := hashOf(theirs)
	for k, want := range map[string]string{"name": "about_user-alice-conflict-" + h, "user_id": "alice", "updated": "2026-11-28",
		KeyConflictsWith: "memory/users/alice/about_user.md"} {
		if got := doc.Meta.Value(k); got != want {
			t.Errorf("sibling %s: %q, want %q", k, got, want)
		}
	}
	if doc.Meta.Value("description") == "" || doc.Body != "Prefers Japanese in chat.\n" {
		t.Errorf("sibling description %q body %q", doc.Meta.Value("description"), doc.Body)
	}
}

func TestMergeRefuses(t *testing.T) {
	small := []byte(file("x\n", "name: a"))
	big := []byte(strings.Repeat("x", MaxSideBytes+1))
	tests := []struct {
		name               string
		path               string
		base, ours, theirs []byte
	}{
		{"ours too large", knowledgePath, small, big, small},
		{"theirs too large", knowledgePath, small, small, big},
		{"base too large", knowledgePath, big, small, small},
		{"absolute path", "/etc/SKILL.md", small, small, small},
		{"path with ..", "memory/../../SKILL.md", small, small, small},
		{"empty path", "", small, small, small},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Merge(tc.path, tc.base, tc.ours, tc.theirs); err == nil {
				t.Error("merged; want an error")
			}
		})
	}
}

// A base whose header cannot be read gives no common ground: the sides merge as if both added the file.
func TestMergeUnreadableBase(t *testing.T) {
	base := pydata(t, "memory/knowledge/broken-yaml/SKILL.md")
	ours := file("Same.\n", "name: broken-yaml", "description: ours", "score: 0.6")
	theirs := file("Same.\n", "name: broken-yaml", "description: theirs", "score: 0.7", "tags: x")
	res, err := Merge(knowledgePath, []byte(base), []byte(ours), []byte(theirs))
	if err != nil {
		t.Fatal(err)
	}
	want := file("Same.\n", "name: broken-yaml", "description: ours", "score: 0.7", "tags: x")
	if string(res.Merged) != want || res.Sibling != nil {
		t.Errorf("merged:\n%s\nsibling %v\nwant:\n%s", res.Merged, res.Sibling, want)
	}
}

// Without git nothing can be merged: an error, never ours passed off as merged.
func TestMergeWithoutGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	base := entry("2", "0.5", "2026-11-20", "2026-11-25", threeParas)
	ours := entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "only with", "only when building with", 1))
	theirs := entry("2", "0.5", "2026-11-20", "2026-11-25", strings.Replace(threeParas, "laptops", "the staging hosts", 1))
	_, err := Merge(knowledgePath, []byte(base), []byte(ours), []byte(theirs))
	if err == nil || !strings.Contains(err.Error(), "git merge-file") {
		t.Fatalf("err = %v, want git merge-file's failure", err)
	}
}
