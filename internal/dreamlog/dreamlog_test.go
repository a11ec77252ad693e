package dreamlog

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/testutil"
)

func TestDreamLogs(t *testing.T) {
	st, err := memory.Open(memory.Config{DataDir: testutil.Pydata(t), Now: func() time.Time { return testutil.FixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	s := New(st)
	if _, err := s.Write("no front matter"); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("accepted dream log without front-matter: %v", err)
	}
	var paths []string
	for i := 0; i < 3; i++ {
		p, err := s.Write("---\ntrigger: test\n---\n\ndream " + string(rune('a'+i)) + "\n")
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(p))
	}
	if strings.Join(paths, ",") != "2026-11-30_dream_001.md,2026-11-30_dream_002.md,2026-11-30_dream_003.md" {
		t.Errorf("numbering %v", paths)
	}
	logs, err := s.List()
	if err != nil || len(logs) != 4 || filepath.Base(logs[0]) != "2026-11-30_dream_003.md" {
		t.Errorf("List %v %v", logs, err)
	}
	txt, err := s.Read("2026-11-30_dream_002.md")
	if err != nil || !strings.Contains(txt, "dream b") {
		t.Errorf("read: %q %v", txt, err)
	}
	if _, err := s.Read("../knowledge/docker-build-cache/SKILL.md"); !errors.Is(err, memory.ErrUnsafeName) {
		t.Errorf("read outside dream-log: %v", err)
	}
}
