package memory

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// TestPinnedSurvivesDecay: a pinned entry is neither decayed nor retired nor
// expired, and pinning then unpinning gives the file back byte for byte.
func TestPinnedSurvivesDecay(t *testing.T) {
	s, dir := pyStore(t)
	ctx := context.Background()
	mem := filepath.Join(dir, "memory")
	pin := func(p string, on bool) {
		t.Helper()
		_, err := EditorOf(s).Rewrite(ctx, p, func(e *Entry) error {
			if on {
				e.Meta.Set(KeyPinned, "true")
			} else {
				e.Meta.Delete(KeyPinned)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ name, path string }{
		{"retired unless pinned", filepath.Join(mem, "knowledge", "api-gateway-503", "SKILL.md")},
		{"decayed unless pinned", filepath.Join(mem, "knowledge", "docker-build-cache", "SKILL.md")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := testutil.ReadFile(t, tc.path)
			pin(tc.path, true)
			pinned := testutil.ReadFile(t, tc.path)
			if !strings.Contains(pinned, "\npinned: true\n") {
				t.Fatalf("no pinned key:\n%s", pinned)
			}
			if _, err := s.DecayAll(ctx); err != nil {
				t.Fatal(err)
			}
			if got := testutil.ReadFile(t, tc.path); got != pinned {
				t.Errorf("pinned entry changed or moved by decay:\n%s", got)
			}
			pin(tc.path, false)
			if got := testutil.ReadFile(t, tc.path); got != orig {
				t.Errorf("unpinned file differs from the original:\n%s\n---\n%s", got, orig)
			}
		})
	}
}
