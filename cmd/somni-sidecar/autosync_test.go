package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/testutil"
)

// A running sidecar and sync: what another machine sent reaches its
// recall without a restart, by a round run by hand beside it or by one of
// its own; and recall reinforcing the same entry on both machines merges
// without a conflict.

// followDeadline bounds the wait for a note to reach a running sidecar.
// The target (within 5 s of a round) is measured by make bench
// (BenchmarkSync); a test that failed at 5 s on a loaded machine would be
// a broken test, so it only says how long it took.
const followDeadline = 60 * time.Second

// waitRecall asks recall_memories until its answer holds want, and
// returns how long that took.
func waitRecall(t *testing.T, s *proc, query, want string) time.Duration {
	t.Helper()
	t0 := time.Now()
	for {
		out := s.tool("recall_memories", map[string]any{"query": query, "limit": 5})
		if strings.Contains(out, want) {
			return time.Since(t0)
		}
		if time.Since(t0) > followDeadline {
			t.Fatalf("recall %q never showed %q in %s; last answer:\n%s", query, want, followDeadline, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSyncRunningSidecarFollows: a running sidecar on the desktop recalls
// the laptop's new note after `sync` is run by hand on the desktop, with
// automatic sync off, so the index follows what a merge wrote.
func TestSyncRunningSidecarFollows(t *testing.T) {
	a, b, _ := twoMachines(t)
	s := start(t, b, []string{"--sync-interval", "off"}, syncEnv...)
	var ok struct{ OK bool }
	s.call("index.sync", map[string]any{"reason": "test"}, &ok)
	note(t, a, "vpn-gateway", "The office VPN gateway is vpn-gw-3.corp on UDP 51820.")
	syncOK(t, a)
	syncOK(t, b)
	took := waitRecall(t, s, "office vpn gateway", "vpn-gateway")
	t.Logf("the running sidecar recalled the synced note %s after the round", took)
}

// TestSyncAutomatic: with a short --sync-interval the desktop's sidecar
// syncs by itself: the laptop's new note arrives and is recalled, and a
// note written on the desktop while it runs reaches the laptop — nobody
// runs sync on the desktop.
func TestSyncAutomatic(t *testing.T) {
	a, b, _ := twoMachines(t)
	s := start(t, b, []string{"--sync-interval", "1s"}, syncEnv...)
	var ok struct{ OK bool }
	s.call("index.sync", map[string]any{"reason": "test"}, &ok)
	note(t, a, "vpn-gateway", "The office VPN gateway is vpn-gw-3.corp on UDP 51820.")
	syncOK(t, a)
	took := waitRecall(t, s, "office vpn gateway", "vpn-gateway")
	t.Logf("recalled %s after the laptop's round, by the desktop's own rounds", took)

	note(t, b, "printer", "The 3rd floor printer is prn-3f, duplex by default.")
	t0 := time.Now()
	for {
		syncOK(t, a)
		if _, err := os.Stat(filepath.Join(a, "memory", "knowledge", "printer", "SKILL.md")); err == nil {
			break
		}
		if time.Since(t0) > followDeadline {
			t.Fatalf("the desktop's note never reached the laptop in %s; desktop log:\n%s", followDeadline, s.stderr.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	if log := s.stderr.String(); !strings.Contains(log, "sync: sent") {
		t.Fatalf("the desktop's log says no round ran:\n%s", log)
	}
}

// TestSyncAutomaticOffByDefaultWithoutInit: a data dir that sync init
// never set up is left alone by a running sidecar even with a short
// interval, also when a person keeps it in git with a remote of their own.
func TestSyncAutomaticOffByDefaultWithoutInit(t *testing.T) {
	remote := bareRemote(t)
	dir := filepath.Join(t.TempDir(), "hand")
	note(t, dir, "own", "Kept in git by hand.")
	gitT(t, dir, "init", "-q")
	gitT(t, dir, "remote", "add", "origin", remote)
	s := start(t, dir, []string{"--sync-interval", "1s"}, syncEnv...)
	var ok struct{ OK bool }
	s.call("index.sync", map[string]any{"reason": "test"}, &ok)
	time.Sleep(3 * time.Second) // three intervals
	if out := gitT(t, remote, "log", "--all", "--oneline"); strings.TrimSpace(out) != "" {
		t.Fatalf("the sidecar pushed a data dir sync init never set up:\n%s", out)
	}
}

// TestSyncReinforcementNeverConflicts: recall on both machines, on
// different days, reinforces the same entry (its score and last use
// rewritten on each, so git's own line merge would conflict); the next
// rounds merge the numbers — the later use, both reinforcements — leave
// no sibling and no marker, and both machines end with the same file.
func TestSyncReinforcementNeverConflicts(t *testing.T) {
	a, b, _ := twoMachines(t)
	days := map[string]string{a: "2026-12-01", b: "2026-12-02"}
	for _, dir := range []string{a, b} {
		env := append([]string{"SOMNI_TEST_NOW=" + days[dir] + "T09:00:00Z"}, syncEnv...)
		s := start(t, dir, []string{"--sync-interval", "off", "--timezone", "UTC"}, env...)
		var ok struct{ OK bool }
		s.call("index.sync", map[string]any{"reason": "test"}, &ok)
		before := testutil.ReadFile(t, filepath.Join(dir, "memory", "knowledge", "staging-kafka-port", "SKILL.md"))
		s.tool("recall_memories", map[string]any{"query": "staging kafka port", "limit": 3})
		// recall records its use in the machine's usage journal; a sleep
		// folds the journal into the entries (a score and a last use)
		var slept map[string]any
		s.call("sleep.run", map[string]any{"trigger": "test"}, &slept)
		if after := testutil.ReadFile(t, filepath.Join(dir, "memory", "knowledge", "staging-kafka-port", "SKILL.md")); after == before {
			t.Fatalf("recall on %s did not reinforce the entry: the test would prove nothing", filepath.Base(dir))
		}
	}
	entry := filepath.Join("memory", "knowledge", "staging-kafka-port", "SKILL.md")
	ta, tb := testutil.ReadFile(t, filepath.Join(a, entry)), testutil.ReadFile(t, filepath.Join(b, entry))
	if !strings.Contains(ta, "last_used: 2026-12-01") || !strings.Contains(tb, "last_used: 2026-12-02") {
		t.Fatalf("the machines' reinforcements are not the different header lines a line merge conflicts on:\n%s\n---\n%s", ta, tb)
	}
	syncOK(t, a)
	out := syncOK(t, b)
	syncOK(t, a)
	if strings.Contains(out, "conflicting") {
		t.Fatalf("reinforcement on both machines conflicted: %s", out)
	}
	files := sameMemory(t, a, b)
	for p, text := range files {
		if strings.Contains(p, "-conflict-") || strings.Contains(text, "<<<<<<<") {
			t.Fatalf("%s: a conflict where both machines only recalled", p)
		}
	}
	if got := files["memory/knowledge/staging-kafka-port/SKILL.md"]; !strings.Contains(got, "last_used: 2026-12-02") {
		t.Fatalf("the merged entry does not keep the later use:\n%s", got)
	}
}

// TestSyncDoctor: doctor says how the last round ended without asking the
// remote: in step after a clean round; a problem, exit 1, naming the held
// back file after a round that kept a secret home; nothing about sync on
// a data dir that never ran sync init.
func TestSyncDoctor(t *testing.T) {
	a, _, _ := twoMachines(t)
	doctor := func(dir string) cliRun {
		return runCLIEnv(t, syncEnv, "", "--data-dir", dir, "--embed", "off", "doctor")
	}
	if r := doctor(a); r.code != 0 || !strings.Contains(r.stdout, "sync: in step after the last round") {
		t.Fatalf("doctor after a clean round: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	note(t, a, "aws-creds", "export AWS_ACCESS_KEY_ID=AKIAIDVWTFKTANGPVYQE\nexport AWS_SECRET_ACCESS_KEY=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")
	if r := syncRun(t, a); r.code == 0 {
		t.Fatalf("sync sent a secret:\n%s", r.stdout)
	}
	r := doctor(a)
	if r.code != 1 || !strings.Contains(r.stdout, "sync: not in step") {
		t.Fatalf("doctor after a round that held a file back: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	mustContain(t, "doctor's report", r.stdout, "memory/knowledge/aws-creds/SKILL.md", "held back")
	plain := filepath.Join(t.TempDir(), "plain")
	note(t, plain, "x", "A memory that never synced.")
	if r := doctor(plain); strings.Contains(r.stdout, "sync") {
		t.Fatalf("doctor speaks of sync on a data dir that never ran sync init:\n%s", r.stdout)
	}
}
