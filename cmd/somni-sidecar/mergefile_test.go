package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/memmerge"
	"github.com/somni-dev/somni/internal/testutil"
)

const mfPath = "memory/knowledge/docker-build-cache/SKILL.md"

// mfEntry is a knowledge entry whose lifecycle numbers and body vary.
func mfEntry(stability, score, lastUsed, body string) string {
	return "---\nname: docker-build-cache\ndescription: Docker builds need BuildKit\ntype: experience\nstability: " + stability +
		"\nscore: " + score + "\ncreated: 2026-10-01\nlast_used: " + lastUsed + "\nlast_decay: 2026-11-25\n---\n\n" + body
}

const mfBody = "Use the cache mount only with BuildKit.\n\n- Seen on the CI runner and on laptops.\n"

var (
	mfBase   = mfEntry("2", "0.5", "2026-11-20", mfBody)
	mfOurs   = mfEntry("3", "0.7", "2026-11-28", strings.Replace(mfBody, "laptops", "the staging hosts", 1))
	mfTheirs = mfEntry("3", "0.7", "2026-11-27", strings.Replace(mfBody, "laptops", "the build farm", 1))
)

// mfSiblingPath is where theirs goes when it conflicts with the entry at mfPath.
func mfSiblingPath(theirs string) string {
	sum := sha256.Sum256([]byte(theirs))
	return "memory/knowledge/docker-build-cache-conflict-" + hex.EncodeToString(sum[:])[:8] + "/SKILL.md"
}

func TestMergeFileDriver(t *testing.T) {
	tests := []struct {
		name               string
		base, ours, theirs string
		setup              func(t *testing.T, top string)
		wantCode           int
		wantOurs           string // %A afterwards
		wantSibling        bool
	}{
		{
			name: "both reinforced: merged numbers, no sibling",
			base: mfBase, ours: mfEntry("3", "0.7", "2026-11-28", mfBody), theirs: mfEntry("3", "0.7", "2026-11-27", mfBody),
			wantOurs: mfEntry("4", "0.9", "2026-11-28", mfBody),
		},
		{
			name: "both edited the same line: ours merged, theirs a sibling",
			base: mfBase, ours: mfOurs, theirs: mfTheirs,
			wantOurs:    mfEntry("4", "0.9", "2026-11-28", strings.Replace(mfBody, "laptops", "the staging hosts", 1)),
			wantSibling: true,
		},
		{
			name: "added on both sides (empty %O): a sibling",
			base: "", ours: mfOurs, theirs: mfTheirs,
			wantOurs: mfOurs, wantSibling: true,
		},
		{
			name: "the same sibling already there (the merge run again): merged",
			base: mfBase, ours: mfOurs, theirs: mfTheirs,
			setup: func(t *testing.T, top string) {
				if code := cmdMergeFile(mfWriteSides(t, top, mfBase, mfOurs, mfTheirs), &bytes.Buffer{}); code != 0 {
					t.Fatalf("first run: exit %d", code)
				}
			},
			wantOurs:    mfEntry("4", "0.9", "2026-11-28", strings.Replace(mfBody, "laptops", "the staging hosts", 1)),
			wantSibling: true,
		},
		{
			name: "another file at the sibling's path: not merged, ours left",
			base: mfBase, ours: mfOurs, theirs: mfTheirs,
			setup: func(t *testing.T, top string) {
				writeRaw(t, filepath.Join(top, mfSiblingPath(mfTheirs)), "someone else's\n")
			},
			wantCode: 1, wantOurs: mfOurs,
		},
		{
			name: "the sibling's folder is a link out of the work tree: not merged, nothing written there",
			base: mfBase, ours: mfOurs, theirs: mfTheirs,
			setup: func(t *testing.T, top string) {
				outside := t.TempDir()
				if err := os.MkdirAll(filepath.Join(top, "memory"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(outside, filepath.Join(top, "memory", "knowledge")); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if ents, _ := os.ReadDir(outside); len(ents) > 0 {
						t.Errorf("wrote %s through the link", ents[0].Name())
					}
				})
			},
			wantCode: 1, wantOurs: mfOurs,
		},
		{
			name: "ours too large: not merged, ours left",
			base: mfBase, ours: mfOurs + strings.Repeat("x", memmerge.MaxSideBytes), theirs: mfTheirs,
			wantCode: 1, wantOurs: mfOurs + strings.Repeat("x", memmerge.MaxSideBytes),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			t.Chdir(top)
			if tc.setup != nil {
				tc.setup(t, top)
			}
			args := mfWriteSides(t, top, tc.base, tc.ours, tc.theirs)
			var stderr bytes.Buffer
			code := cmdMergeFile(args, &stderr)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.wantCode, stderr.String())
			}
			if code == 0 && stderr.Len() > 0 {
				t.Errorf("stderr on success: %s", stderr.String())
			}
			if code != 0 && (strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), mfPath)) {
				t.Errorf("stderr is not one sentence naming the file: %q", stderr.String())
			}
			if got := testutil.ReadFile(t, args[1]); got != tc.wantOurs {
				t.Errorf("%%A:\n%s\nwant:\n%s", got, tc.wantOurs)
			}
			sib := filepath.Join(top, mfSiblingPath(tc.theirs))
			if tc.wantSibling {
				if got := testutil.ReadFile(t, sib); !strings.Contains(got, "the build farm") || !strings.Contains(got, "conflicts_with: docker-build-cache") {
					t.Errorf("sibling:\n%s", got)
				}
			} else if tc.wantCode == 0 {
				if _, err := os.Lstat(filepath.Dir(sib)); err == nil {
					t.Errorf("a sibling was written: %s", sib)
				}
			}
		})
	}
}

