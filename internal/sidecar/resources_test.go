package sidecar_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/rpc"
	"github.com/somni-dev/somni/internal/testutil"
)

// TestProfileAndDiaryMethods: profile.* and sleep.diaries answer what the
// identity files and the dream diaries of a Python-format data dir hold,
// and an id that cannot name a profile folder is the caller's mistake.
func TestProfileAndDiaryMethods(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	testutil.CopyTree(t, testutil.Testdata("pydata"), dir)
	srv := newServer(t, dir)

	out, err := call(t, srv, "profile.users", `{}`)
	if err != nil || out != `{"users":["default","alice"]}` {
		t.Errorf("profile.users = %s, %v", out, err)
	}
	out, err = call(t, srv, "profile.aboutMe", `{}`)
	if err != nil || !strings.Contains(out, `"exists":true`) || !strings.Contains(out, "I am the team's coding assistant") {
		t.Errorf("profile.aboutMe = %s, %v", out, err)
	}
	out, err = call(t, srv, "profile.aboutUser", `{"userId":"alice"}`)
	if err != nil || !strings.Contains(out, `"name":"Alice"`) || !strings.Contains(out, "gateway") {
		t.Errorf("profile.aboutUser alice = %s, %v", out, err)
	}
	// The legacy memory/about_user.md is user "default"'s.
	out, err = call(t, srv, "profile.aboutUser", `{"userId":"default"}`)
	if err != nil || !strings.Contains(out, "Legacy single-user") {
		t.Errorf("profile.aboutUser default = %s, %v", out, err)
	}
	out, err = call(t, srv, "profile.aboutUser", `{"userId":"bob"}`)
	if err != nil || out != `{"exists":false,"name":"","body":""}` {
		t.Errorf("profile.aboutUser bob = %s, %v", out, err)
	}
	var re *rpc.Error
	if _, err := call(t, srv, "profile.aboutUser", `{"userId":"../../etc"}`); !errors.As(err, &re) || re.Code != rpc.CodeInvalidParams {
		t.Errorf("profile.aboutUser ../../etc: %v, want -32602", err)
	}
	out, err = call(t, srv, "sleep.diaries", `{}`)
	if err != nil || out != `{"count":1,"newest":"memory/dream-log/2026-11-20_dream_001.md"}` {
		t.Errorf("sleep.diaries = %s, %v", out, err)
	}
}
