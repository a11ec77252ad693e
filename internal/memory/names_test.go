package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

func TestSafeName(t *testing.T) {
	tests := []struct {
		in, want string
		refuse   bool
	}{
		{in: "docker-build-cache", want: "docker-build-cache"},
		{in: "团队成员", want: "团队成员"},
		{in: "git rebase 技巧", want: "git-rebase-技巧"},
		{in: "  spaced  ", want: "spaced"},
		{in: "a:b*c?d", want: "a-b-c-d"},
		{in: ".hidden", want: "hidden"},
		{in: "2026-11-29_001", want: "2026-11-29_001"},
		{in: "a..b", want: "a..b"},
		{in: "Ünïcödé", want: "Ünïcödé"},
		{in: "", refuse: true},
		{in: "   ", refuse: true},
		{in: "..", refuse: true},
		{in: ".", refuse: true},
		{in: "../../x", refuse: true},
		{in: "a/b", refuse: true},
		{in: `a\b`, refuse: true},
		{in: "/etc/passwd", refuse: true},
		{in: "nul\x00byte", refuse: true},
		{in: "***", refuse: true},
		{in: "bad\xffutf8", refuse: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := SafeName(tt.in)
			if tt.refuse {
				if !errors.Is(err, ErrUnsafeName) {
					t.Fatalf("SafeName(%q) = %q, %v; want ErrUnsafeName", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("SafeName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
	long, err := SafeName(strings.Repeat("长", 100))
	if err != nil || len(long) > maxNameBytes || !strings.HasPrefix(long, "长") {
		t.Fatalf("long name: %q %v", long, err)
	}
}

func TestWithin(t *testing.T) {
	if _, err := within("/data/memory", "knowledge", "x"); err != nil {
		t.Fatal(err)
	}
	for _, e := range [][]string{{".."}, {"knowledge", "..", "..", "etc"}, {"/abs/../../x"}} {
		if _, err := within("/data/memory", e...); !errors.Is(err, ErrUnsafeName) {
			t.Errorf("within(%v) = %v, want refusal", e, err)
		}
	}
}

func TestSameEntryName(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"postgres-port", "postgres-port", true},
		{"POSTGRES-PORT", "postgres-port", true},
		{"Postgres Port", "postgres-port", true}, // the same directory name, ignoring case
		{"  postgres-port ", "Postgres-Port", true},
		{"Ünïcödé", "üNÏCÖDÉ", true},
		{"***", "***", true}, // names SafeName refuses still equal themselves
		{"postgres-port", "postgres-port-2", false},
		{"postgres", "postgres-port", false},
		{"***", "---", false},
	}
	for _, tt := range tests {
		if got := sameEntryName(tt.a, tt.b); got != tt.want {
			t.Errorf("sameEntryName(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// Names that differ only in case are one entry on every file system; existing directories keep their spelling.
func TestCreateIsCaseInsensitive(t *testing.T) {
	ctx := context.Background()
	t.Run("episodes", func(t *testing.T) {
		s, _ := pyStore(t)
		first, err := s.RecordEpisode(ctx, EpisodeInput{What: "Moved postgres to 5433", Source: "POSTGRES-PORT"})
		if err != nil {
			t.Fatal(err)
		}
		second, err := s.RecordEpisode(ctx, EpisodeInput{What: "Moved it back", Source: "postgres-port"})
		if err != nil {
			t.Fatal(err)
		}
		if second.Name != "postgres-port-2" {
			t.Errorf("second episode is %q, want postgres-port-2 beside %q", second.Name, first.Name)
		}
		if _, err := os.Stat(first.Path); err != nil {
			t.Errorf("first episode moved: %v", err)
		}
		// An archived case variant holds the name too.
		if _, err := s.Archive(ctx, first.Name); err != nil {
			t.Fatal(err)
		}
		third, err := s.RecordEpisode(ctx, EpisodeInput{What: "Third move", Source: "Postgres-Port"})
		if err != nil || third.Name != "Postgres-Port-3" {
			t.Errorf("third episode: %v %v, want Postgres-Port-3", third, err)
		}
	})
	t.Run("knowledge directory differing in case", func(t *testing.T) {
		s, _ := pyStore(t)
		first, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "POSTGRES PORT", Type: "fact", Description: "The database listens on 5433", Body: "Port 5433.\n", Verified: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.CreateKnowledge(ctx, KnowledgeInput{Name: "postgres-port", Type: "fact", Description: "Which port the main DB uses", Body: "See the compose file.\n", Verified: true})
		var dup *DuplicateError
		if !errors.As(err, &dup) || dup.Existing.Path != first.Path {
			t.Fatalf("case variant created: %v", err)
		}
	})
	t.Run("unreadable entry with capitals is not shadowed", func(t *testing.T) {
		s, _ := pyStore(t)
		p := filepath.Join(s.dirs.knowledge, "POSTGRES-PORT", "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		broken := "---\nname: POSTGRES-PORT\nbody without end\n"
		if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "postgres-port", Type: "fact", Description: "The database listens on 5433", Body: "Port 5433.\n", Verified: true}); err == nil {
			t.Error("created a case variant beside an unreadable entry")
		}
		if _, err := os.Stat(filepath.Join(s.dirs.knowledge, "postgres-port")); err == nil && !sameFile(t, p, filepath.Join(s.dirs.knowledge, "postgres-port", "SKILL.md")) {
			t.Error("case variant directory created")
		}
		if testutil.ReadFile(t, p) != broken {
			t.Error("unreadable entry rewritten")
		}
	})
}

// sameFile tells a case-insensitive file system (where both names are one file) from a second file.
func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

func TestUserDirName(t *testing.T) {
	tests := []struct {
		in, goos, want string
		refuse         bool
	}{
		{in: "alice", goos: "linux", want: "alice"},
		{in: "feishu:ou_123", goos: "linux", want: "feishu:ou_123"},
		{in: "feishu:ou_123", goos: "darwin", want: "feishu:ou_123"},
		{in: "feishu:ou_123", goos: "windows", want: "feishu-ou_123"},
		{in: "张三", goos: "linux", want: "张三"},
		{in: "wx:张 三", goos: "linux", want: "wx:张 三"},
		{in: "  padded  ", goos: "linux", want: "padded"},
		{in: ".dotted", goos: "linux", want: ".dotted"},
		{in: "a?b", goos: "windows", want: "a-b"},
		{in: "trailing.", goos: "windows", want: "trailing"},
		{in: "CON", goos: "linux", want: "CON"},
		{in: "CON", goos: "windows", refuse: true},
		{in: "com1.txt", goos: "windows", refuse: true},
		{in: "COM10", goos: "windows", want: "COM10"},
		{in: "nul?", goos: "windows", refuse: true},
		{in: "", goos: "linux", refuse: true},
		{in: ".", goos: "linux", refuse: true},
		{in: "..", goos: "linux", refuse: true},
		{in: "../../etc", goos: "linux", refuse: true},
		{in: "a/b", goos: "linux", refuse: true},
		{in: `a\b`, goos: "linux", refuse: true},
		{in: "/abs", goos: "linux", refuse: true},
		{in: "nul\x00", goos: "linux", refuse: true},
		{in: "line\nbreak", goos: "linux", refuse: true},
		{in: "bad\xff", goos: "linux", refuse: true},
		{in: strings.Repeat("x", 256), goos: "linux", refuse: true},
	}
	for _, tt := range tests {
		t.Run(tt.goos+"/"+tt.in, func(t *testing.T) {
			got, err := userDirName(tt.in, tt.goos)
			if tt.refuse {
				if !errors.Is(err, ErrUnsafeName) {
					t.Fatalf("userDirName(%q, %s) = %q, %v; want ErrUnsafeName", tt.in, tt.goos, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("userDirName(%q, %s) = %q, %v; want %q", tt.in, tt.goos, got, err, tt.want)
			}
		})
	}
}

// TestSecretNamesRefused: every way a name becomes a folder refuses
// one that holds a secret, with an error that shows it redacted; names that
// only mention tokens and passwords are made as asked.
func TestSecretNamesRefused(t *testing.T) {
	ctx := context.Background()
	create := map[string]func(s *Store, name string) error{
		"knowledge": func(s *Store, name string) error {
			_, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: name, Type: "fact", Description: "how the deploy publishes " + name, Body: "It publishes.\n", Verified: true})
			return err
		},
		"skill": func(s *Store, name string) error {
			_, err := s.CreateSkill(ctx, SkillInput{Name: name, Description: "cloning the repository " + name, Body: "1. clone\n", Verified: true})
			return err
		},
		"episode source": func(s *Store, name string) error {
			_, err := s.RecordEpisode(ctx, EpisodeInput{What: "published " + name, Source: name})
			return err
		},
	}
	for what, fn := range create {
		for _, tc := range testutil.SecretNames {
			t.Run(what+"/"+tc.Name, func(t *testing.T) {
				s, dir := pyStore(t)
				err := fn(s, tc.Name)
				if !tc.Refuse {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				testutil.CheckSecretNameRefused(t, err, ErrUnsafeName, dir)
			})
		}
	}
}
