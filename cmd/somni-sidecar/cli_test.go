package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/ort"
	"github.com/somni-dev/somni/internal/sidecar"
	"github.com/somni-dev/somni/internal/testutil"
)

// cliRun is one run of the binary as a person types it: what it printed
// on each stream and how it exited.
type cliRun struct {
	stdout, stderr string
	code           int
}

// runCLIEnv runs the binary to completion with extra environment, keeping
// stderr apart from stdout: a refusal must say why there, and a good run
// must leave it empty.
func runCLIEnv(t *testing.T, env []string, stdin string, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliRun{stdout: out.String(), stderr: errb.String(), code: code}
}

// TestCLIRefusesMistakes: the commands a person types say no to what they
// cannot do — in one line on stderr that names the problem and the fix, with
// exit 2 — instead of answering a mistake as if it were a question: a
// mistyped data dir is not created and reported empty, a file is not read
// as a directory, an unknown type or an impossible limit is not searched.
func TestCLIRefusesMistakes(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "typo")
	file := filepath.Join(root, "a-file")
	if err := os.WriteFile(file, []byte("not a data dir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := testutil.Pydata(t)
	base := []string{"--embed", "off"}
	tests := []struct {
		name   string
		args   []string
		stderr []string // each in the one line the refusal prints
	}{
		{"recall on a missing data dir", []string{"--data-dir", missing, "recall", "deploy"},
			[]string{"no somni memory at " + missing, "--data-dir", "~/.dsh/somni"}},
		{"stats on a missing data dir", []string{"--data-dir", missing, "stats"},
			[]string{"no somni memory at " + missing, "--data-dir"}},
		{"doctor on a missing data dir", []string{"--data-dir", missing, "doctor"},
			[]string{"no somni memory at " + missing, "--data-dir"}},
		{"doctor on a file", []string{"--data-dir", file, "doctor"},
			[]string{file + " is a file", "--data-dir"}},
		{"recall on a file", []string{"--data-dir", file, "recall", "deploy"},
			[]string{file + " is a file", "--data-dir"}},
		{"unknown type", []string{"--data-dir", data, "recall", "--types", "bogus", "deploy"},
			[]string{`--types "bogus"`, "knowledge, skill, episode", "pitfall", "preference"}},
		{"unknown type beside good ones", []string{"--data-dir", data, "recall", "--types", "fact,skill,bogus", "deploy"},
			[]string{`--types "bogus"`}},
		{"limit 0", []string{"--data-dir", data, "recall", "--limit", "0", "deploy"}, []string{"--limit 0", "1 to 100"}},
		{"negative limit", []string{"--data-dir", data, "recall", "--limit", "-5", "deploy"}, []string{"--limit -5", "1 to 100"}},
		{"limit past the bound", []string{"--data-dir", data, "recall", "--limit", "101", "deploy"}, []string{"--limit 101", "1 to 100"}},
		{"unknown command", []string{"--data-dir", data, "stat"}, []string{`unknown command "stat"`, "stats", "--help"}},
		{"unknown flag", []string{"--data-dir", data, "recall", "--limt", "3", "deploy"}, []string{"unknown flag --limt", "--help"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLIEnv(t, nil, "", append(base, tc.args...)...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing: a refusal is not an answer", r.stdout)
			}
			if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 {
				t.Errorf("stderr has %d lines, want one sentence:\n%s", len(lines), r.stderr)
			}
			mustContain(t, "stderr", r.stderr, tc.stderr...)
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("%s was created by a command that only reads", missing)
	}
}

// TestCLIAcceptsWhatItShould: the refusals stop at mistakes. A type only
// hand-written notes use is a real type; the sidecar the plugin starts,
// and mcp, create a data dir on first use as the Python sidecar did.
func TestCLIAcceptsWhatItShould(t *testing.T) {
	data := testutil.Pydata(t)
	note := filepath.Join(data, "memory", "knowledge", "restore-drill", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("---\nname: restore-drill\ndescription: Restore the nightly backup into staging every quarter\ntype: runbook\n---\n\nPick the newest snapshot.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLIEnv(t, nil, "", "--data-dir", data, "--embed", "off", "recall", "--types", "runbook", "restore backup")
	if r.code != 0 || !strings.Contains(r.stdout, "restore-drill") {
		t.Fatalf("a hand-written type: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	for _, args := range [][]string{{}, {"mcp"}} {
		dir := filepath.Join(t.TempDir(), "fresh")
		r := runCLIEnv(t, nil, ping, append([]string{"--data-dir", dir, "--embed", "off", "--log-level", "error"}, args...)...)
		if r.code != 0 {
			t.Fatalf("%v on a new data dir: exit %d\nstderr: %s", args, r.code, r.stderr)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("%v did not create the data dir: %v", args, err)
		}
	}
}

// TestCLIHelpAndVersion: help is asked for three ways and describes every
// flag with the default data dir; the version is asked for two ways.
func TestCLIHelpAndVersion(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "USERPROFILE=" + home, "SOMNI_DATA_DIR="}
	flags := map[string]string{ // each flag with a word of its description
		"--data-dir": "memory/", "--llm": "dreams", "--embed": "keywords only", "--embed-model-dir": "model",
		"--ort-lib": "ONNX Runtime", "--assoc-threshold": "hinted", "--assoc-gap": "next best memory",
		"--assoc-max-items": "hint", "--log-level": "stderr", "--timezone": "IANA", "--json": "JSON",
		"--limit": "most memories", "--types": "kinds", "--verbose": "ids", "--version": "version",
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"recall", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runCLIEnv(t, env, "", args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			mustContain(t, "help", r.stdout, "recall", "doctor", "stats", "mcp", "version",
				"default "+filepath.Join(home, ".dsh", "somni"))
			lines := strings.Split(r.stdout, "\n")
			for flag, word := range flags {
				described := false
				for _, l := range lines {
					f := strings.Fields(l)
					described = described || len(f) > 0 && f[0] == flag && strings.Contains(l, word)
				}
				if !described {
					t.Errorf("%s is not described (want a line starting with it that says %q):\n%s", flag, word, r.stdout)
				}
			}
		})
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := runCLIEnv(t, env, "", args...)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "somni-sidecar "+sidecar.Version {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestCLIQuietAndRelevant: a recall prints its answer and nothing on
// stderr unless --verbose, and a query with nothing relevant says so
// rather than listing memories barely above the embedder's noise "close
// in meaning"; what the words found is still shown.
func TestCLIQuietAndRelevant(t *testing.T) {
	model := testutil.Model(t, "use-lite")
	lib := testutil.Model(t, "lib", ort.LibraryName)
	data := testutil.Pydata(t)
	base := []string{"--data-dir", data, "--embed-model-dir", model, "--ort-lib", lib}
	tests := []struct {
		name           string
		args           []string
		stdout, notOut []string
		stderr         string // "" ⇒ stderr must be empty
	}{
		{name: "nothing relevant", args: []string{"recall", "quantum chromodynamics lecture notes"},
			stdout: []string{"No matching memories."}},
		{name: "words found, weak meanings dropped", args: []string{"recall", "BuildKit cache"},
			stdout: []string{"docker-build-cache", `matched "cache"`}, notOut: []string{"close in meaning"}},
		{name: "verbose logs", args: []string{"--verbose", "recall", "BuildKit cache"},
			stdout: []string{"docker-build-cache"}, stderr: " INFO "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLIEnv(t, []string{"SOMNI_LOG_LEVEL="}, "", append(base, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
			}
			mustContain(t, "stdout", r.stdout, tc.stdout...)
			for _, no := range tc.notOut {
				if strings.Contains(r.stdout, no) {
					t.Errorf("stdout says %q:\n%s", no, r.stdout)
				}
			}
			if tc.stderr == "" && r.stderr != "" {
				t.Errorf("stderr %q, want nothing", r.stderr)
			}
			if tc.stderr != "" {
				mustContain(t, "stderr", r.stderr, tc.stderr)
			}
		})
	}
}

// TestCLIDoctorNamesEmbedderInWords: doctor says what a person can read
// ("local (USE-lite + CC-CEDICT), live"); the id, which reads like the
// hash fallback, and the files loaded come with --verbose.
func TestCLIDoctorNamesEmbedderInWords(t *testing.T) {
	model := testutil.Model(t, "use-lite")
	lib := testutil.Model(t, "lib", ort.LibraryName)
	base := []string{"--data-dir", t.TempDir(), "--embed-model-dir", model, "--ort-lib", lib}
	tests := []struct {
		verbose bool
		want    []string
		notWant []string
	}{
		{false, []string{"install: embedder local (USE-lite + CC-CEDICT), live\n"}, []string{"local:use-lite", "hash-v2", lib}},
		{true, []string{"install: embedder local (USE-lite + CC-CEDICT), live [local:use-lite+", model, lib}, nil},
	}
	for _, tc := range tests {
		args := append([]string{}, base...)
		if tc.verbose {
			args = append(args, "--verbose")
		}
		r := runCLIEnv(t, []string{"SOMNI_LOG_LEVEL="}, "", append(args, "doctor")...)
		if r.code != 0 {
			t.Fatalf("verbose %v: exit %d\nstdout: %s\nstderr: %s", tc.verbose, r.code, r.stdout, r.stderr)
		}
		mustContain(t, "doctor", r.stdout, tc.want...)
		for _, no := range tc.notWant {
			if strings.Contains(r.stdout, no) {
				t.Errorf("verbose %v: doctor says %q:\n%s", tc.verbose, no, r.stdout)
			}
		}
	}
}
