package gitsync

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
	"github.com/somni-dev/somni/internal/usage"
)

// The engine against real git: a bare repository on disk is the remote and
// each machine a data dir. The merge driver is `false`, a driver that always
// fails, so what the engine itself settles is what is tested here; the real
// driver is tested through the binary (cmd/somni-sidecar).

const failingDriver = "false"

// quiet keeps the engine's log out of the test output.
var quiet = WithLogger(slog.New(slog.DiscardHandler))

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not installed, and sync is tested with the real git: install it (apt install git): %v", err)
	}
	// A developer's signing, hooks or default branch must not reach the tests.
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func bare(t *testing.T) string {
	t.Helper()
	needGit(t)
	p := filepath.Join(t.TempDir(), "memory.git")
	gitT(t, t.TempDir(), "init", "-q", "--bare", p)
	return p
}

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

func entry(name, score, body string) string {
	return "---\nname: " + name + "\ndescription: " + name + " note\ntype: fact\nstability: 1\nscore: " + score +
		"\ncreated: 2026-11-01\nlast_used: 2026-11-20\n---\n\n" + body + "\n"
}

func round(t *testing.T, dir string) Report {
	t.Helper()
	rep, err := Round(context.Background(), dir, WithDriver(failingDriver), quiet)
	if err != nil {
		t.Fatalf("round on %s: %v", filepath.Base(dir), err)
	}
	return rep
}

// pair is two machines in step on remote, both holding entry kafka-port.
func pair(t *testing.T) (a, b, remote string) {
	t.Helper()
	remote = bare(t)
	a, b = filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	write(t, a, "memory/knowledge/kafka-port/SKILL.md", entry("kafka-port", "0.5", "The staging kafka listens on port 9094."))
	for _, dir := range []string{a, b} {
		if _, err := Init(context.Background(), dir, remote, WithDriver(failingDriver), quiet); err != nil {
			t.Fatalf("init %s: %v", filepath.Base(dir), err)
		}
	}
	return a, b, remote
}

const (
	activeRel   = "memory/knowledge/kafka-port/SKILL.md"
	archivedRel = "memory/archived/kafka-port/SKILL.md"
)

// TestArchiveEditWins: an entry archived on one machine while the other
// edited it is active with the edit on both machines afterwards, whichever
// machine syncs first; a change of its lifecycle numbers alone is no edit,
// and the archive then stands.
func TestArchiveEditWins(t *testing.T) {
	tests := []struct {
		name          string
		archiveFirst  bool // the archiving machine syncs first
		edit          string
		wantActive    bool
		wantInArchive string
	}{
		{"archived first, edited second", true, entry("kafka-port", "0.5", "The staging kafka moved to port 9095."), true, ""},
		{"edited first, archived second", false, entry("kafka-port", "0.5", "The staging kafka moved to port 9095."), true, ""},
		{"only its score changed: the archive stands", true, entry("kafka-port", "0.61", "The staging kafka listens on port 9094."), false, "score: 0.61"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			archiver, editor, _ := pair(t)
			if err := os.MkdirAll(filepath.Join(archiver, "memory", "archived"), 0o755); err != nil {
				t.Fatal(err)
			}
			// The store's archive is a move of the entry's folder (memory.MoveToFreeName).
			if err := os.Rename(filepath.Join(archiver, "memory/knowledge/kafka-port"), filepath.Join(archiver, "memory/archived/kafka-port")); err != nil {
				t.Fatal(err)
			}
			write(t, editor, activeRel, tc.edit)
			first, second := archiver, editor
			if !tc.archiveFirst {
				first, second = editor, archiver
			}
			round(t, first)
			round(t, second)
			round(t, first)
			for _, dir := range []string{archiver, editor} {
				active, isActive := read(t, dir, activeRel)
				archived, isArchived := read(t, dir, archivedRel)
				if isActive != tc.wantActive || isArchived == tc.wantActive {
					t.Fatalf("%s: active %v, archived %v (want active %v)\nactive:\n%s\narchived:\n%s", filepath.Base(dir), isActive, isArchived, tc.wantActive, active, archived)
				}
				if tc.wantActive && !strings.Contains(active, "port 9095") {
					t.Fatalf("%s: the edit is lost:\n%s", filepath.Base(dir), active)
				}
				if !tc.wantActive && !strings.Contains(archived, tc.wantInArchive) {
					t.Fatalf("%s: the archived entry lost the other machine's change:\n%s", filepath.Base(dir), archived)
				}
			}
		})
	}
}

