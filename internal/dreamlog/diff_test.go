package dreamlog

import "testing"

func TestUnified(t *testing.T) {
	tests := []struct {
		name, before, after, want string
	}{
		{"equal", "a\n", "a\n", ""},
		{"created", "", "x\ny\n", "--- /dev/null\n+++ b/f.md\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"removed", "x\n", "", "--- a/f.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"},
		{"one line changed in the middle",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- a/f.md\n+++ b/f.md\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"two hunks",
			"a\n1\n2\n3\n4\n5\n6\n7\n8\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\n8\nB\n",
			"--- a/f.md\n+++ b/f.md\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -7,4 +7,4 @@\n 6\n 7\n 8\n-b\n+B\n"},
		{"no newline at end", "a\n", "a\nb", "--- a/f.md\n+++ b/f.md\n@@ -1 +1,2 @@\n a\n+b\n\\ No newline at end of file\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unified("f.md", tc.before, tc.after); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
