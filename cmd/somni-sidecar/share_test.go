package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/testutil"
)

// The explicit share, as a person meets it: the built binary, a project
// repository holding the pool (projectWithPool), the model's proposal by
// the share_memory tool over the sidecar's pipes, and `somni-sidecar
// share` typed at a terminal. Git runs with no global config (syncEnv):
// shared_by comes from the project's own user.name.

// shareEnv is the environment of every run here: no developer's git
// config, so who shares is the project's user.name set below.
var shareEnv = syncEnv

// shareProject is projectWithPool with the project's git user set, as the
// person approving has it.
func shareProject(t *testing.T) (data, proj, pool string) {
	t.Helper()
	data, proj, pool = projectWithPool(t)
	gitT(t, proj, "config", "user.name", "Ada Lovelace")
	gitT(t, proj, "config", "user.email", "ada@example.invalid")
	return data, proj, pool
}

// shareCLI runs `somni-sidecar --data-dir data share args…`.
func shareCLI(t *testing.T, data string, args ...string) cliRun {
	t.Helper()
	return runCLIEnv(t, shareEnv, "", append([]string{"--data-dir", data, "--embed", "off", "share"}, args...)...)
}

// shareOK runs share and fails the test unless it exited 0, quiet on stderr.
func shareOK(t *testing.T, data string, args ...string) string {
	t.Helper()
	r := shareCLI(t, data, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("share %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// proposalFiles lists what is under the data dir's proposals folder.
func proposalFiles(t *testing.T, data string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(data, "memory", "proposals")
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && p != root {
			r, _ := filepath.Rel(root, p)
			out = append(out, r)
		}
		return nil
	})
	return out
}

// projectStatus is the project's `git status --porcelain`, every
// untracked file listed.
func projectStatus(t *testing.T, proj string) string {
	t.Helper()
	return strings.TrimSpace(gitT(t, proj, "status", "--porcelain", "--untracked-files=all"))
}

var redisProposal = map[string]any{"team": "backend", "name": "redis-eviction", "entry_type": "pitfall",
	"description": "Our Redis cache evicts with allkeys-lru, so keys without a TTL can vanish",
	"body":        "Our Redis cache runs `maxmemory-policy allkeys-lru`: a key without a TTL is not safe from eviction."}

// TestShareProposeApproveRecall: the model proposes a share with the
// share_memory tool; the proposal waits (listed by `share list`, not
// recalled, the pool untouched); `share approve` writes it into the pool
// with who shared it and no lifecycle numbers, leaves the project's git
// status showing the new entry alone (no lock file), and says to commit it;
// the same sidecar and a fresh CLI recall it with its origin.
func TestShareProposeApproveRecall(t *testing.T) {
	data, proj, pool := shareProject(t)
	s := start(t, data, []string{"--sync-interval", "off"}, shareEnv...)
	var tl struct{ Tools []json.RawMessage }
	s.call("tools.list", nil, &tl)
	listed := false
	for _, raw := range tl.Tools {
		var tool struct{ Name, Description string }
		if err := json.Unmarshal(raw, &tool); err != nil || tool.Name != "share_memory" {
			continue
		}
		listed = strings.Contains(tool.Description, "(backend)")
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil || utf8.RuneCount(compact.Bytes()) > perToolBudget {
			t.Errorf("share_memory's schema is %d characters, over the budget of one tool (%d): %s", utf8.RuneCount(compact.Bytes()), perToolBudget, raw)
		}
	}
	if !listed {
		t.Fatalf("tools.list has no share_memory naming the mounted team: %s", tl.Tools)
	}

	reply := s.tool("share_memory", redisProposal, "sessionId", "chat-1")
	mustContain(t, "share_memory", reply, "waits for a person's approval", "somni-sidecar share approve backend/redis-eviction", "Memory tab")
	if got := proposalFiles(t, data); strings.Join(got, ",") != "backend,backend/redis-eviction.md" {
		t.Fatalf("proposal files: %v", got)
	}
	if st := projectStatus(t, proj); st != "" {
		t.Fatalf("a proposal touched the pool; git status:\n%s", st)
	}
	var ok struct{ OK bool }
	s.call("index.sync", map[string]any{"reason": "test"}, &ok)
	if out := s.tool("recall_memories", map[string]any{"query": "redis eviction allkeys-lru ttl"}); strings.Contains(out, "redis-eviction") {
		t.Fatalf("a proposal waiting for approval is recalled:\n%s", out)
	}
	if r := runCLIEnv(t, shareEnv, "", "--data-dir", data, "--embed", "off", "doctor"); strings.Contains(r.stdout+r.stderr, "proposals") {
		t.Errorf("doctor reports the proposal:\n%s%s", r.stdout, r.stderr)
	}
	list := shareOK(t, data, "list")
	mustContain(t, "share list", list, "backend/redis-eviction\tteam backend\tredis-eviction\t", redisProposal["description"].(string))

	out := shareOK(t, data, "approve", "backend/redis-eviction")
	entry := filepath.Join(pool, "knowledge", "redis-eviction", "SKILL.md")
	mustContain(t, "share approve", out, `shared "redis-eviction" into team backend as knowledge/redis-eviction/SKILL.md (shared by Ada Lovelace)`,
		"left for you to commit with your code: "+entry)
	text := testutil.ReadFile(t, entry)
	mustContain(t, "the shared entry", text, "name: redis-eviction\n", "type: pitfall\n", "shared_by: Ada Lovelace\n", "shared: 20", "maxmemory-policy allkeys-lru")
	for _, k := range []string{"score:", "stability:", "last_used:", "last_decay:", "verified:", "ada@example"} {
		if strings.Contains(text, k) {
			t.Errorf("the shared entry holds %q:\n%s", k, text)
		}
	}
	if st := projectStatus(t, proj); st != "?? .somni/knowledge/redis-eviction/SKILL.md" {
		t.Errorf("after approve the project's git status shows more than the new entry:\n%s", st)
	}
	if got := proposalFiles(t, data); len(got) != 0 {
		t.Errorf("the approved proposal is still there: %v", got)
	}
	s.call("index.sync", map[string]any{"reason": "test"}, &ok)
	mustContain(t, "recall after approve", s.tool("recall_memories", map[string]any{"query": "redis eviction allkeys-lru ttl"}),
		"redis-eviction", "· team backend, shared by Ada Lovelace: knowledge/redis-eviction/SKILL.md")
	recallFinds(t, data, "redis eviction allkeys-lru", "team backend, shared by Ada Lovelace: "+entry)

	// Approving again, or into a pool that has the entry, never overwrites it.
	if r := shareCLI(t, data, "approve", "backend/redis-eviction"); r.code != 1 || !strings.Contains(r.stderr, "no proposal backend/redis-eviction waits") {
		t.Errorf("second approve: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestShareRefusedNeverWritten: a proposal the tool refuses — a secret in
// any field, a team not mounted, a name the store would refuse, an entry
// the pool has — is an argument error naming why, and no file of it
// exists anywhere: not under the data dir, not in the pool.
func TestShareRefusedNeverWritten(t *testing.T) {
	data, proj, pool := shareProject(t)
	s := start(t, data, []string{"--sync-interval", "off"}, shareEnv...)
	const password = "Xk9#mP2$vL7q"
	const token = "ghp_8aB3kLmN0pQrS7tUvW1xYz2AbCdEfGhIjKlM"
	with := func(k, v string) map[string]any {
		a := map[string]any{"team": "backend", "name": "staging-db", "description": "How to reach the staging database", "body": "Connect through the bastion host."}
		a[k] = v
		return a
	}
	tests := []struct {
		what   string
		args   map[string]any
		secret string // must be found nowhere afterwards
		want   []string
	}{
		{"password in the body", with("body", "The staging db password is "+password+", ask Ada."), password,
			[]string{`argument "body"`, "holds what looks like a password", "[REDACTED]"}},
		{"token in the description", with("description", "the CI token: "+token), token,
			[]string{`argument "description"`, "holds what looks like an access token or API key"}},
		{"token as the name", with("name", token), token, []string{`argument "name"`, "access token or API key", "choose a name"}},
		{"password in Chinese", with("body", "数据库密码是 "+password), password, []string{"a password"}},
		{"a team not mounted", with("team", "frontend"), "", []string{`argument "team"`, `no team "frontend" is mounted; the mounted teams are backend`}},
		{"a path as the name", with("name", "../../etc"), "", []string{`argument "name"`, "path separator"}},
		{"the archive's name", with("name", "archived"), "", []string{`argument "name"`, "reserved"}},
		{"a type that is not one", with("entry_type", "episode"), "", []string{`argument "entry_type"`, "not a knowledge type"}},
		{"an entry the pool has", with("name", "staging-postgres-port"), "", []string{`argument "name"`, `team backend already has "staging-postgres-port"`, "never overwritten"}},
	}
	for _, tc := range tests {
		t.Run(tc.what, func(t *testing.T) {
			s.t = t
			code, msg := s.callErr("tools.call", map[string]any{"name": "share_memory", "args": tc.args})
			if code != -32602 {
				t.Errorf("code %d, want -32602: %s", code, msg)
			}
			mustContain(t, tc.what, msg, tc.want...)
			if tc.secret != "" && strings.Contains(msg, tc.secret) {
				t.Errorf("the refusal repeats the secret: %s", msg)
			}
		})
	}
	s.t = t
	if got := proposalFiles(t, data); len(got) != 0 {
		t.Errorf("refused proposals left files: %v", got)
	}
	for _, secret := range []string{password, token} {
		for _, dir := range []string{data, pool} {
			if found := findUnder(t, dir, secret); len(found) > 0 {
				t.Errorf("the secret is on disk: %v", found)
			}
		}
	}
	if st := projectStatus(t, proj); st != "" {
		t.Errorf("a refused proposal touched the pool:\n%s", st)
	}
}

// TestShareRejectAndHandEdit: a rejected proposal leaves nothing (no
// file, no folder, the pool untouched); a proposal a person edited by hand
// to hold a secret is scanned again at approval, refused in one sentence
// naming the kind, and left waiting with the pool untouched.
func TestShareRejectAndHandEdit(t *testing.T) {
	data, proj, pool := shareProject(t)
	s := start(t, data, []string{"--sync-interval", "off"}, shareEnv...)
	s.tool("share_memory", redisProposal)
	out := shareOK(t, data, "reject", "backend/redis-eviction")
	mustContain(t, "share reject", out, "rejected backend/redis-eviction")
	if _, err := os.Stat(filepath.Join(data, "memory", "proposals")); !os.IsNotExist(err) {
		t.Errorf("a rejected proposal left its folder: %v %v", err, proposalFiles(t, data))
	}
	mustContain(t, "share list after reject", shareOK(t, data, "list"), "no proposals wait")

	s.tool("share_memory", redisProposal)
	file := filepath.Join(data, "memory", "proposals", "backend", "redis-eviction.md")
	edited := strings.Replace(testutil.ReadFile(t, file), "a key without a TTL", "(the cache's password is Hunter2#Secret99) a key without a TTL", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r := shareCLI(t, data, "approve", "backend/redis-eviction")
	if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "proposal backend/redis-eviction: the body holds what looks like a password") {
		t.Errorf("approving a proposal holding a secret: exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "Hunter2#Secret99") {
		t.Errorf("the refusal repeats the secret: %s", r.stderr)
	}
	if found := findUnder(t, pool, "Hunter2#Secret99"); len(found) > 0 || projectStatus(t, proj) != "" {
		t.Errorf("the secret reached the pool: %v\n%s", found, projectStatus(t, proj))
	}
	if got := proposalFiles(t, data); strings.Join(got, ",") != "backend,backend/redis-eviction.md" {
		t.Errorf("the refused proposal does not wait any more: %v", got)
	}
}

// TestShareByName: `share NAME --team TEAM` copies a personal knowledge
// entry into the pool (a person's own act), shared by the project's user;
// a second time it is refused, the teammate's copy untouched.
func TestShareByName(t *testing.T) {
	data, proj, pool := shareProject(t)
	note(t, data, "pg-bouncer-mode", "PgBouncer runs in transaction mode, so session-level SET does not stick.")
	out := shareOK(t, data, "pg-bouncer-mode", "--team", "backend")
	entry := filepath.Join(pool, "knowledge", "pg-bouncer-mode", "SKILL.md")
	mustContain(t, "share NAME --team", out, `shared "pg-bouncer-mode" into team backend`, "(shared by Ada Lovelace)", "commit with your code: "+entry)
	mustContain(t, "the shared entry", testutil.ReadFile(t, entry), "description: pg-bouncer-mode note\n", "shared_by: Ada Lovelace\n", "transaction mode")
	if st := projectStatus(t, proj); st != "?? .somni/knowledge/pg-bouncer-mode/SKILL.md" {
		t.Errorf("git status after share:\n%s", st)
	}
	before := testutil.ReadFile(t, entry)
	for _, args := range [][]string{{"pg-bouncer-mode", "--team=backend"}, {"--team", "backend", "pg-bouncer-mode"}} {
		r := shareCLI(t, data, args...)
		if r.code != 1 || !strings.Contains(r.stderr, `team backend already has "pg-bouncer-mode"`) || testutil.ReadFile(t, entry) != before {
			t.Errorf("sharing again (%v): exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if !strings.Contains(testutil.ReadFile(t, filepath.Join(data, "memory", "knowledge", "pg-bouncer-mode", "SKILL.md")), "score:") {
		t.Error("the personal entry lost its own lifecycle numbers")
	}
}

// TestShareCLIRefusals: what `share` cannot do is one sentence on stderr
// and a non-zero exit (1 refused, 2 mistyped), with nothing written.
func TestShareCLIRefusals(t *testing.T) {
	data, proj, _ := shareProject(t)
	note(t, data, "my-skill-note", "Something of mine.")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"approve", "backend/nothing-like-it"}, 1, "no proposal backend/nothing-like-it waits (somni-sidecar share list shows those that do)"},
		{[]string{"reject", "backend/nothing-like-it"}, 1, "no proposal backend/nothing-like-it waits"},
		{[]string{"approve", "not-an-id"}, 1, `"not-an-id" is not a proposal id (TEAM/NAME`},
		{[]string{"approve", "backend/../../x"}, 1, "is not a proposal id"},
		{[]string{"my-skill-note", "--team", "frontend"}, 1, `no team "frontend" is mounted; the mounted teams are backend`},
		{[]string{"no-such-entry", "--team", "backend"}, 1, `your memory has no knowledge entry named "no-such-entry"`},
		{[]string{"my-skill-note"}, 2, "say which team to share \"my-skill-note\" with"},
		{[]string{"approve"}, 2, "unknown"},
		{[]string{"frobnicate", "a", "b"}, 2, "unknown"},
	}
	for _, tc := range tests {
		r := shareCLI(t, data, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("share %s: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", strings.Join(tc.args, " "), r.code, r.stdout, r.stderr, tc.code, tc.want)
		}
	}
	if st := projectStatus(t, proj); st != "" || len(proposalFiles(t, data)) != 0 {
		t.Errorf("a refusal wrote something: %s %v", st, proposalFiles(t, data))
	}
}

// TestShareMethods: the Memory tab's methods over the pipes: team.list
// names the mounted pool with its entries, share.list the proposals,
// share.approve takes an edited description and body, share.reject leaves
// nothing, and an unknown id is a -32602 in one sentence.
func TestShareMethods(t *testing.T) {
	data, _, pool := shareProject(t)
	s := start(t, data, []string{"--sync-interval", "off"}, shareEnv...)
	var teams struct {
		Teams []struct {
			Name, Folder, Remote string
			Cloned               bool
			Entries              int
		}
	}
	s.call("team.list", nil, &teams)
	if len(teams.Teams) != 1 || teams.Teams[0].Name != "backend" || teams.Teams[0].Folder != pool || teams.Teams[0].Cloned || teams.Teams[0].Entries != 1 {
		t.Fatalf("team.list: %+v", teams)
	}
	s.tool("share_memory", redisProposal, "sessionId", "chat-7")
	other := map[string]any{"team": "backend", "name": "deploy-window", "entry_type": "decision", "description": "We deploy on Tuesdays", "body": "Deploys go out Tuesdays at 14:00."}
	s.tool("share_memory", other)
	var list struct {
		Proposals []struct{ ID, Team, Name, Type, Description, Body, Proposed, Session string }
	}
	s.call("share.list", nil, &list)
	if len(list.Proposals) != 2 {
		t.Fatalf("share.list: %+v", list)
	}
	for _, p := range list.Proposals {
		if p.ID == "backend/redis-eviction" && (p.Session != "chat-7" || p.Team != "backend" || p.Type != "pitfall" ||
			!strings.Contains(p.Body, "allkeys-lru") || !strings.HasPrefix(p.Proposed, "20")) {
			t.Fatalf("share.list: %+v", p)
		}
	}
	var done struct{ Team, Name, Path, File, SharedBy, Next string }
	s.call("share.approve", map[string]any{"id": "backend/redis-eviction", "description": "Redis evicts keys without a TTL (allkeys-lru)", "body": "Set a TTL on every cache key; the policy is allkeys-lru."}, &done)
	entry := filepath.Join(pool, "knowledge", "redis-eviction", "SKILL.md")
	if done.Team != "backend" || done.Path != "knowledge/redis-eviction/SKILL.md" || done.File != entry || done.SharedBy != "Ada Lovelace" || !strings.Contains(done.Next, "commit with your code") {
		t.Errorf("share.approve: %+v", done)
	}
	mustContain(t, "edited entry", testutil.ReadFile(t, entry), "description: Redis evicts keys without a TTL (allkeys-lru)\n", "Set a TTL on every cache key")
	var rejected map[string]string
	s.call("share.reject", map[string]any{"id": "backend/deploy-window"}, &rejected)
	if rejected["rejected"] != "backend/deploy-window" || len(proposalFiles(t, data)) != 0 {
		t.Errorf("share.reject: %v, left %v", rejected, proposalFiles(t, data))
	}
	code, msg := s.callErr("share.approve", map[string]any{"id": "backend/deploy-window"})
	if code != -32602 || msg != "no proposal backend/deploy-window waits (somni-sidecar share list shows those that do)" {
		t.Errorf("approving a rejected proposal: %d %q", code, msg)
	}
	s.call("team.list", nil, &teams)
	if teams.Teams[0].Entries != 2 {
		t.Errorf("team.list after approve: %+v", teams)
	}
	raw, _ := json.Marshal(list)
	if strings.Contains(string(raw), pool) {
		t.Errorf("share.list shows the pool's folder: %s", raw)
	}
}

// TestShareIntoClonedPool: a share into a team repository somni cloned
// says the next `team sync` pushes it, leaves the clone's status showing
// the entry alone (sync's .gitignore keeps the lock out), and that sync
// does push it to the remote.
func TestShareIntoClonedPool(t *testing.T) {
	remote := bareRemote(t)
	data := filepath.Join(t.TempDir(), "data")
	if r := runCLIEnv(t, shareEnv, "", "--data-dir", data, "team", "add", "platform", remote); r.code != 0 {
		t.Fatalf("team add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	clone := filepath.Join(data, "teams", "platform")
	gitT(t, clone, "config", "user.name", "Grace Hopper")
	note(t, data, "kafka-retention", "Kafka keeps seven days of messages on the platform cluster.")
	out := shareOK(t, data, "kafka-retention", "--team", "platform")
	mustContain(t, "share into a clone", out, "(shared by Grace Hopper)", "the next `somni-sidecar team sync` commits it and pushes it to "+remote)
	if st := strings.TrimSpace(gitT(t, clone, "status", "--porcelain", "--untracked-files=all")); st != "?? memory/knowledge/kafka-retention/SKILL.md" {
		t.Errorf("the clone's status after share:\n%s", st)
	}
	if r := runCLIEnv(t, shareEnv, "", "--data-dir", data, "team", "sync"); r.code != 0 {
		t.Fatalf("team sync: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	files := gitT(t, "", "--git-dir", remote, "ls-tree", "-r", "--name-only", "main")
	if !strings.Contains(files, "memory/knowledge/kafka-retention/SKILL.md") || strings.Contains(files, ".somni.lock") {
		t.Errorf("the remote after team sync holds:\n%s", files)
	}
}