// TestRoundSettlesWhatTheDriverLeft: with a merge driver that fails, a file
// both machines changed is still merged (memmerge, by the engine), the
// other machine's text kept as a sibling, no conflict marker anywhere, and a
// file that is not Markdown (git's line merge conflicts) keeps both too.
func TestRoundSettlesWhatTheDriverLeft(t *testing.T) {
	a, b, _ := pair(t)
	write(t, a, activeRel, entry("kafka-port", "0.5", "The staging kafka listens on port 9095 (a)."))
	write(t, b, activeRel, entry("kafka-port", "0.5", "The staging kafka listens on port 9096 (b)."))
	write(t, a, "memory/dream-log/.runs/2026-12-01_120000.json", "{\"id\": \"from a\"}\n")
	write(t, b, "memory/dream-log/.runs/2026-12-01_120000.json", "{\"id\": \"from b\"}\n")
	round(t, a)
	rep := round(t, b)
	if len(rep.Conflicts) != 2 || !rep.InStep {
		t.Fatalf("report: %+v\n%s", rep, rep)
	}
	round(t, a)
	for _, dir := range []string{a, b} {
		all := ""
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				b, _ := os.ReadFile(p)
				all += string(b)
				if strings.Contains(string(b), "<<<<<<<") {
					t.Fatalf("%s holds a conflict marker:\n%s", p, b)
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"port 9095 (a)", "port 9096 (b)", "conflicts_with: kafka-port", "from a", "from b"} {
			if !strings.Contains(all, want) {
				t.Fatalf("%s lost %q", filepath.Base(dir), want)
			}
		}
	}
}

// TestPushRetries: a push the remote rejects is fetched, merged and pushed
// again; one it keeps rejecting ends after maxPushAttempts with
// KindRejected and a sentence that says what to do.
func TestPushRetries(t *testing.T) {
	tests := []struct {
		name         string
		hook         string
		wantAttempts int
		wantKind     Kind
	}{
		{"rejected once", "[ -f rejected-once ] && exit 0\ntouch rejected-once\necho 'another machine is pushing' >&2\nexit 1\n", 2, KindOther},
		{"rejected always", "echo 'protected branch' >&2\nexit 1\n", maxPushAttempts, KindRejected},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, _, remote := pair(t)
			write(t, filepath.Join(remote, "hooks"), "pre-receive", "#!/bin/sh\n"+tc.hook)
			if err := os.Chmod(filepath.Join(remote, "hooks", "pre-receive"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, a, "memory/knowledge/deploy-window/SKILL.md", entry("deploy-window", "0.5", "Deploys go out on Tuesdays."))
			rep, err := Round(context.Background(), a, WithDriver(failingDriver), quiet)
			if KindOf(err) != tc.wantKind || rep.Attempts != tc.wantAttempts {
				t.Fatalf("kind %v (want %v), attempts %d (want %d), err %v", KindOf(err), tc.wantKind, rep.Attempts, tc.wantAttempts, err)
			}
			if err == nil && !rep.InStep {
				t.Fatalf("not in step after the retry: %s", rep)
			}
			if err != nil && !strings.Contains(err.Error(), "run sync again") {
				t.Fatalf("sentence: %v", err)
			}
		})
	}
}

// TestGuardOutgoing: a commit a person made by hand in the data dir is
// scanned like a round's own: one holding a secret is not pushed.
func TestGuardOutgoing(t *testing.T) {
	a, _, remote := pair(t)
	const token = "ghp_HLVar1uFJtGed4GJDwuDosUovYndV5ei5Zb5"
	write(t, a, "memory/knowledge/ci/SKILL.md", entry("ci", "0.5", "The CI token is "+token))
	gitT(t, a, "add", "-A")
	gitT(t, a, "commit", "-q", "-m", "by hand")
	_, err := Round(context.Background(), a, WithDriver(failingDriver), quiet)
	if KindOf(err) != KindBlocked || !strings.Contains(err.Error(), "memory/knowledge/ci/SKILL.md") {
		t.Fatalf("want the hand commit refused, naming the file: %v", err)
	}
	if strings.Contains(gitT(t, remote, "log", "--all", "-p"), token) {
		t.Fatal("the remote holds the secret")
	}
}

