package textseg

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
