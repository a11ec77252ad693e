package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// teamEntry writes a shared entry into a pool folder as a teammate's
// approved share leaves it (or a pull brings it).
func teamEntry(t *testing.T, pool, name, sharedBy, body string) string {
	t.Helper()
	p := filepath.Join(pool, "knowledge", name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "---\nname: " + name + "\ndescription: " + name + " (team)\ntype: fact\nshared_by: " + sharedBy + "\nshared: 2026-12-01\n---\n\n" + body + "\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// projectWithPool is a project repository whose .somni pool holds one
// committed shared entry, mounted on a fresh data dir with `team add`.
func projectWithPool(t *testing.T) (data, proj, pool string) {
	t.Helper()
	needGit(t)
	proj = filepath.Join(t.TempDir(), "proj")
	pool = filepath.Join(proj, ".somni")
	teamEntry(t, pool, "staging-postgres-port", "Alice", "Our staging Postgres listens on port 6543, not 5432.")
	gitT(t, "", "init", "-q", "-b", "main", proj)
	gitT(t, proj, "add", "-A")
	gitT(t, proj, "commit", "-q", "-m", "team memory")
	data = filepath.Join(t.TempDir(), "data")
	note(t, data, "my-editor", "I use helix with the default keymap.")
	r := runCLIEnv(t, syncEnv, "", "--data-dir", data, "team", "add", "backend", pool)
	if r.code != 0 || !strings.Contains(r.stdout, "mounted team backend") {
		t.Fatalf("team add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return data, proj, pool
}

// TestTeamPoolRecalled: a project's pool mounted with `team add` is
// recalled beside the personal memory, by the CLI, the recall tool, the
// search tool and a hint, each naming the origin (team and who shared it);
// a teammate's entry arriving in the folder (a pull) is recalled without
// a restart; recalling and dreaming never change the project's working tree.
func TestTeamPoolRecalled(t *testing.T) {
	data, proj, pool := projectWithPool(t)
	recallFinds(t, data, "staging postgres port", "staging-postgres-port", "team backend, shared by Alice: "+filepath.Join(pool, "knowledge"))
	list := runCLIEnv(t, nil, "", "--data-dir", data, "team", "list")
	mustContain(t, "team list", list.stdout, "backend\t"+pool)

	s := start(t, data, []string{"--sync-interval", "off"})
	var ok struct{ OK bool }
	s.call("index.sync", map[string]any{"reason": "test"}, &ok)
	out := s.tool("recall_memories", map[string]any{"query": "which port does staging postgres use", "limit": 5})
	mustContain(t, "recall_memories", out, "staging-postgres-port", "· team backend, shared by Alice: knowledge/staging-postgres-port/SKILL.md")
	if strings.Contains(out, proj) {
		t.Errorf("the recall shows the project's path:\n%s", out)
	}
	mustContain(t, "search_knowledge", s.tool("search_knowledge", map[string]any{"query": "postgres"}), "team backend, shared by Alice")
	var thought struct {
		Items []struct{ Name, Path string }
		Hint  string
	}
	s.call("assoc.thought", map[string]any{"sessionId": "a", "cue": "psql to the staging Postgres on port 5432 fails: connection refused"}, &thought)
	if len(thought.Items) == 0 || thought.Items[0].Name != "staging-postgres-port" {
		t.Errorf("no hint for the team entry: %+v", thought)
	} else {
		mustContain(t, "hint", thought.Hint, "team backend, shared by Alice")
	}
	// The personal memory is still there, unlabelled.
	mustContain(t, "personal", s.tool("recall_memories", map[string]any{"query": "helix keymap editor"}), "· memory/knowledge/my-editor/SKILL.md")

	// A teammate's entry arrives (a git pull, here written in place).
	teamEntry(t, pool, "deploy-freeze", "Bob", "No deploys on Fridays after 15:00: the release freeze.")
	took := waitRecall(t, s, "release freeze fridays deploys", "team backend, shared by Bob")
	t.Logf("a teammate's new entry was recalled %s after it landed", took)

	dreamWith(t, s, "")
	s.call("session.closeAll", nil, nil)
	s.call("shutdown", nil, nil)
	s.waitExit()
	if st := gitT(t, proj, "status", "--porcelain", "--ignored"); strings.TrimSpace(st) != "?? .somni/knowledge/deploy-freeze/" {
		t.Errorf("recall and a dream changed the project's tree; git status:\n%s", st)
	}
	if got := testutil.ReadFile(t, filepath.Join(pool, "knowledge", "staging-postgres-port", "SKILL.md")); strings.Contains(got, "last_used") || strings.Contains(got, "stability") {
		t.Errorf("the team entry was rewritten with this machine's lifecycle numbers:\n%s", got)
	}
}

// TestTeamFlagAndRemove: --team mounts a pool for one run without writing
// teams.yml; `team remove` unmounts it, leaving its folder, and recall no
// longer shows it.
func TestTeamFlagAndRemove(t *testing.T) {
	data, _, pool := projectWithPool(t)
	other := filepath.Join(t.TempDir(), "ops")
	teamEntry(t, other, "pager-rotation", "Carol", "The on-call pager rotates every Monday at 09:00.")
	r := runCLIEnv(t, nil, "", "--data-dir", data, "--embed", "off", "--team", "ops="+other, "recall", "on-call pager rotation")
	mustContain(t, "recall --team", r.stdout, "team ops, shared by Carol")
	if strings.Contains(testutil.ReadFile(t, filepath.Join(data, "teams.yml")), "ops") {
		t.Error("--team was written to teams.yml")
	}
	rm := runCLIEnv(t, nil, "", "--data-dir", data, "team", "remove", "backend")
	mustContain(t, "team remove", rm.stdout, "unmounted team backend; its folder "+pool+" is untouched")
	after := runCLIEnv(t, nil, "", "--data-dir", data, "--embed", "off", "recall", "staging postgres port")
	if strings.Contains(after.stdout, "team backend") {
		t.Errorf("an unmounted pool is still recalled:\n%s", after.stdout)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"team", "remove", "backend"}, 1, "no team named backend is mounted"},
		{[]string{"team", "add", "ops"}, 2, "give a name and the pool's folder"},
		{[]string{"team", "add", "Ops", other}, 1, "lower-case letters"},
		{[]string{"team", "frobnicate"}, 2, "unknown"},
		{[]string{"--team", "nofolder", "recall", "x"}, 2, "want NAME=FOLDER"},
	} {
		r := runCLIEnv(t, nil, "", append([]string{"--data-dir", data}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}

// TestTeamClonedRepository: two teammates mount one team repository (a
// bare remote) with `team add NAME REMOTE`; what A's clone gains reaches
// B's recall after `team sync` on each, and B's running sidecar follows by
// its own automatic sync; the personal sync of A's data dir never carries
// the clone.
func TestTeamClonedRepository(t *testing.T) {
	remote := bareRemote(t)
	a, b := filepath.Join(t.TempDir(), "alice"), filepath.Join(t.TempDir(), "bob")
	for _, d := range []string{a, b} {
		r := runCLIEnv(t, syncEnv, "", "--data-dir", d, "team", "add", "platform", remote)
		if r.code != 0 {
			t.Fatalf("team add on %s: exit %d\n%s%s", d, r.code, r.stdout, r.stderr)
		}
	}
	s := start(t, b, []string{"--sync-interval", "1s"}, syncEnv...)
	teamEntry(t, filepath.Join(a, "teams", "platform", "memory"), "kafka-retention", "Alice", "Kafka keeps seven days of messages on the platform cluster.")
	r := runCLIEnv(t, syncEnv, "", "--data-dir", a, "team", "sync")
	if r.code != 0 {
		t.Fatalf("team sync on alice: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	took := waitRecall(t, s, "kafka message retention", "team platform, shared by Alice")
	t.Logf("bob's running sidecar recalled alice's team entry %s after her round", took)

	// Alice's own memory under sync: its remote never holds the clone.
	personal := bareRemote(t)
	note(t, a, "my-shell", "I use fish.")
	syncOK(t, a, "init", personal)
	if files := gitT(t, "", "--git-dir", personal, "ls-tree", "-r", "--name-only", "main"); strings.Contains(files, "teams") {
		t.Errorf("the personal remote holds the team clone or teams.yml:\n%s", files)
	}
}

// TestTeamPoolRanksOwnFirst: where the user's own entry and a teammate's
// say the same, recall lists the user's own first, even when the user's is
// the weaker in memory (which orders equal evidence otherwise).
func TestTeamPoolRanksOwnFirst(t *testing.T) {
	data, _, _ := projectWithPool(t)
	p := filepath.Join(data, "memory", "knowledge", "zz-staging-postgres", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	own := "---\nname: zz-staging-postgres\ndescription: staging-postgres-port (team)\ntype: fact\nstability: 1\nscore: 0.01\n" +
		"created: 2026-11-01\n---\n\nOur staging Postgres listens on port 6543, not 5432.\n"
	if err := os.WriteFile(p, []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLIEnv(t, nil, "", "--data-dir", data, "--embed", "off", "recall", "staging postgres port")
	mine, theirs := strings.Index(r.stdout, "zz-staging-postgres"), strings.Index(r.stdout, "team backend, shared by Alice")
	if r.code != 0 || mine < 0 || theirs < 0 || mine > theirs {
		t.Errorf("recall: exit %d, the user's own entry at %d, the team's at %d, want the user's first:\n%s%s", r.code, mine, theirs, r.stdout, r.stderr)
	}
}
