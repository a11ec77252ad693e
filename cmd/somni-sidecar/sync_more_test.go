package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/testutil"
)

// More of sync as a person meets it, through the binary and real git: an
// archive on one machine against an edit on the other, a round killed with
// kill -9 part-way, a remote served by git daemon on 127.0.0.1 that goes
// down and comes back, and two machines pushing at the same moment.

// kafkaEntry is the entry twoMachines puts on the laptop, as a store path.
const kafkaEntry = "memory/knowledge/staging-kafka-port/SKILL.md"

// TestSyncArchiveOnOneEditOnOther: the laptop archives an entry through
// the Memory tab (memory.forget on its running sidecar) while the desktop
// edits it there (memory.read, memory.write); whichever machine syncs
// first, after the rounds the entry is active with the edit on both, no
// archived copy is left, and recall finds the edited text on both — the
// archiving machine's running sidecar too, without a restart.
func TestSyncArchiveOnOneEditOnOther(t *testing.T) {
	const edited = "The staging kafka listens on port 9095 since the broker move."
	for _, archiverFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("archiving machine syncs first %v", archiverFirst), func(t *testing.T) {
			a, b, _ := twoMachines(t)
			sa := start(t, a, []string{"--sync-interval", "off"}, syncEnv...)
			sb := start(t, b, []string{"--sync-interval", "off"}, syncEnv...)

			var forgot struct{ ArchivedTo string }
			sa.call("memory.forget", map[string]any{"path": kafkaEntry}, &forgot)
			if forgot.ArchivedTo != "memory/archived/staging-kafka-port/SKILL.md" {
				t.Fatalf("memory.forget archived to %q", forgot.ArchivedTo)
			}
			var doc struct{ Raw, Version string }
			sb.call("memory.read", map[string]any{"path": kafkaEntry}, &doc)
			raw := strings.Replace(doc.Raw, "The staging kafka listens on port 9094.", edited, 1)
			if raw == doc.Raw {
				t.Fatalf("the entry's text is not what twoMachines wrote:\n%s", doc.Raw)
			}
			sb.call("memory.write", map[string]any{"path": kafkaEntry, "raw": raw, "version": doc.Version}, nil)

			first, second := a, b
			if !archiverFirst {
				first, second = b, a
			}
			syncOK(t, first)
			out := syncOK(t, second)
			mustContain(t, "the round that met both changes", out, "kept 1 entry active that one machine archived and the other edited")
			syncOK(t, first)

			files := sameMemory(t, a, b)
			if got := files[kafkaEntry]; !strings.Contains(got, edited) {
				t.Fatalf("the entry is not active with the edit:\n%s\nfiles: %v", got, sortedKeys(files))
			}
			for p := range files {
				if strings.Contains(p, "archived/") && strings.Contains(p, "staging-kafka-port") {
					t.Fatalf("an archived copy remains: %s", p)
				}
			}
			for _, dir := range []string{a, b} {
				recallFinds(t, dir, "staging kafka port", "staging-kafka-port", "since the broker move")
			}
			took := waitRecall(t, sa, "staging kafka port", "since the broker move")
			t.Logf("the archiving machine's running sidecar recalled the entry again %s after the rounds", took)
		})
	}
}

