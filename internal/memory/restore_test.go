package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestoreEntry: what ArchiveEntry moved away comes back where it was
// active, byte for byte; an active entry holding the name, a stale version
// and an entry that is not archived are refused, and nothing moves.
func TestRestoreEntry(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		make    func(t *testing.T, s *Store) string // returns the active entry's path
		prepare func(t *testing.T, s *Store, archived string) (check func([]byte) error)
		refused string // in the error; "" when the restore must succeed
	}{
		{
			name: "knowledge",
			make: func(t *testing.T, s *Store) string {
				e, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "coffee-pref", Type: "preference", Description: "How the user takes coffee", Body: "Oat milk, no sugar.", Verified: true})
				if err != nil {
					t.Fatal(err)
				}
				return e.Path
			},
		},
		{
			name: "learned skill",
			make: func(t *testing.T, s *Store) string {
				e, err := s.CreateSkill(ctx, SkillInput{Name: "rotate-logs", Description: "Rotate the service logs", Body: "1. logrotate -f /etc/logrotate.conf", Verified: true})
				if err != nil {
					t.Fatal(err)
				}
				return e.Path
			},
		},
		{
			name: "the name is taken again",
			make: func(t *testing.T, s *Store) string {
				e, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "vpn-gateway", Type: "fact", Description: "The office VPN gateway", Body: "vpn-gw-3.corp", Verified: true})
				if err != nil {
					t.Fatal(err)
				}
				return e.Path
			},
			prepare: func(t *testing.T, s *Store, _ string) func([]byte) error {
				if _, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "vpn-gateway", Type: "fact", Description: "The office VPN gateway, new", Body: "vpn-gw-4.corp", Verified: true}); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			refused: `an active entry is already named "vpn-gateway"`,
		},
		{
			name: "a stale version",
			make: func(t *testing.T, s *Store) string {
				e, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "printer", Type: "fact", Description: "The 3rd floor printer", Body: "prn-3f", Verified: true})
				if err != nil {
					t.Fatal(err)
				}
				return e.Path
			},
			prepare: func(t *testing.T, s *Store, archived string) func([]byte) error {
				return func([]byte) error { return errors.New("the file changed since it was read") }
			},
			refused: "the file changed since it was read",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t)
			active := tc.make(t, s)
			before, err := os.ReadFile(active)
			if err != nil {
				t.Fatal(err)
			}
			archived, err := EditorOf(s).ArchiveEntry(ctx, active, nil)
			if err != nil {
				t.Fatal(err)
			}
			if info, err := os.Stat(archived); err == nil && info.IsDir() {
				archived = filepath.Join(archived, filepath.Base(active))
			}
			var check func([]byte) error
			if tc.prepare != nil {
				check = tc.prepare(t, s, archived)
			}
			got, err := EditorOf(s).RestoreEntry(ctx, archived, check)
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("restore: %v, want an error holding %q", err, tc.refused)
				}
				if _, err := os.Stat(archived); err != nil {
					t.Fatalf("a refused restore moved the archive: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != active {
				t.Errorf("restored to %s, want %s", got, active)
			}
			after, err := os.ReadFile(got)
			if err != nil || string(after) != string(before) {
				t.Errorf("restored text %q (%v), want %q", after, err, before)
			}
			if _, err := os.Stat(filepath.Dir(archived)); !os.IsNotExist(err) {
				t.Errorf("the archived folder is still there: %v", err)
			}
			if _, err := EditorOf(s).RestoreEntry(ctx, got, nil); err == nil || !strings.Contains(err.Error(), "is not archived") {
				t.Errorf("restoring an active entry: %v", err)
			}
		})
	}
}
