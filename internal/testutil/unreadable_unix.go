//go:build unix

package testutil

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Unreadable is one way a file its reader must survive can be damaged.
type Unreadable struct {
	Name  string
	Plant func(t *testing.T, p string)
}

// UnreadableFiles are what an attacker, a bad copy or a full disk leaves
// where a bounded file belongs: one whose good first line is followed by a
// sparse hole up to size bytes (no disk used), a FIFO, a directory, a link
// out of the tree and a dangling link. size is the caller's to choose,
// because what counts as too big is the reader's own bound.
func UnreadableFiles(line string, size int64) []Unreadable {
	return []Unreadable{
		{"over its bound", func(t *testing.T, p string) {
			writeFile(t, p, line)
			if err := os.Truncate(p, size); err != nil {
				t.Fatal(err)
			}
		}},
		{"a FIFO", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory", func(t *testing.T, p string) {
			if err := os.MkdirAll(filepath.Join(p, "inside"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"a link outside", func(t *testing.T, p string) {
			outside := filepath.Join(t.TempDir(), filepath.Base(p))
			writeFile(t, outside, line)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
		}},
		{"a dangling link", func(t *testing.T, p string) {
			if err := os.Symlink("gone", p); err != nil {
				t.Fatal(err)
			}
		}},
	}
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