// TestIgnoreCoversMachineLocalFiles: every machine-local file the store,
// the index and the plugin write is ignored by the .gitignore Init writes,
// and the memory itself is not.
func TestIgnoreCoversMachineLocalFiles(t *testing.T) {
	a, _, _ := pair(t)
	st, err := memory.Open(memory.Config{DataDir: a})
	if err != nil {
		t.Fatal(err)
	}
	write1, dream := st.LockFiles()
	journal, folding := usage.Of(st).Files()
	local := []string{write1, dream, journal, folding,
		filepath.Join(st.MemoryDir(), usage.Quarantine+"20261201T120000"),
		filepath.Join(a, "index.sqlite"), filepath.Join(a, "index.sqlite-wal"), filepath.Join(a, "index.sqlite-shm"),
		filepath.Join(a, "logs", "somni.log"), filepath.Join(a, "logs", "somni.log.1"),
		filepath.Join(st.MemoryDir(), "session-log", "2026-12-01_001.md"),
		filepath.Join(st.MemoryDir(), "knowledge", "x", safefs.TempPrefix+"SKILL.md"+safefs.TempInfix+"abc123")}
	for _, p := range local {
		r, _ := filepath.Rel(a, p)
		if c := exec.Command("git", "-C", a, "check-ignore", "-q", "--no-index", r); c.Run() != nil {
			t.Errorf("%s would travel", r)
		}
	}
	for _, r := range []string{activeRel, archivedRel, "memory/about_me.md", "memory/dream-log/2026-12-01_dream_001.md",
		"skills/agent_learned_skills/x/SKILL.md", "memory/session-log.md"} {
		if c := exec.Command("git", "-C", a, "check-ignore", "-q", "--no-index", r); c.Run() == nil {
			t.Errorf("%s is ignored", r)
		}
	}
}

// TestInitConfig: Init registers the merge driver for Markdown (in
// .gitattributes, which travels, and .git/info/attributes, which a remote
// cannot override) and checks links out as plain files.
func TestInitConfig(t *testing.T) {
	a, _, _ := pair(t)
	for key, want := range map[string]string{
		"merge.somni.driver": DriverCommand(failingDriver),
		"core.symlinks":      "false",
	} {
		if got := strings.TrimSpace(gitT(t, a, "config", "--local", key)); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if got := gitT(t, a, "check-attr", "merge", "--", activeRel); !strings.Contains(got, "merge: somni") {
		t.Errorf("check-attr: %s", got)
	}
	for _, p := range []string{".gitattributes", ".git/info/attributes"} {
		if got, _ := read(t, a, p); !strings.Contains(got, "*.md merge=somni") {
			t.Errorf("%s:\n%s", p, got)
		}
	}
}

// TestRoundNeedsInit: a data dir a person keeps in git by hand, with an
// origin of its own, is not synced (nor is its remote pushed to) until
// `sync init` was run on it.
func TestRoundNeedsInit(t *testing.T) {
	remote := bare(t)
	dir := t.TempDir()
	write(t, dir, activeRel, entry("kafka-port", "0.5", "The staging kafka listens on port 9094."))
	gitT(t, dir, "init", "-q")
	gitT(t, dir, "remote", "add", "origin", remote)
	if Configured(dir) {
		t.Fatal("a hand-made repository counts as set up")
	}
	for name, run := range map[string]func() error{
		"Round":  func() error { _, err := Round(context.Background(), dir, quiet); return err },
		"Status": func() error { _, err := Status(context.Background(), dir, quiet); return err },
	} {
		if err := run(); KindOf(err) != KindNotInitialised || !strings.Contains(err.Error(), "sync init REMOTE") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if out := gitT(t, remote, "for-each-ref"); out != "" {
		t.Fatalf("the remote was written to:\n%s", out)
	}
	if _, err := Init(context.Background(), dir, remote, WithDriver(failingDriver), quiet); err != nil || !Configured(dir) {
		t.Fatalf("init: %v, configured %v", err, Configured(dir))
	}
}
