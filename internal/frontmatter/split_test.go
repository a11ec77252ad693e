package frontmatter

import "testing"

func TestStripFrontMatter(t *testing.T) {
	tests := []struct{ in, want string }{
		{"---\nname: x\n---\n\nbody\n", "body"},
		{"no header\n", "no header"},
		{"---\nunclosed\nbody", "---\nunclosed\nbody"},
		{"\ufeff---\r\nname: x\r\n---\r\nbody", "body"},
		{"---\nname: x\n---", ""},
	}
	for _, tc := range tests {
		if got := Strip(tc.in); got != tc.want {
			t.Errorf("Strip(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseHeadIgnoresACutBody(t *testing.T) {
	head := []byte("---\nstatus: processed\nchat_id: c\n---\n\n[user] 2026-01-01T10:00:00\n\xe4\xbd")
	meta, ok := ParseHead("log", head)
	if !ok || meta.Value("status") != "processed" || meta.Value("chat_id") != "c" {
		t.Fatalf("parseHead = %v, %v", meta, ok)
	}
	if _, ok := ParseHead("log", []byte("---\nstatus: pending\n")); ok {
		t.Error("an unclosed header must not parse")
	}
}
