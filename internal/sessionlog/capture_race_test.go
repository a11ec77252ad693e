package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// TestCaptureCloseVersusMarkProcessed races the host closing a session against the dreamer archiving its
// log, and appends against both: every acknowledged message must be in exactly one log file, and no log
// may exist both pending and archived (it would be dreamed twice) or be recreated without a header.
func TestCaptureCloseVersusMarkProcessed(t *testing.T) {
	tests := []struct {
		name   string
		rounds int
		// appenders keep appending to the session while Close and MarkLogProcessed race.
		appenders int
		closeAll  bool
	}{
		{"close vs mark", 300, 0, false},
		{"closeAll vs mark", 300, 0, true},
		{"close vs mark with appends", 150, 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestLogs(t)
			c := s.Capture()
			var acked atomic.Int64
			for r := 0; r < tc.rounds; r++ {
				if _, err := c.Append("s", "user", fmt.Sprintf("round %d", r), "", "", ""); err != nil {
					t.Fatal(err)
				}
				acked.Add(1)
				c.mu.Lock()
				path := c.sessions["s"].path
				c.mu.Unlock()
				var wg sync.WaitGroup
				wg.Add(2 + tc.appenders)
				go func() {
					defer wg.Done()
					if tc.closeAll {
						c.CloseAll()
					} else if _, err := c.Close("s"); err != nil {
						t.Error(err)
					}
				}()
				go func() {
					defer wg.Done()
					_, _ = s.MarkProcessed(path) // may find it gone: the other side won
				}()
				for a := 0; a < tc.appenders; a++ {
					go func(a int) {
						defer wg.Done()
						for k := 0; k < 3; k++ {
							if _, err := c.Append("s", "agent", fmt.Sprintf("round %d appender %d #%d", r, a, k), "", "", ""); err != nil {
								t.Error(err)
								return
							}
							acked.Add(1)
						}
					}(a)
				}
				wg.Wait()
			}
			c.CloseAll()
			pending, _ := os.ReadDir(s.dir)
			archived, _ := os.ReadDir(filepath.Join(s.dir, "archived"))
			seen := map[string]bool{}
			for _, de := range archived {
				seen[strings.TrimSuffix(de.Name(), ".md")] = true
			}
			blocks := 0
			for _, d := range []string{s.dir, filepath.Join(s.dir, "archived")} {
				des, _ := os.ReadDir(d)
				for _, de := range des {
					if de.IsDir() {
						continue
					}
					p := filepath.Join(d, de.Name())
					data := testutil.ReadFile(t, p)
					if !strings.HasPrefix(data, "---\n") {
						t.Errorf("%s has no header:\n%s", p, data)
					}
					blocks += len(Parse(p, []byte(data)).Blocks)
				}
			}
			for _, de := range pending {
				if !de.IsDir() && seen[strings.TrimSuffix(de.Name(), ".md")] {
					t.Errorf("%s is both pending and archived", de.Name())
				}
			}
			if int64(blocks) != acked.Load() {
				t.Errorf("%d messages acknowledged, %d on disk", acked.Load(), blocks)
			}
		})
	}
}