func TestMergeFileUsage(t *testing.T) {
	var stderr bytes.Buffer
	if code := cmdMergeFile([]string{"a", "b"}, &stderr); code != 2 || !strings.Contains(stderr.String(), "%O %A %B %P") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestMergeFileRealGit: two machines' clones edit the same entry, one pulls
// the other, and git runs the built sidecar as the merge driver.
func TestMergeFileRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	var probe bytes.Buffer
	cmd := exec.Command(binPath, "merge-file")
	cmd.Stderr = &probe
	_ = cmd.Run()
	if !strings.Contains(probe.String(), "usage: somni-sidecar merge-file") {
		t.Skip("the built somni-sidecar does not dispatch `merge-file` to cmdMergeFile yet (main.go's subcommand switch is the sync engine's change)")
	}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	mfGit(t, "", "init", "-q", "-b", "main", a)
	writeRaw(t, filepath.Join(a, ".gitattributes"), "*.md merge=somni\n")
	writeRaw(t, filepath.Join(a, filepath.FromSlash(mfPath)), mfBase)
	mfGit(t, a, "add", "-A")
	mfGit(t, a, "commit", "-q", "-m", "base")
	mfGit(t, "", "clone", "-q", a, b)
	mfGit(t, b, "config", "merge.somni.driver", binPath+" merge-file %O %A %B %P")

	writeRaw(t, filepath.Join(a, filepath.FromSlash(mfPath)), mfTheirs)
	mfGit(t, a, "commit", "-q", "-am", "machine a")
	writeRaw(t, filepath.Join(b, filepath.FromSlash(mfPath)), mfOurs)
	mfGit(t, b, "commit", "-q", "-am", "machine b")
	mfGit(t, b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")

	merged := testutil.ReadFile(t, filepath.Join(b, filepath.FromSlash(mfPath)))
	sibling := testutil.ReadFile(t, filepath.Join(b, filepath.FromSlash(mfSiblingPath(mfTheirs))))
	for _, s := range []string{merged, sibling} {
		if strings.Contains(s, "<<<<<<<") || strings.Contains(s, ">>>>>>>") {
			t.Fatalf("a conflict marker:\n%s", s)
		}
	}
	if !strings.Contains(merged, "the staging hosts") || !strings.Contains(merged, "stability: 4") {
		t.Errorf("entry:\n%s", merged)
	}
	if !strings.Contains(sibling, "the build farm") || !strings.Contains(sibling, "conflicts_with: docker-build-cache") {
		t.Errorf("sibling:\n%s", sibling)
	}
	if st := mfGit(t, b, "status", "--porcelain"); !strings.Contains(st, "?? memory/knowledge/docker-build-cache-conflict-") || strings.Contains(st, "UU") {
		t.Errorf("status after the merge (want the sibling untracked for the engine to add, nothing conflicted):\n%s", st)
	}
}

func mfGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// mfWriteSides writes git's three temp files into top and returns the driver's arguments.
func mfWriteSides(t *testing.T, top, base, ours, theirs string) []string {
	t.Helper()
	args := []string{".merge_file_O", ".merge_file_A", ".merge_file_B"}
	for i, s := range []string{base, ours, theirs} {
		writeRaw(t, filepath.Join(top, args[i]), s)
	}
	return append(args, mfPath)
}
