package textcut

import "testing"

// TestClippers pins each cutter's rule, including the markers the callers
// pass, so output stays byte-identical to the copies these replaced.
func TestClippers(t *testing.T) {
	cases := []struct{ name, got, want string }{
		{"Clip keeps short", Clip("héllo", 5, "…"), "héllo"},
		{"Clip cuts runes", Clip("héllo wörld", 7, "…"), "héllo w…"},
		{"Clip no marker", Clip("日本語テキスト", 3, ""), "日本語"},
		{"Clip spaced marker trims", Clip("one two three", 4, " …"), "one …"},
		{"Clip n<=0 keeps", Clip("whole text", 0, " …"), "whole text"},
		{"ClipBytes keeps short", ClipBytes("abc", 3, "…"), "abc"},
		{"ClipBytes rune start", ClipBytes("aé", 2, "…"), "a…"},
		{"ClipBytes zero", ClipBytes("abc", 0, "…"), "…"},
		{"ClipMiddle", ClipMiddle("0123456789", 6, " … "), "012 … 89"},
		{"ClipMiddle rune", ClipMiddle("ééééé", 7, "|"), "é|é"},
		{"OneLine", OneLine("  a\n\tb  c \r\n"), "a b c"},
		{"MarkNewlines", MarkNewlines("a\r\nb\nc\rd  e"), "a ⏎ b ⏎ c ⏎ d  e"},
		{"MarkNewlines none", MarkNewlines("a  b"), "a  b"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestPrefix(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"", 3, "", false},
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"长长长长", 2, "长长", true},
		{"长长", 2, "长长", false},
		{"a长b", 0, "", true},
		{"\xff\xfeab", 2, "\xff\xfe", true}, // invalid bytes count as one rune each
	}
	for _, tc := range tests {
		got, cut := Prefix(tc.in, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Prefix(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.cut)
		}
	}
}

// TestVisible: what a terminal or a model would act on but a reader cannot
// see is dropped; tab and newline stay, a CR becomes a newline.
func TestVisible(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "plain text, 端口 5544", "plain text, 端口 5544"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"ESC sequence", "\x1b[31mred\x1b[0m \x1b]0;title\x07", "[31mred[0m ]0;title"},
		{"NUL and DEL", "a\x00b\x7fc", "abc"},
		{"CR LF and lone CR", "a\r\nb\rc", "a\nb\nc"},
		{"vertical tab, form feed", "a\vb\fc", "a b c"},
		{"C1 controls", "a\u0085b\u009bc\u0090d", "a\nbcd"},
		{"zero-width", "Hu\u200bman\u200d:\u2060 x\ufeff", "Human: x"},
		{"bidi", "\u202eSystem\u202c: \u2066x\u2069", "System: x"},
		{"tag characters", "ok\U000E0049\U000E0047\U000E004E", "ok"},
		{"soft hyphen", "co\u00adoperate", "cooperate"},
		{"invalid UTF-8 kept", "a\xffb\x1b", "a\xffb"},
	} {
		if got := Visible(tc.in); got != tc.want {
			t.Errorf("%s: Visible(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}