// TestSyncKillMidRound: a round on a laptop with a big change to send (2,000
// new notes; 60 entries both machines changed, merged by the driver one
// process each; one entry both edited on the same line) is killed with
// kill -9, sync and every git and merge driver it started, at a moment of
// the table; then sync on that machine and on the other completes it: the
// machines converge, no conflict marker, every note of both is there, and
// `sync status` says in step on both.
func TestSyncKillMidRound(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("killing a round with the git and merge driver processes it started finds them in /proc: Linux only")
	}
	const bulk, shared = 2000, 60
	tests := []struct {
		name   string
		after  time.Duration // kill this long after the start…
		during string        // …or once a git with this subcommand runs
	}{
		{name: "after 50ms", after: 50 * time.Millisecond},
		{name: "after 200ms", after: 200 * time.Millisecond},
		{name: "after 1s", after: time.Second},
		{name: "while git merges", during: "merge"},
		{name: "while git pushes", during: "push"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b, _ := twoMachines(t)
			for i := range shared {
				note(t, a, fmt.Sprintf("shared-%03d", i), fmt.Sprintf("Runbook step %d: check the queue depth.", i))
			}
			syncOK(t, a)
			syncOK(t, b)
			// The desktop adds notes, edits every shared entry's body and one
			// entry's only line, and sends it all.
			for i := range 20 {
				note(t, b, fmt.Sprintf("desk-%02d", i), fmt.Sprintf("Desktop note %d: the build farm has %d runners.", i, i+4))
			}
			for i := range shared {
				editEntry(t, b, fmt.Sprintf("shared-%03d", i), "check the queue depth.", "check the queue depth, then the consumer lag.")
			}
			note(t, b, "staging-kafka-port", "The staging kafka listens on port 9096 behind the new proxy.")
			syncOK(t, b)
			// The laptop writes its own, and its round is killed.
			writeKnowledge(t, a, bulk)
			for i := range shared {
				editEntry(t, a, fmt.Sprintf("shared-%03d", i), "score: 0.5", "score: 0.7")
			}
			note(t, a, "staging-kafka-port", "The staging kafka listens on port 9095 since the laptop move.")

			killRound(t, a, tc.after, tc.during)
			t0 := time.Now()
			syncOK(t, a)
			syncOK(t, b)
			t.Logf("the rounds after the kill took %s", time.Since(t0))

			files := sameMemory(t, a, b)
			var kafka strings.Builder
			for p, text := range files {
				if strings.Contains(text, "<<<<<<<") || strings.Contains(text, ">>>>>>>") {
					t.Fatalf("%s holds a conflict marker:\n%s", p, text)
				}
				if strings.Contains(p, "staging-kafka-port") {
					kafka.WriteString(text)
				}
			}
			mustContain(t, "the entry both edited, and its sibling", kafka.String(), "port 9095 since the laptop move", "port 9096 behind the new proxy")
			want := map[string]string{"memory/knowledge/deploy-window/SKILL.md": "never on Fridays"}
			for i := range 20 {
				want[fmt.Sprintf("memory/knowledge/desk-%02d/SKILL.md", i)] = fmt.Sprintf("has %d runners", i+4)
			}
			for i := range bulk {
				want[fmt.Sprintf("memory/knowledge/bulk-%05d/SKILL.md", i)] = fmt.Sprintf("topic%05d", i)
			}
			for i := range shared {
				want[fmt.Sprintf("memory/knowledge/shared-%03d/SKILL.md", i)] = "then the consumer lag"
			}
			for p, w := range want {
				if !strings.Contains(files[p], w) {
					t.Fatalf("%s lost %q after the kill:\n%s", p, w, files[p])
				}
			}
			inStep(t, a, b)
		})
	}
}

// inStep fails unless `sync status` says each machine is in step, exit 0.
func inStep(t *testing.T, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		if st := syncRun(t, dir, "status"); st.code != 0 || !strings.HasPrefix(st.stdout, "in step with origin") {
			t.Fatalf("status on %s: exit %d\n%s%s", filepath.Base(dir), st.code, st.stdout, st.stderr)
		}
	}
}

