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
