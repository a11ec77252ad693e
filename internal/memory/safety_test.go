package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRewriteOfStaleEntry covers a caller holding an entry loaded before someone else changed the file
// (a hand edit adding a key, a dream archiving it): a reinforcement or update must apply to what is on
// disk now, never write the stale copy back or recreate an archived entry.
func TestRewriteOfStaleEntry(t *testing.T) {
	ctx := context.Background()
	type op func(s *Store, e *Entry) error
	rewrites := map[string]op{
		"RecordUsage":     func(s *Store, e *Entry) error { return s.RecordUsage(e) },
		"ReinforceRecall": func(s *Store, e *Entry) error { return s.ReinforceRecall(e) },
	}
	tests := []struct {
		name    string
		between func(t *testing.T, s *Store, path string) // what happens after the caller loaded the entry
		check   func(t *testing.T, s *Store, path string, err error)
	}{
		{
			name: "hand edit adds a key",
			between: func(t *testing.T, s *Store, path string) {
				data := readFile(t, path)
				data = strings.Replace(data, "last_decay: 2026-11-30\n", "last_decay: 2026-11-30\nowner: alice\n", 1)
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, s *Store, path string, err error) {
				if err != nil {
					t.Fatalf("rewrite: %v", err)
				}
				if got := readFile(t, path); !strings.Contains(got, "owner: alice\n") {
					t.Errorf("hand-added key lost by the rewrite:\n%s", got)
				}
			},
		},
		{
			name: "hand edit changes the body",
			between: func(t *testing.T, s *Store, path string) {
				data := readFile(t, path) + "edited by hand\n"
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, s *Store, path string, err error) {
				if err != nil {
					t.Fatalf("rewrite: %v", err)
				}
				if got := readFile(t, path); !strings.HasSuffix(got, "edited by hand\n") {
					t.Errorf("hand-edited body lost by the rewrite:\n%s", got)
				}
			},
		},
		{
			name: "archived meanwhile",
			between: func(t *testing.T, s *Store, path string) {
				if _, err := s.Archive(ctx, "fact-one"); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, s *Store, path string, err error) {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("rewrite of an archived entry: err %v, want ErrNotFound", err)
				}
				if _, statErr := os.Stat(filepath.Dir(path)); !os.IsNotExist(statErr) {
					t.Errorf("archived entry recreated at %s", path)
				}
			},
		},
	}
	for _, tc := range tests {
		for opName, rewrite := range rewrites {
			t.Run(tc.name+"/"+opName, func(t *testing.T) {
				s := newTestStore(t)
				e, err := s.CreateKnowledge(ctx, "fact-one", "fact", "the build cache lives on the ssd", "Body line.\n", true)
				if err != nil {
					t.Fatal(err)
				}
				e, err = s.Load(e.Path)
				if err != nil {
					t.Fatal(err)
				}
				tc.between(t, s, e.Path)
				tc.check(t, s, e.Path, rewrite(s, e))
			})
		}
	}
}
