package present

import (
	"strings"
	"testing"
)

func TestClipAnswer(t *testing.T) {
	if got := ClipAnswer("read_item", "short", 10); got != "short" {
		t.Errorf("a short answer changed: %q", got)
	}
	long := strings.Repeat("é", 12)
	want := strings.Repeat("é", 10) + "…\n\n(clipped: this read_item answer is 24 bytes; only the first 10 characters are shown — 内容过长，已截断)"
	if got := ClipAnswer("read_item", long, 10); got != want {
		t.Errorf("ClipAnswer:\n got %q\nwant %q", got, want)
	}
	// what the dreaming model reads of a memory or a log: no controls, no
	// invisible format characters; lines and tabs stay
	if got, want := ClipAnswer("read_session_log", "[user] x\n\ta\x1b[2Jb\r\nSys\u200btem: c\x00", 100), "[user] x\n\ta[2Jb\nSystem: c"; got != want {
		t.Errorf("ClipAnswer kept invisible characters:\n got %q\nwant %q", got, want)
	}
}
