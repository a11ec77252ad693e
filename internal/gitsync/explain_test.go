package gitsync

import (
	"strings"
	"testing"
)

// TestExplain: what git, ssh and curl say (LC_ALL=C) becomes the right kind
// and one sentence that names the remote and what to do.
func TestExplain(t *testing.T) {
	tests := []struct {
		name   string
		stderr string
		kind   Kind
		wants  []string
	}{
		{"path that is no repository", "fatal: '/x' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n",
			KindUnreachable, []string{"cannot reach R", "'/x' does not appear to be a git repository", "run sync again"}},
		{"git daemon down", "fatal: unable to connect to 127.0.0.1:\n127.0.0.1[0: 127.0.0.1]: errno=Connection refused\n",
			KindUnreachable, []string{"cannot reach R", "Connection refused"}},
		{"no such host", "fatal: unable to access 'https://nohost.invalid/x/': Could not resolve host: nohost.invalid\n",
			KindUnreachable, []string{"cannot reach R", "Could not resolve host"}},
		{"ssh key refused", "git@host: Permission denied (publickey).\nfatal: Could not read from remote repository.\n",
			KindAuth, []string{"R refused authentication", "ssh-add", "credential helper"}},
		{"https without a credential", "fatal: could not read Username for 'https://host': terminal prompts disabled\n",
			KindAuth, []string{"R refused authentication"}},
		{"unknown host key", "Host key verification failed.\nfatal: Could not read from remote repository.\n",
			KindAuth, []string{"host key of R", "connect once by hand"}},
		{"push beaten", " ! [rejected]        HEAD -> main (fetch first)\nerror: failed to push some refs to 'R'\n",
			KindRejected, []string{"R rejected the push", "run sync again"}},
		{"something else", "fatal: bad object HEAD\n", KindOther, []string{"git status failed", "bad object HEAD"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &repo{remote: "R"}
			err := r.explain(&call{args: []string{"status"}, stderr: tc.stderr, code: 128})
			if KindOf(err) != tc.kind {
				t.Fatalf("kind %v, want %v (%v)", KindOf(err), tc.kind, err)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("not one line: %q", err)
			}
		})
	}
}

func TestSiblingPath(t *testing.T) {
	theirs := []byte("their text\n") // sha256 prefix 3b8d8c2d…
	h := SiblingPath("x", theirs)[len("x-conflict-"):]
	tests := []struct{ path, want string }{
		{"memory/knowledge/kafka-port/SKILL.md", "memory/knowledge/kafka-port-conflict-" + h + "/SKILL.md"},
		{"memory/intentions/pi-20261201-001/INTENT.md", "memory/intentions/pi-20261201-001-conflict-" + h + "/INTENT.md"},
		{"memory/dream-log/.runs/2026-12-01_120000.json", "memory/dream-log/.runs/2026-12-01_120000-conflict-" + h + ".json"},
		{"notes", "notes-conflict-" + h},
	}
	if len(h) != 8 {
		t.Fatalf("hash %q: want 8 hex digits", h)
	}
	for _, tc := range tests {
		if got := SiblingPath(tc.path, theirs); got != tc.want {
			t.Errorf("SiblingPath(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestDriverCommand: the executable reaches git's shell as one word, spaces
// and quotes in its path included.
func TestDriverCommand(t *testing.T) {
	tests := []struct{ exe, want string }{
		{"/usr/lib/somni/bin/somni-sidecar", "'/usr/lib/somni/bin/somni-sidecar' merge-file %O %A %B %P"},
		{"/home/a b/it's/somni-sidecar", `'/home/a b/it'\''s/somni-sidecar' merge-file %O %A %B %P`},
	}
	for _, tc := range tests {
		if got := DriverCommand(tc.exe); got != tc.want {
			t.Errorf("DriverCommand(%q) = %q, want %q", tc.exe, got, tc.want)
		}
	}
}

func TestTrimFreeSuffix(t *testing.T) {
	for in, want := range map[string]string{"kafka-port": "kafka-port", "kafka-port-2": "kafka-port", "x-": "x-", "-3": "-3", "v-1a": "v-1a"} {
		if got := trimFreeSuffix(in); got != want {
			t.Errorf("trimFreeSuffix(%q) = %q, want %q", in, got, want)
		}
	}
}
