//go:build unix

package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/identity"
	"github.com/somni-dev/somni/internal/intentions"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/usage"
)

// TestWritesNeverFollowLinks: the dreamer's and the tools' writes refuse an
// entry, profile or intention that is a link, and leave its target alone:
// the store's own and those of the jobs over its files (identity,
// intentions, the usage fold), which write through it.
func TestWritesNeverFollowLinks(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		at    string // link inside the memory dir
		write func(s *memory.Store) error
	}{
		{"update_knowledge", "knowledge/evil/SKILL.md", func(s *memory.Store) error {
			_, err := s.UpdateKnowledge(ctx, memory.KnowledgeUpdate{Name: "evil", Body: "new body"})
			return err
		}},
		{"update_about_user", "users/default/about_user.md", func(s *memory.Store) error {
			_, err := identity.Of(s).UpdateAboutUser("default", "the user likes tea")
			return err
		}},
		{"update_about_me", "about_me.md", func(s *memory.Store) error {
			_, err := identity.Of(s).UpdateAboutMe("I am the agent")
			return err
		}},
		{"complete_intention", "intentions/pi-20261201-001/INTENT.md", func(s *memory.Store) error {
			_, err := intentions.Of(s).Complete(ctx, "pi-20261201-001")
			return err
		}},
		{"fold of a recall hit", "knowledge/evil/SKILL.md", func(s *memory.Store) error {
			if err := usage.Of(s).NoteRecall([]string{filepath.Join(s.MemoryDir(), "knowledge/evil/SKILL.md")}); err != nil {
				return err
			}
			_, err := usage.Of(s).Fold(ctx)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := memory.Open(memory.Config{DataDir: t.TempDir(), Now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.Local) }})
			if err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(t.TempDir(), "target.md")
			const orig = "---\nname: evil\ndescription: outside\ntype: fact\n---\n\nkeep me\n"
			if err := os.WriteFile(outside, []byte(orig), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(s.MemoryDir(), tc.at)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			_ = tc.write(s) // refused or a no-op; either way nothing outside changes
			if got, _ := os.ReadFile(outside); string(got) != orig {
				t.Fatalf("wrote outside the data dir:\n%s", got)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the link was replaced: %v", err)
			}
			des, _ := os.ReadDir(filepath.Dir(outside))
			if len(des) != 1 {
				t.Fatalf("files appeared beside the target: %v", des)
			}
		})
	}
}