// editEntry replaces old with new in a knowledge entry, as a hand edit or
// a dream's rewrite would.
func editEntry(t *testing.T, dir, name, old, new string) {
	t.Helper()
	p := filepath.Join(dir, "memory", "knowledge", name, "SKILL.md")
	text := testutil.ReadFile(t, p)
	if !strings.Contains(text, old) {
		t.Fatalf("%s does not hold %q:\n%s", p, old, text)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(text, old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// killRound starts `sync` on dir and kills it with kill -9, with every
// process it started, after the given time or once a git running the
// given subcommand is among them. It logs what was running at the kill; a
// round that ended first is logged too (a busy machine moves the moment,
// the test stays valid), but a subcommand never seen fails the test.
func killRound(t *testing.T, dir string, after time.Duration, during string) {
	t.Helper()
	cmd := exec.Command(binPath, "--data-dir", dir, "--embed", "off", "sync")
	cmd.Env = append(os.Environ(), syncEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(followDeadline)
	for {
		if during == "" && time.Since(t0) >= after {
			break
		}
		if during != "" && runsGit(cmd.Process.Pid, during) {
			break
		}
		select {
		case err := <-done:
			if during != "" {
				t.Fatalf("the round ended (%v) after %s before a git %s was seen:\n%s", err, time.Since(t0), during, out.String())
			}
			t.Logf("the round ended (%v) after %s, before the kill at %s", err, time.Since(t0), after)
			return
		case <-deadline:
			t.Fatalf("no git %s in %s", during, followDeadline)
		case <-time.After(time.Millisecond):
		}
	}
	killed := killTree(t, cmd.Process.Pid)
	<-done
	var left []string
	for _, f := range []string{"index.lock", "MERGE_HEAD", "ORIG_HEAD"} {
		if _, err := os.Stat(filepath.Join(dir, ".git", f)); err == nil {
			left = append(left, f)
		}
	}
	t.Logf("kill -9 after %s: %s; .git holds %v", time.Since(t0).Round(time.Millisecond), strings.Join(killed, "; "), left)
}

// killTree stops root and every process below it (so none starts another
// or is lost to a new parent), then kills them all with SIGKILL; it
// returns their command lines. git runs in a session of its own (gitsync
// detaches it from the terminal), so a process-group kill would miss it.
func killTree(t *testing.T, root int) []string {
	t.Helper()
	tree := map[int]bool{root: true}
	killSig(t, "STOP", root)
	for grew := true; grew; {
		grew = false
		for pid, ppid := range parents() {
			if tree[ppid] && !tree[pid] {
				tree[pid] = true
				killSig(t, "STOP", pid)
				grew = true
			}
		}
	}
	var pids []int
	var cmds []string
	for pid := range tree {
		pids = append(pids, pid)
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
			cmds = append(cmds, shortCmd(string(b)))
		}
	}
	killSig(t, "KILL", pids...)
	return cmds
}

// killSig runs kill -s sig on pids; a process that is gone already is no
// error.
func killSig(t *testing.T, sig string, pids ...int) {
	t.Helper()
	args := []string{"-s", sig}
	for _, p := range pids {
		args = append(args, strconv.Itoa(p))
	}
	if out, err := exec.Command("kill", args...).CombinedOutput(); err != nil && !strings.Contains(string(out), "No such process") {
		t.Fatalf("kill %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// parents maps each live process to its parent, from /proc.
func parents() map[int]int {
	m := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 {
			if ppid, err := strconv.Atoi(f[1]); err == nil {
				m[pid] = ppid
			}
		}
	}
	return m
}

// runsGit reports whether a git running sub (its argument, as `git -C …
// merge …`) is below root.
func runsGit(root int, sub string) bool {
	tree := map[int]bool{root: true}
	pp := parents()
	for grew := true; grew; {
		grew = false
		for pid, ppid := range pp {
			if tree[ppid] && !tree[pid] {
				tree[pid], grew = true, true
				b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				if err != nil {
					continue
				}
				args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
				if filepath.Base(args[0]) != "git" {
					continue
				}
				for _, a := range args[1:] {
					if a == sub {
						return true
					}
				}
			}
		}
	}
	return false
}

// shortCmd is a /proc cmdline on one line, the data dir's paths cut.
func shortCmd(cmdline string) string {
	args := strings.Split(strings.TrimRight(cmdline, "\x00"), "\x00")
	if len(args) > 0 {
		args[0] = filepath.Base(args[0])
	}
	s := strings.Join(args, " ")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// gitDaemon is `git daemon` serving the bare repositories of one folder on
// 127.0.0.1, pushes allowed, as a small git server would.
type gitDaemon struct {
	t    *testing.T
	bin  string // git-daemon itself: `git daemon` runs it as a child that a kill of git would leave serving
	base string
	port int
	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{}
}

// serveGit starts git daemon over base on a free port of 127.0.0.1 and
// stops it when the test ends. It fails, never skips, when git daemon is
// not installed.
func serveGit(t *testing.T, base string) *gitDaemon {
	t.Helper()
	needGit(t)
	daemon := filepath.Join(strings.TrimSpace(gitT(t, "", "--exec-path")), "git-daemon")
	if _, err := os.Stat(daemon); err != nil {
		t.Fatalf("git daemon is not installed, and sync over git:// is tested against it: install it (Debian, Ubuntu: apt install git, which includes it; Fedora: dnf install git-daemon): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &gitDaemon{t: t, bin: daemon, base: base, port: l.Addr().(*net.TCPAddr).Port}
	l.Close()
	d.start()
	t.Cleanup(d.stop)
	return d
}

// url is the address of the bare repository name under the daemon.
func (d *gitDaemon) url(name string) string {
	return fmt.Sprintf("git://127.0.0.1:%d/%s", d.port, name)
}

// start runs the daemon and waits until its port answers.
func (d *gitDaemon) start() {
	d.t.Helper()
	d.log, d.done = &lockedBuffer{}, make(chan struct{})
	d.cmd = exec.Command(d.bin, "--reuseaddr", "--base-path="+d.base, "--export-all", "--enable=receive-pack",
		"--listen=127.0.0.1", "--port="+strconv.Itoa(d.port), d.base)
	d.cmd.Env = append(os.Environ(), syncEnv...)
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	// a connection's child process may outlive the daemon with its output
	d.cmd.WaitDelay = 2 * time.Second
	if err := d.cmd.Start(); err != nil {
		d.t.Fatalf("start git daemon: %v", err)
	}
	go func() { d.cmd.Wait(); close(d.done) }()
	t0 := time.Now()
	waitFor(d.t, func() bool {
		select {
		case <-d.done:
			d.t.Fatalf("git daemon exited at start: %s", d.log.String())
		default:
		}
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", d.port), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	d.t.Logf("git daemon answers on 127.0.0.1:%d after %s", d.port, time.Since(t0).Round(time.Millisecond))
}

// stop kills the daemon and waits for it; stopping a stopped one is a no-op.
func (d *gitDaemon) stop() {
	if d.cmd == nil {
		return
	}
	_ = d.cmd.Process.Kill()
	<-d.done
	d.cmd = nil
}

// TestSyncGitDaemon: two machines move their remote to a git server on
// 127.0.0.1 (`git daemon` serving the same bare repository) with `sync
// init git://…` and converge through it. With the server stopped a round
// exits non-zero with one sentence saying the remote cannot be reached,
// and the memory is untouched and recalls; started again, the next rounds
// send what waited and the machines converge.
func TestSyncGitDaemon(t *testing.T) {
	a, b, remote := twoMachines(t)
	d := serveGit(t, filepath.Dir(remote))
	url := d.url(filepath.Base(remote))
	syncOK(t, a, "init", url)
	syncOK(t, b, "init", url)
	note(t, a, "vpn-gateway", "The office VPN gateway is vpn-gw-3.corp on UDP 51820.")
	note(t, b, "printer", "The 3rd floor printer is prn-3f, duplex by default.")
	syncOK(t, a)
	syncOK(t, b)
	syncOK(t, a)
	files := sameMemory(t, a, b)
	for _, want := range []string{"memory/knowledge/vpn-gateway/SKILL.md", "memory/knowledge/printer/SKILL.md"} {
		if _, ok := files[want]; !ok {
			t.Fatalf("%s did not travel through git daemon; files: %v", want, sortedKeys(files))
		}
	}

	d.stop()
	note(t, a, "release-train", "The release train leaves every second Wednesday.")
	before := memoryFiles(t, a)
	r := syncRun(t, a)
	if r.code == 0 {
		t.Fatalf("sync exit 0 with the server stopped:\n%s", r.stdout)
	}
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 {
		t.Fatalf("stderr is not one sentence:\n%s", r.stderr)
	}
	mustContain(t, "sync with the server stopped", r.stderr, "cannot reach "+url, "run sync again")
	after := memoryFiles(t, a)
	if strings.Join(sortedKeys(before), "\n") != strings.Join(sortedKeys(after), "\n") {
		t.Fatalf("the memory's files changed: %v, then %v", sortedKeys(before), sortedKeys(after))
	}
	for p, text := range before {
		if after[p] != text {
			t.Fatalf("%s changed:\n%s", p, after[p])
		}
	}
	recallFinds(t, a, "when does the release train leave", "release-train", "second Wednesday")

	d.start()
	syncOK(t, a)
	syncOK(t, b)
	if got := sameMemory(t, a, b)["memory/knowledge/release-train/SKILL.md"]; !strings.Contains(got, "second Wednesday") {
		t.Fatalf("the note written while the server was down did not travel:\n%s", got)
	}
	inStep(t, a, b)
}

// meetHook holds the first two pushes that reach the remote until both
// have arrived, so two machines' pushes meet there as they do when both
// push at the same moment; later pushes (a retry) pass at once.
const meetHook = `#!/bin/sh
if mkdir meet-1 2>/dev/null || mkdir meet-2 2>/dev/null; then
	i=0
	while [ ! -d meet-2 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
fi
exit 0
`

// TestSyncBothPushAtOnce: both machines have new notes and run sync at the
// same moment; both exit 0 (the one whose push lost fetches, merges and
// pushes again, and says so), and after one more round each the machines
// hold the same memory with every note. In the second case the pushes are
// made to meet at the remote, so one of them must retry.
func TestSyncBothPushAtOnce(t *testing.T) {
	tests := []struct {
		name string
		meet bool
	}{
		{"both rounds start together", false},
		{"both pushes reach the remote together", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b, remote := twoMachines(t)
			if tc.meet {
				hook := filepath.Join(remote, "hooks", "pre-receive")
				if err := os.WriteFile(hook, []byte(meetHook), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 5 {
				note(t, a, fmt.Sprintf("laptop-%d", i), fmt.Sprintf("Laptop note %d: the cache TTL is %d s.", i, 30+i))
				note(t, b, fmt.Sprintf("desktop-%d", i), fmt.Sprintf("Desktop note %d: the queue holds %d jobs.", i, 100+i))
			}
			var wg sync.WaitGroup
			runs := make([]cliRun, 2)
			begin := make(chan struct{})
			t0 := time.Now()
			for i, dir := range []string{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-begin
					runs[i] = syncRun(t, dir)
				}()
			}
			close(begin)
			wg.Wait()
			t.Logf("both rounds done after %s:\nlaptop: %sdesktop: %s", time.Since(t0), runs[0].stdout, runs[1].stdout)
			retried := 0
			for i, r := range runs {
				if r.code != 0 || r.stderr != "" {
					t.Fatalf("sync on machine %d: exit %d\nstdout:\n%s\nstderr:\n%s", i, r.code, r.stdout, r.stderr)
				}
				if strings.Contains(r.stdout, "pushed on try ") {
					retried++
				}
			}
			if tc.meet && retried != 1 {
				t.Fatalf("the pushes met at the remote, yet %d rounds say they pushed again", retried)
			}
			syncOK(t, a)
			syncOK(t, b)
			files := sameMemory(t, a, b)
			for i := range 5 {
				for _, p := range []string{fmt.Sprintf("memory/knowledge/laptop-%d/SKILL.md", i), fmt.Sprintf("memory/knowledge/desktop-%d/SKILL.md", i)} {
					if _, ok := files[p]; !ok {
						t.Fatalf("%s is missing; files: %v", p, sortedKeys(files))
					}
				}
			}
			inStep(t, a, b)
		})
	}
}
