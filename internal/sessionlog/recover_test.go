package sessionlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/frontmatter"
)

func TestRecoverCrashed(t *testing.T) {
	const header = "---\nsession_id: 2026-11-30_001\nuser: default\nchat_id: s1\nstart_time: 2026-11-30T09:00:00\n---\n\n"
	const b1 = "[user] 2026-11-30T09:00:01\n你好，记住端口 5432\n\n"
	const b2 = "[agent] 2026-11-30T09:00:02\n好的\n\n"
	torn := "[user] 2026-11-30T09:00:03\n数据库" // cut mid-block
	tornRune := torn[:len(torn)-1]            // cut inside the last UTF-8 character
	tests := []struct {
		name      string
		content   string
		recovered bool
		wantBody  string // expected blocks after recovery
		wantCount string
	}{
		{"whole log left open", header + b1 + b2, true, b1 + b2, "2"},
		{"made ahead of its first block", strings.Replace(header, "T09:00:00", "T08:59:30", 1) + b1, true, b1, "1"},
		{"torn inside a block", header + b1 + b2 + torn, true, b1 + b2, "2"},
		{"torn inside a character", header + b1 + tornRune, true, b1, "1"},
		{"torn in the first block", header + tornRune, true, "", "0"},
		{"torn at a line end is kept (cannot tell it from a whole block)", header + b1 + "[agent] 2026-11-30T09:00:02\n好的\n", true, b1 + "[agent] 2026-11-30T09:00:02\n好的\n", "2"},
		{"already closed", strings.Replace(header, "---\n\n", "status: pending\n---\n\n", 1) + b1, false, "", ""},
		{"headerless legacy log", b1 + b2, false, "", ""},
		{"header torn after its first lines", "---\nsession_id: 2026-11-30_001\nuser: default\nchat_i", true, "", "0"},
		{"header torn inside the session id", "---\nsession_id: 2026-11", true, "", "0"},
		{"empty file (killed right after create)", "", true, "", "0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestLogs(t)
			dir := s.dir
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "2026-11-30_001.md")
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			done, err := s.Capture().RecoverCrashed()
			if err != nil {
				t.Fatal(err)
			}
			got, readErr := os.ReadFile(p)
			if tc.recovered && tc.wantCount == "0" {
				// Nothing was said in it: removed, not left for a dream.
				if len(done) != 1 || done[0] != p || !os.IsNotExist(readErr) {
					t.Fatalf("empty crashed log: done %v, read %v\n%s", done, readErr, got)
				}
				return
			}
			if !tc.recovered {
				if len(done) != 0 || string(got) != tc.content {
					t.Fatalf("touched a log it must leave alone: %v\n%s", done, got)
				}
				return
			}
			if len(done) != 1 || done[0] != p {
				t.Fatalf("recovered %v, want %s", done, p)
			}
			doc, err := frontmatter.Parse(p, got)
			if err != nil {
				t.Fatalf("recovered log does not parse: %v\n%s", err, got)
			}
			if doc.Meta.Value("session_id") != "2026-11-30_001" || doc.Meta.Value("status") != StatusPending ||
				doc.Meta.Value("message_count") != tc.wantCount || doc.Meta.Value("end_time") == "" {
				t.Errorf("header not finalised: %q", doc.Meta.Keys())
			}
			if b := Parse(p, got).Blocks; len(b) > 0 && doc.Meta.Value("start_time") != b[0].Time {
				t.Errorf("start_time %s, first block %s", doc.Meta.Value("start_time"), b[0].Time)
			}
			if strings.TrimLeft(doc.Body, "\n") != tc.wantBody {
				t.Errorf("body = %q, want %q", doc.Body, tc.wantBody)
			}
			if again, _ := s.Capture().RecoverCrashed(); len(again) != 0 {
				t.Errorf("second recovery touched %v", again)
			}
		})
	}
}

// TestRecoverSkipsLiveWriters checks that a log held by a live session —
// in this process or, through its lock, in another — is never rewritten.
func TestRecoverSkipsLiveWriters(t *testing.T) {
	s := newTestLogs(t)
	c := s.Capture()
	if _, err := c.Append("live", "user", "still talking", "", "", ""); err != nil {
		t.Fatal(err)
	}
	if done, err := c.RecoverCrashed(); err != nil || len(done) != 0 {
		t.Fatalf("recovered a log this process is writing: %v %v", done, err)
	}
	// A second store on the same dir is another process's view: only the lock protects the log.
	other := secondLogs(t, s)
	if done, err := other.Capture().RecoverCrashed(); err != nil || len(done) != 0 {
		t.Fatalf("recovered a log another writer holds: %v %v", done, err)
	}
	path, err := c.Close("live")
	if err != nil {
		t.Fatal(err)
	}
	if st := c.l.logStatus(path); st != StatusPending {
		t.Fatalf("status after close = %q", st)
	}
}
