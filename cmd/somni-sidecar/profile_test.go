package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/testutil"
)

// TestChannelUserProfileThroughBinary runs a data dir the Python sidecar
// wrote, with a `channel:user` id, through the binary: the profile reaches
// the prompt, a dream writes it back where Python reads it, and doctor names
// the profile folders no id maps to.
func TestChannelUserProfileThroughBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("':' cannot be in a Windows file name; somni uses the mapped folder there")
	}
	dir := t.TempDir()
	users := filepath.Join(dir, "memory", "users")
	plant := func(folder, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(users, folder), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(users, folder, "about_user.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("feishu:ou_123", "---\nuser_id: \"feishu:ou_123\"\nname: Ann\ntype: identity\nupdated: 2026-11-01\n---\n\nAnn runs the billing team; answers in Chinese.\n")

	s := start(t, dir, nil)
	var pr struct{ Identity string }
	s.call("prompt.build", map[string]any{"speakerUserId": "feishu:ou_123"}, &pr)
	mustContain(t, "prompt identity", pr.Identity, "Ann runs the billing team")

	s.call("session.append", map[string]any{"sessionId": "c1", "role": "user", "userId": "feishu:ou_123", "text": "I moved to the payments team last week."}, nil)
	s.call("session.close", map[string]any{"sessionId": "c1"}, nil)
	model := dreamtest.NewModel(
		dreamtest.Step{Calls: []dreamtest.Call{{Name: "read_session_log", Args: map[string]any{"path": "$LOG0"}}}},
		dreamtest.Step{Calls: []dreamtest.Call{
			{Name: "mark_log_processed", Args: map[string]any{"path": "$LOG0"}},
			{Name: "update_about_user", Args: map[string]any{"user_id": "feishu:ou_123", "content": "Ann is on the payments team; answers in Chinese."}},
		}},
		dreamtest.Step{Content: "profile updated"},
	)
	dreamHost(s, model)
	var run struct{ Status, Summary string }
	s.call("sleep.run", map[string]any{"trigger": "test"}, &run)
	if run.Status != "deep_sleep" {
		t.Fatalf("sleep.run = %+v (tool replies %q)", run, model.ToolReplies())
	}
	prof := testutil.ReadFile(t, filepath.Join(users, "feishu:ou_123", "about_user.md"))
	mustContain(t, "profile at the Python location", prof, "name: Ann", "payments team")
	if _, err := os.Stat(filepath.Join(users, "feishu-ou_123")); !os.IsNotExist(err) {
		t.Errorf("the dream wrote a mapped folder: %v", err)
	}
	s.call("prompt.build", map[string]any{"speakerUserId": "feishu:ou_123"}, &pr)
	mustContain(t, "prompt after the dream", pr.Identity, "payments team")
	s.call("shutdown", nil, nil)
	s.waitExit()

	// Folders no id reads: an older somni's mapped folder, a user_id the
	// folder does not match, and a name that is no usable id.
	plant("slack-u9", "---\nuser_id: \"slack:u9\"\nname: Bo\ntype: identity\n---\n\nBo.\n")
	plant("carol", "---\nuser_id: dave\nname: Dave\ntype: identity\n---\n\nDave.\n")
	plant("tab\tname", "---\nname: X\ntype: identity\n---\n\nX.\n")
	out, _ := runCLI(t, "--data-dir", dir, "--embed", "off", "doctor")
	mustContain(t, "doctor", out,
		"slack-u9/about_user.md: profile-folder: user \"slack:u9\"'s profile is in the folder older somni versions used",
		"carol/about_user.md: profile-folder: front-matter user_id \"dave\" does not match folder \"carol\"",
		"profile-folder: no user id maps to folder \"tab\\tname\"")
	if strings.Contains(out, "feishu:ou_123/about_user.md") {
		t.Errorf("doctor reports the Python-location profile:\n%s", out)
	}
}
