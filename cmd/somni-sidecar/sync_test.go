package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/testutil"
)

// Sync is tested as a person meets it: the built binary, real git, a bare
// repository on disk as the remote and each machine a data dir of its own.

// syncEnv keeps a developer's own git config (signing, hooks, a default
// branch) out of the tests: sync must work on a machine with none.
var syncEnv = []string{"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1"}

// needGit fails, never skips, when git is missing: CI installs it, and a
// sync test that skipped would pass a broken engine.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not installed, and sync is tested with the real git: install it (apt install git): %v", err)
	}
}

// bareRemote is an empty bare repository, the remote every machine shares.
func bareRemote(t *testing.T) string {
	t.Helper()
	needGit(t)
	p := filepath.Join(t.TempDir(), "memory.git")
	gitT(t, "", "init", "-q", "--bare", p)
	return p
}

// gitT runs git for a test's own look or set-up and returns its output.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.invalid"}, args...)...)
	cmd.Env = append(os.Environ(), syncEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// syncRun runs `somni-sidecar --data-dir dir sync args…`.
func syncRun(t *testing.T, dir string, args ...string) cliRun {
	t.Helper()
	return runCLIEnv(t, syncEnv, "", append([]string{"--data-dir", dir, "--embed", "off", "sync"}, args...)...)
}

// syncOK runs sync and fails the test unless it exited 0 with a quiet stderr.
func syncOK(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := syncRun(t, dir, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("sync %s on %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), filepath.Base(dir), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// note writes a knowledge entry as a person or a dream would leave it.
func note(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, "memory", "knowledge", name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "---\nname: " + name + "\ndescription: " + name + " note\ntype: fact\nstability: 1\nscore: 0.5\ncreated: 2026-11-01\n---\n\n" + body + "\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// memoryFiles maps each Markdown file of a data dir (git's folder and the
// raw session logs, which stay on their machine, left out) to its text.
func memoryFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "session-log") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			r, _ := filepath.Rel(dir, p)
			files[filepath.ToSlash(r)] = testutil.ReadFile(t, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sameMemory fails unless two machines hold the same files with the same texts.
func sameMemory(t *testing.T, a, b string) map[string]string {
	t.Helper()
	fa, fb := memoryFiles(t, a), memoryFiles(t, b)
	if ka, kb := strings.Join(sortedKeys(fa), "\n"), strings.Join(sortedKeys(fb), "\n"); ka != kb {
		t.Fatalf("the machines hold different files:\n%s\n--- and ---\n%s", ka, kb)
	}
	for p, text := range fa {
		if fb[p] != text {
			t.Fatalf("%s differs:\n%s\n--- and ---\n%s", p, text, fb[p])
		}
	}
	return fa
}

// recallFinds fails unless `recall query` on dir prints every want.
func recallFinds(t *testing.T, dir, query string, wants ...string) {
	t.Helper()
	r := runCLIEnv(t, nil, "", "--data-dir", dir, "--embed", "off", "recall", query)
	if r.code != 0 {
		t.Fatalf("recall %q on %s: exit %d: %s", query, filepath.Base(dir), r.code, r.stderr)
	}
	mustContain(t, "recall "+query, r.stdout, wants...)
}

// twoMachines is two data dirs with different memories, both joined to one
// remote and in step.
func twoMachines(t *testing.T) (a, b, remote string) {
	t.Helper()
	remote = bareRemote(t)
	a, b = filepath.Join(t.TempDir(), "laptop"), filepath.Join(t.TempDir(), "desktop")
	note(t, a, "staging-kafka-port", "The staging kafka listens on port 9094.")
	note(t, b, "deploy-window", "Deploys go out on Tuesdays at 14:00, never on Fridays.")
	syncOK(t, a, "init", remote)
	syncOK(t, b, "init", remote)
	syncOK(t, a)
	return a, b, remote
}

// TestSyncTwoMachinesConverge: two machines with different memories hold
// the same files after `sync init` on each and one more round on the first,
// both say they are in step, and recall on each finds the other's note.
func TestSyncTwoMachinesConverge(t *testing.T) {
	a, b, _ := twoMachines(t)
	files := sameMemory(t, a, b)
	for _, want := range []string{"memory/knowledge/staging-kafka-port/SKILL.md", "memory/knowledge/deploy-window/SKILL.md"} {
		if _, ok := files[want]; !ok {
			t.Fatalf("%s did not travel; files: %v", want, sortedKeys(files))
		}
	}
	recallFinds(t, a, "when do deploys go out", "deploy-window", "Tuesdays")
	recallFinds(t, b, "staging kafka port", "staging-kafka-port", "9094")
	for _, dir := range []string{a, b} {
		st := syncRun(t, dir, "status")
		if st.code != 0 || !strings.HasPrefix(st.stdout, "in step with origin") || !strings.Contains(st.stdout, "last round: ") {
			t.Fatalf("status on %s: exit %d\n%s%s", filepath.Base(dir), st.code, st.stdout, st.stderr)
		}
	}
	// Machine-local files stay home: the index both recalls just built.
	if out := gitT(t, a, "ls-files"); strings.Contains(out, "index.sqlite") || strings.Contains(out, ".somni.lock") {
		t.Fatalf("machine-local files were committed:\n%s", out)
	}
}

// TestSyncBothEditedOneEntry: one entry edited differently on both machines
// ends with both texts on both machines, the other's as a sibling entry,
// no conflict marker anywhere, and recall finds both.
func TestSyncBothEditedOneEntry(t *testing.T) {
	a, b, _ := twoMachines(t)
	note(t, a, "staging-kafka-port", "The staging kafka listens on port 9095 since the laptop move.")
	note(t, b, "staging-kafka-port", "The staging kafka listens on port 9096 behind the new proxy.")
	syncOK(t, a)
	out := syncOK(t, b)
	mustContain(t, "the round that merged", out, "merged 1 entry both machines changed", "kept 1 conflicting text")
	syncOK(t, a)
	files := sameMemory(t, a, b)
	var texts strings.Builder
	for p, text := range files {
		if strings.Contains(text, "<<<<<<<") || strings.Contains(text, ">>>>>>>") {
			t.Fatalf("%s holds a conflict marker:\n%s", p, text)
		}
		if strings.Contains(p, "staging-kafka-port") {
			texts.WriteString(text)
		}
	}
	mustContain(t, "the entry and its sibling", texts.String(), "port 9095 since the laptop move", "port 9096 behind the new proxy", "conflicts_with: staging-kafka-port")
	recallFinds(t, a, "staging kafka port", "9095", "9096")
}

// TestSyncHoldsBackSecret: a secret typed by hand into a knowledge file is
// held back (a new file stays unsent, a tracked one keeps its last clean
// version on the remote), sync names the file and exits 1, the rest of the
// round's changes still travel, and the remote's history never holds it.
func TestSyncHoldsBackSecret(t *testing.T) {
	a, b, remote := twoMachines(t)
	const keyID, secretKey, token = "AKIAIDVWTFKTANGPVYQE", "djzYPzxiBzSlHNJqiJ5PqKfUg7z1xtn1DjaiZ9sH", "ghp_HLVar1uFJtGed4GJDwuDosUovYndV5ei5Zb5"
	note(t, a, "aws-creds", "For the backup bucket:\nexport AWS_ACCESS_KEY_ID="+keyID+"\nexport AWS_SECRET_ACCESS_KEY="+secretKey)
	note(t, a, "deploy-window", "Deploys go out on Tuesdays at 14:00; the CLI token is "+token)
	note(t, a, "release-train", "The release train leaves every second Wednesday.")
	r := syncRun(t, a)
	if r.code == 0 {
		t.Fatalf("sync sent a secret and said in step:\n%s", r.stdout)
	}
	mustContain(t, "sync's report", r.stdout+r.stderr, "memory/knowledge/aws-creds/SKILL.md", "memory/knowledge/deploy-window/SKILL.md", "held back", "secret")
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 {
		t.Fatalf("stderr is not one sentence:\n%s", r.stderr)
	}
	history := gitT(t, remote, "log", "--all", "-p")
	for _, s := range []string{keyID, secretKey, token} {
		if strings.Contains(history, s) {
			t.Fatalf("the remote's history holds %s", s)
		}
	}
	if !strings.Contains(history, "second Wednesday") {
		t.Fatal("the clean change of the same round was not sent")
	}
	if got := gitT(t, remote, "show", "main:memory/knowledge/deploy-window/SKILL.md"); !strings.Contains(got, "never on Fridays") {
		t.Fatalf("the remote lost the last clean version of the file that now holds a secret:\n%s", got)
	}
	if st := syncRun(t, a, "status"); st.code == 0 {
		t.Fatalf("status says in step with a file held back:\n%s", st.stdout)
	}
	// Taking the secrets out sends the files.
	note(t, a, "aws-creds", "The backup bucket's keys are in the team vault.")
	note(t, a, "deploy-window", "Deploys go out on Tuesdays at 14:00; the CLI token is in the vault.")
	syncOK(t, a)
	syncOK(t, b)
	sameMemory(t, a, b)
}

// TestSyncRemoteUnreachable: a remote that is not there or does not answer
// is one sentence on stderr with what to do and exit 1, for `sync init`,
// `sync` and `sync status`; the memory files are untouched and recall works.
func TestSyncRemoteUnreachable(t *testing.T) {
	needGit(t)
	tests := []struct{ name, remote string }{
		{"a path that does not exist", filepath.Join(t.TempDir(), "no-such-repo.git")},
		{"nothing listens on the port", "git://127.0.0.1:1/memory.git"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "laptop")
			p := note(t, dir, "staging-kafka-port", "The staging kafka listens on port 9094.")
			before := testutil.ReadFile(t, p)
			for _, args := range [][]string{{"init", tc.remote}, {}, {"status"}} {
				r := syncRun(t, dir, args...)
				if r.code == 0 {
					t.Fatalf("sync %v: exit 0 with the remote down\n%s", args, r.stdout)
				}
				said := r.stderr
				if len(args) > 0 && args[0] == "status" {
					said = r.stdout
				}
				mustContain(t, "sync "+strings.Join(args, " "), said, "cannot reach "+tc.remote, "run sync again")
				if len(args) == 0 || args[0] == "init" {
					if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 {
						t.Fatalf("sync %v: stderr is not one sentence:\n%s", args, r.stderr)
					}
				}
			}
			if got := testutil.ReadFile(t, p); got != before {
				t.Fatalf("the memory file changed:\n%s", got)
			}
			recallFinds(t, dir, "staging kafka port", "staging-kafka-port", "9094")
		})
	}
}

// TestSyncRecoversFromKill: what a kill -9 in the middle of a round leaves
// behind, git's index.lock and a merge half done (conflict markers in the
// work tree, MERGE_HEAD), does not stop the next round: it completes, the
// machines converge and no marker is left.
func TestSyncRecoversFromKill(t *testing.T) {
	tests := []struct {
		name  string
		leave func(t *testing.T, a string)
	}{
		{"a stale index.lock", func(t *testing.T, a string) {}},
		{"a merge stopped with conflict markers", func(t *testing.T, a string) {
			// The round had recorded its change and was merging when killed:
			// git's line merge as the driver leaves what git leaves.
			gitT(t, a, "add", "-A")
			gitT(t, a, "commit", "-q", "-m", "recorded before the kill")
			gitT(t, a, "fetch", "-q", "origin")
			cmd := exec.Command("git", "-C", a, "-c", "merge.somni.driver=git merge-file %A %O %B", "-c", "user.name=t", "-c", "user.email=t@example.invalid",
				"merge", "--no-edit", "origin/main")
			cmd.Env = append(os.Environ(), syncEnv...)
			if out, err := cmd.CombinedOutput(); err == nil {
				t.Fatalf("the simulated merge did not stop:\n%s", out)
			}
			if !strings.Contains(testutil.ReadFile(t, filepath.Join(a, "memory/knowledge/staging-kafka-port/SKILL.md")), "<<<<<<<") {
				t.Fatal("the simulated merge left no conflict marker")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b, _ := twoMachines(t)
			note(t, a, "staging-kafka-port", "The staging kafka listens on port 9095 since the laptop move.")
			note(t, b, "staging-kafka-port", "The staging kafka listens on port 9096 behind the new proxy.")
			syncOK(t, b)
			tc.leave(t, a)
			lock := filepath.Join(a, ".git", "index.lock")
			if err := os.WriteFile(lock, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(lock, old, old); err != nil {
				t.Fatal(err)
			}
			syncOK(t, a)
			syncOK(t, b)
			files := sameMemory(t, a, b)
			var texts strings.Builder
			for p, text := range files {
				if strings.Contains(text, "<<<<<<<") {
					t.Fatalf("%s holds a conflict marker:\n%s", p, text)
				}
				texts.WriteString(text)
			}
			mustContain(t, "both machines' texts", texts.String(), "port 9095", "port 9096")
		})
	}
}

// TestSyncPythonDataDir: a data dir the Python sidecar made joins a remote
// as it is, and a new machine with no memory yet receives all of it (the
// raw session logs stay home) and recalls from it.
func TestSyncPythonDataDir(t *testing.T) {
	remote := bareRemote(t)
	py := testutil.Pydata(t)
	out := syncOK(t, py, "init", remote)
	mustContain(t, "sync init", out, "now syncs with "+remote, "in step with origin")
	fresh := filepath.Join(t.TempDir(), "new-machine")
	syncOK(t, fresh, "init", remote)
	files := sameMemory(t, py, fresh)
	if _, ok := files["memory/knowledge/docker-build-cache/SKILL.md"]; !ok {
		t.Fatalf("the Python-made entries did not travel: %v", sortedKeys(files))
	}
	if _, err := os.Stat(filepath.Join(fresh, "memory", "session-log")); err == nil {
		t.Fatal("raw session logs travelled")
	}
	recallFinds(t, fresh, "docker build cache", "docker-build-cache")
}

// TestSyncRefusals: a mistyped command exits 2, a data dir never set up and
// a machine without git exit 1, each with one sentence that says what to do.
func TestSyncRefusals(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	note(t, dir, "staging-kafka-port", "The staging kafka listens on port 9094.")
	tests := []struct {
		name   string
		env    []string
		args   []string
		code   int
		stderr []string
	}{
		{"unknown subcommand", nil, []string{"pull"}, 2, []string{`unknown "pull"`, "sync init REMOTE", "sync status"}},
		{"init without a remote", nil, []string{"init"}, 2, []string{"give one remote"}},
		{"a round before init", nil, nil, 1, []string{"is not synced yet", "sync init REMOTE"}},
		{"status before init", nil, []string{"status"}, 1, []string{"is not synced yet", "sync init REMOTE"}},
		{"no git on PATH", []string{"PATH=" + t.TempDir()}, []string{"init", "/tmp/x.git"}, 1, []string{"git is not installed", "install it", "run sync again"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLIEnv(t, append(append([]string{}, syncEnv...), tc.env...), "", append([]string{"--data-dir", dir, "sync"}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 {
				t.Fatalf("stderr is not one sentence:\n%s", r.stderr)
			}
			mustContain(t, "stderr", r.stderr, tc.stderr...)
		})
	}
}
