package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"

	"github.com/somni-dev/somni/internal/frontmatter"
	"gopkg.in/yaml.v3"
)

// TestRewriteOfStaleEntry covers a caller holding an entry loaded before someone else changed the file
// (a hand edit adding a key, a dream archiving it): a reinforcement or update must apply to what is on
// disk now, never write the stale copy back or recreate an archived entry.
func TestRewriteOfStaleEntry(t *testing.T) {
	ctx := context.Background()
	type op func(s *Store, e *Entry) error
	rewrites := map[string]op{
		"RecordUsage": func(s *Store, e *Entry) error { return s.RecordUsage(e) },
		"recall hit folded": func(s *Store, e *Entry) error { // the usage journal's fold of one entry
			unlock, err := s.Lock(ctx)
			if err != nil {
				return err
			}
			defer unlock()
			return s.RewriteLocked(e, RecallChange(s.today()))
		},
	}
	tests := []struct {
		name    string
		between func(t *testing.T, s *Store, path string) // what happens after the caller loaded the entry
		check   func(t *testing.T, s *Store, path string, err error)
	}{
		{
			name: "hand edit adds a key",
			between: func(t *testing.T, s *Store, path string) {
				data := testutil.ReadFile(t, path)
				data = strings.Replace(data, "last_decay: 2026-11-30\n", "last_decay: 2026-11-30\nowner: alice\n", 1)
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, s *Store, path string, err error) {
				if err != nil {
					t.Fatalf("rewrite: %v", err)
				}
				if got := testutil.ReadFile(t, path); !strings.Contains(got, "owner: alice\n") {
					t.Errorf("hand-added key lost by the rewrite:\n%s", got)
				}
			},
		},
		{
			name: "hand edit changes the body",
			between: func(t *testing.T, s *Store, path string) {
				data := testutil.ReadFile(t, path) + "edited by hand\n"
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, s *Store, path string, err error) {
				if err != nil {
					t.Fatalf("rewrite: %v", err)
				}
				if got := testutil.ReadFile(t, path); !strings.HasSuffix(got, "edited by hand\n") {
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
				// The journal drops a hit on an entry that is gone; a direct rewrite says so.
				if !errors.Is(err, ErrNotFound) && err != nil {
					t.Errorf("rewrite of an archived entry: err %v, want ErrNotFound or nothing", err)
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
				e, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "fact-one", Type: "fact", Description: "the build cache lives on the ssd", Body: "Body line.\n", Verified: true})
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

// TestNestedYAMLValuesSurviveRewrite: skills in the wild carry nested YAML (metadata maps, allowed-tools
// lists). A rewrite must keep them the YAML type they were, not turn them into quoted strings.
func TestNestedYAMLValuesSurviveRewrite(t *testing.T) {
	tests := []struct {
		name   string
		header string
		key    string
		want   any
	}{
		{"block list", "allowed-tools:\n  - Bash\n  - Read\n", "allowed-tools", []any{"Bash", "Read"}},
		{"flow list", "tags: [a, b]\n", "tags", []any{"a", "b"}},
		{"map", "metadata:\n  version: 2\n  owner: ops team\n", "metadata", map[string]any{"version": 2, "owner": "ops team"}},
		{"nested", "metadata:\n  tags:\n    - x\n    - y\n", "metadata", map[string]any{"tags": []any{"x", "y"}}},
		{"long list", "allowed-tools:\n" + strings.Repeat("  - a-rather-long-tool-name-to-push-the-line\n", 6), "allowed-tools",
			[]any{"a-rather-long-tool-name-to-push-the-line", "a-rather-long-tool-name-to-push-the-line", "a-rather-long-tool-name-to-push-the-line",
				"a-rather-long-tool-name-to-push-the-line", "a-rather-long-tool-name-to-push-the-line", "a-rather-long-tool-name-to-push-the-line"}},
		{"map with quote-worthy text", "metadata:\n  note: \"a: b # c\"\n", "metadata", map[string]any{"note": "a: b # c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t)
			p := filepath.Join(s.SkillDir(), "user_skills", "deploy", "SKILL.md")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			src := "---\nname: deploy\ndescription: how to deploy\n" + tc.header + "---\n\nSteps.\n"
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			e, err := s.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.RecordUsage(e); err != nil {
				t.Fatal(err)
			}
			out := testutil.ReadFile(t, p)
			header, _, _ := strings.Cut(strings.TrimPrefix(out, "---\n"), "\n---\n")
			var m map[string]any
			if err := yaml.Unmarshal([]byte(header), &m); err != nil {
				t.Fatalf("rewritten header is not YAML: %v\n%s", err, out)
			}
			if !reflect.DeepEqual(m[tc.key], tc.want) {
				t.Errorf("%s after rewrite = %#v, want %#v\n%s", tc.key, m[tc.key], tc.want, out)
			}
			// And a second rewrite is stable.
			if err := s.RecordUsage(e); err != nil {
				t.Fatal(err)
			}
			out2 := testutil.ReadFile(t, p)
			h2, _, _ := strings.Cut(strings.TrimPrefix(out2, "---\n"), "\n---\n")
			var m2 map[string]any
			if err := yaml.Unmarshal([]byte(h2), &m2); err != nil || !reflect.DeepEqual(m2[tc.key], tc.want) {
				t.Errorf("second rewrite: %v %#v\n%s", err, m2[tc.key], out2)
			}
		})
	}
}

// TestReservedAndProtectedNames: a name equal to a root's archive folder would put the entry where scans
// never look (and episodes into their own archive); a skill saying auto_merge: false is not the model's to
// archive.
func TestReservedAndProtectedNames(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		do   func(s *Store) error
		want error
	}{
		{"knowledge named archived", func(s *Store) error {
			_, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "archived", Type: "fact", Description: "a fact about archives here", Body: "b", Verified: true})
			return err
		}, ErrUnsafeName},
		{"knowledge named Archived", func(s *Store) error {
			_, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: " Archived ", Type: "fact", Description: "a fact about archives here", Body: "b", Verified: true})
			return err
		}, ErrUnsafeName},
		{"skill named archived", func(s *Store) error {
			_, err := s.CreateSkill(ctx, SkillInput{Name: "archived", Description: "a skill about archives", Body: "b", Verified: true})
			return err
		}, ErrUnsafeName},
		{"episode source archived", func(s *Store) error {
			_, err := s.RecordEpisode(ctx, EpisodeInput{What: "something happened", Source: "session-log/archived"})
			return err
		}, ErrUnsafeName},
		{"archive a skill saying auto_merge: false", func(s *Store) error {
			p := filepath.Join(s.SkillDir(), "user_skills", "deploy", "SKILL.md")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte("---\nname: deploy\ndescription: how to deploy\nauto_merge: false\n---\n\nSteps.\n"), 0o644); err != nil {
				return err
			}
			_, err := s.Archive(ctx, "deploy")
			if _, statErr := os.Stat(p); statErr != nil {
				t.Errorf("protected skill moved: %v", statErr)
			}
			return err
		}, ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t)
			err := tc.do(s)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			for _, d := range []string{filepath.Join(s.MemoryDir(), "knowledge", "archived"), filepath.Join(s.MemoryDir(), "knowledge", "Archived"),
				filepath.Join(s.SkillDir(), "agent_learned_skills", "archived"), filepath.Join(s.MemoryDir(), "episodes", "archived", "SKILL.md")} {
				if _, err := os.Stat(d); err == nil {
					t.Errorf("%s was created", d)
				}
			}
		})
	}
}

func TestAliasBombIsAProblemAndNotRewritten(t *testing.T) {
	s, _ := pyStore(t)
	p := filepath.Join(s.dirs.knowledge, "lol", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	bomb := testutil.BillionLaughs()
	if err := os.WriteFile(p, []byte(bomb), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, problems, err := s.List(context.Background(), KindKnowledge)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Path == p {
			t.Fatalf("alias bomb listed as an entry")
		}
	}
	found := false
	for _, pr := range problems {
		found = found || pr.Path == p
	}
	if !found {
		t.Errorf("alias bomb is not a problem: %v", problems)
	}
	e := &Entry{Kind: KindKnowledge, Name: "lol", Path: p, Meta: frontmatter.New(), Body: "x\n"}
	if err := s.Save(e); err == nil {
		t.Error("save over the alias bomb accepted")
	}
	if testutil.ReadFile(t, p) != bomb {
		t.Error("alias bomb rewritten")
	}
}
