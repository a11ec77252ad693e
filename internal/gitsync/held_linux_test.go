package gitsync

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestLockHolder: a git lock file another process has open is held (and
// so never removed as stale); once that process is gone it is not.
func TestLockHolder(t *testing.T) {
	gitDir := filepath.Join(t.TempDir(), ".git")
	if err := os.MkdirAll(gitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(gitDir, "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sh", "-c", `exec 3<"$1"; echo ready; exec sleep 30`, "sh", lock)
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	if _, err := out.Read(make([]byte, 6)); err != nil {
		t.Fatal(err)
	}
	if held, known := lockHolder(lock, gitDir); !known || !held {
		t.Fatalf("held %v known %v while a process has it open", held, known)
	}
	_ = holder.Process.Kill()
	_ = holder.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		held, known := lockHolder(lock, gitDir)
		if known && !held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("held %v known %v after its holder died", held, known)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
