package gitsync

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestRemoteURLAsGitReadsIt: the remote the Health view names is the URL git
// itself reads from the config file, however git had to write it, with
// credentials left out.
func TestRemoteURLAsGitReadsIt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not installed: %v", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	tests := []struct{ url, want string }{
		{"/srv/memory.git", ""},
		{"git@github.com:me/memory.git", ""},
		{"ssh://git@git.example.invalid:2222/me/memory.git", ""},
		{`C:\Users\me\memory.git`, ""},
		{" /path with spaces;and#hash/memory.git", "/path with spaces;and#hash/memory.git"},
		{`/odd "quoted" name`, ""},
		{"https://x-access-token:ghp_secret@github.com/me/memory.git", "https://github.com/me/memory.git"},
		{"https://ghp_secret@github.com/me/memory.git", "https://github.com/me/memory.git"},
		{"ssh://me:hunter2@git.example.invalid/memory.git", "ssh://me@git.example.invalid/memory.git"},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		for _, args := range [][]string{{"init", "-q"}, {"config", "core.editor", "true"}, {"remote", "add", "upstream", "/elsewhere.git"}, {"remote", "add", "origin", tc.url}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		out, err := exec.Command("git", "-C", dir, "config", "--get", "remote.origin.url").Output()
		if err != nil {
			t.Fatal(err)
		}
		want := tc.want
		if want == "" {
			want = strings.TrimSuffix(string(out), "\n")
		}
		if got := RemoteURL(dir); got != want {
			t.Errorf("remote %q: read %q, want %q (git reads %q)", tc.url, got, want, strings.TrimSuffix(string(out), "\n"))
		}
	}
}
