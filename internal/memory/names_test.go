package memory

import (
	"errors"
	"strings"
	"testing"
)

func TestSafeName(t *testing.T) {
	tests := []struct {
		in, want string
		refuse   bool
	}{
		{in: "docker-build-cache", want: "docker-build-cache"},
		{in: "团队成员", want: "团队成员"},
		{in: "git rebase 技巧", want: "git-rebase-技巧"},
		{in: "  spaced  ", want: "spaced"},
		{in: "a:b*c?d", want: "a-b-c-d"},
		{in: ".hidden", want: "hidden"},
		{in: "2026-11-29_001", want: "2026-11-29_001"},
		{in: "a..b", want: "a..b"},
		{in: "Ünïcödé", want: "Ünïcödé"},
		{in: "", refuse: true},
		{in: "   ", refuse: true},
		{in: "..", refuse: true},
		{in: ".", refuse: true},
		{in: "../../x", refuse: true},
		{in: "a/b", refuse: true},
		{in: `a\b`, refuse: true},
		{in: "/etc/passwd", refuse: true},
		{in: "nul\x00byte", refuse: true},
		{in: "***", refuse: true},
		{in: "bad\xffutf8", refuse: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := SafeName(tt.in)
			if tt.refuse {
				if !errors.Is(err, ErrUnsafeName) {
					t.Fatalf("SafeName(%q) = %q, %v; want ErrUnsafeName", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("SafeName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
	long, err := SafeName(strings.Repeat("长", 100))
	if err != nil || len(long) > maxNameBytes || !strings.HasPrefix(long, "长") {
		t.Fatalf("long name: %q %v", long, err)
	}
}

func TestWithin(t *testing.T) {
	if _, err := within("/data/memory", "knowledge", "x"); err != nil {
		t.Fatal(err)
	}
	for _, e := range [][]string{{".."}, {"knowledge", "..", "..", "etc"}, {"/abs/../../x"}} {
		if _, err := within("/data/memory", e...); !errors.Is(err, ErrUnsafeName) {
			t.Errorf("within(%v) = %v, want refusal", e, err)
		}
	}
}
