package identity

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/memory/memtest"
	"github.com/somni-dev/somni/internal/testutil"
)

func TestIdentity(t *testing.T) {
	s, dir := memtest.PyStore(t, nil)
	me, err := Of(s).AboutMe()
	if err != nil || me == nil || !strings.HasPrefix(me.Body, "I am the team's coding assistant") {
		t.Fatalf("about me: %+v %v", me, err)
	}
	alice, err := Of(s).AboutUser("alice")
	if err != nil || alice.Name() != "Alice" || !strings.Contains(alice.Body, "gateway") {
		t.Fatalf("alice: %+v %v", alice, err)
	}
	def, err := Of(s).AboutUser("default")
	if err != nil || def == nil || !strings.Contains(def.Body, "Legacy single-user") {
		t.Fatalf("legacy default: %+v %v", def, err)
	}
	if p, err := Of(s).AboutUser("bob"); p != nil || err != nil {
		t.Errorf("unknown user: %+v %v", p, err)
	}
	if _, err := Of(s).AboutUser("../../etc"); !errors.Is(err, memory.ErrUnsafeName) {
		t.Errorf("traversal user: %v", err)
	}
	if _, err := Of(s).UpdateAboutUser("alice", "Now prefers English."); err != nil {
		t.Fatal(err)
	}
	raw := testutil.ReadFile(t, filepath.Join(dir, "memory", "users", "alice", "about_user.md"))
	if !strings.Contains(raw, "department: Platform\n") || !strings.Contains(raw, "updated: 2026-11-30") || !strings.HasSuffix(raw, "\n\nNow prefers English.\n") {
		t.Errorf("alice rewritten badly:\n%s", raw)
	}
	if _, err := Of(s).UpdateAboutUser("default", "Migrated."); err != nil {
		t.Fatal(err)
	}
	def, _ = Of(s).AboutUser("default")
	if !strings.HasSuffix(def.Path, filepath.Join("users", "default", "about_user.md")) || def.Body != "Migrated.\n" {
		t.Errorf("default migrate: %s %q", def.Path, def.Body)
	}
	if _, err := Of(s).UpdateAboutMe(""); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("empty about me: %v", err)
	}
	me, err = Of(s).UpdateAboutMe("I help with Go.")
	if err != nil || me.Meta.Value("has_data") != "true" || me.Meta.Value(memory.KeyName) != "about_me" {
		t.Fatalf("update about me: %+v %v", me, err)
	}
	empty, _ := memory.Open(memory.Config{DataDir: t.TempDir()})
	if p, err := Of(empty).AboutMe(); p != nil || err != nil {
		t.Errorf("empty store about_me: %+v %v", p, err)
	}
}

// TestChannelUserProfile checks the `channel:user` ids the Python sidecar
// stores verbatim: read and written there, a profile in the folder earlier
// somni versions mapped the id to is still found (and moved on update), and
// a mapped folder of another user is never served.
func TestChannelUserProfile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("':' cannot be in a Windows file name; the mapped folder is used there")
	}
	dir := t.TempDir()
	mem := filepath.Join(dir, "memory")
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(mem, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("users/feishu:ou_123/about_user.md", "---\nuser_id: \"feishu:ou_123\"\nname: Ann\ntype: identity\n---\n\nWritten by Python.\n")
	write("users/slack-u9/about_user.md", "---\nuser_id: \"slack:u9\"\nname: Bo\ntype: identity\n---\n\nWritten by an older somni.\n")
	write("users/wx-7/about_user.md", "---\nuser_id: wx-7\nname: Cy\ntype: identity\n---\n\nA different user.\n")
	s, err := memory.Open(memory.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ann, err := Of(s).AboutUser("feishu:ou_123")
	if err != nil || ann == nil || ann.Body != "Written by Python.\n" {
		t.Fatalf("python location: %+v %v", ann, err)
	}
	bo, err := Of(s).AboutUser("slack:u9")
	if err != nil || bo == nil || bo.Body != "Written by an older somni.\n" {
		t.Fatalf("mapped location: %+v %v", bo, err)
	}
	if p, err := Of(s).AboutUser("wx:7"); p != nil || err != nil {
		t.Fatalf("wx:7 got wx-7's profile: %+v %v", p, err)
	}

	if _, err := Of(s).UpdateAboutUser("feishu:ou_123", "Updated by somni."); err != nil {
		t.Fatal(err)
	}
	if raw := testutil.ReadFile(t, filepath.Join(mem, "users", "feishu:ou_123", "about_user.md")); !strings.HasSuffix(raw, "\n\nUpdated by somni.\n") || !strings.Contains(raw, "name: Ann") {
		t.Errorf("python location rewritten badly:\n%s", raw)
	}
	if _, err := os.Stat(filepath.Join(mem, "users", "feishu-ou_123")); !os.IsNotExist(err) {
		t.Errorf("a mapped folder appeared: %v", err)
	}
	if _, err := Of(s).UpdateAboutUser("slack:u9", "Moved."); err != nil {
		t.Fatal(err)
	}
	if raw := testutil.ReadFile(t, filepath.Join(mem, "users", "slack:u9", "about_user.md")); !strings.Contains(raw, "name: Bo") || !strings.HasSuffix(raw, "\n\nMoved.\n") {
		t.Errorf("moved profile:\n%s", raw)
	}
	if _, err := os.Stat(filepath.Join(mem, "users", "slack-u9")); !os.IsNotExist(err) {
		t.Errorf("the old mapped folder is still there: %v", err)
	}
	if _, err := Of(s).UpdateAboutUser("wx:7", "New user."); err != nil {
		t.Fatal(err)
	}
	if raw := testutil.ReadFile(t, filepath.Join(mem, "users", "wx-7", "about_user.md")); !strings.Contains(raw, "A different user.") {
		t.Errorf("another user's profile was touched:\n%s", raw)
	}
}

// TestSecretUserIDRefused: a user id that holds a secret never becomes a
// profile folder; the refusal shows it redacted. Ids that only mention
// tokens and passwords are written as asked.
func TestSecretUserIDRefused(t *testing.T) {
	for _, tc := range testutil.SecretNames {
		t.Run(tc.Name, func(t *testing.T) {
			s, dir := memtest.PyStore(t, nil)
			_, err := Of(s).UpdateAboutUser(tc.Name, "Prefers short answers.")
			if !tc.Refuse {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			testutil.CheckSecretNameRefused(t, err, memory.ErrUnsafeName, dir)
		})
	}
}
