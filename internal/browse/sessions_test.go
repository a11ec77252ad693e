package browse

import (
	"fmt"
	"strings"
	"testing"
)

func TestSessionsBounds(t *testing.T) {
	tests := []struct {
		name      string
		fill      func(s *Sessions)
		id        string
		wantLen   int
		wantFirst string // Query of the newest event
	}{
		{"newest first", func(s *Sessions) {
			s.Add("a", Event{Query: "1"})
			s.Add("a", Event{Query: "2"})
		}, "a", 2, "2"},
		{"ring keeps the newest", func(s *Sessions) {
			for i := 0; i < MaxSessionEvents+5; i++ {
				s.Add("a", Event{Query: fmt.Sprint(i)})
			}
		}, "a", MaxSessionEvents, fmt.Sprint(MaxSessionEvents + 4)},
		{"least recently used session goes", func(s *Sessions) {
			s.Add("old", Event{Query: "x"})
			for i := 0; i < MaxSessions; i++ {
				s.Add(fmt.Sprint("s", i), Event{})
			}
		}, "old", 0, ""},
		{"a used session stays", func(s *Sessions) {
			s.Add("kept", Event{Query: "x"})
			for i := 0; i < MaxSessions-1; i++ {
				s.Add(fmt.Sprint("s", i), Event{})
			}
			s.Add("kept", Event{Query: "y"})
			s.Add("one-more", Event{})
		}, "kept", 2, "y"},
		{"no id, no record", func(s *Sessions) { s.Add("", Event{Query: "x"}) }, "", 0, ""},
		{"over-long id, no record", func(s *Sessions) {
			s.Add(strings.Repeat("x", MaxSessionIDBytes+1), Event{})
		}, strings.Repeat("x", MaxSessionIDBytes+1), 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSessions()
			tc.fill(s)
			got := s.Events(tc.id)
			if len(got) != tc.wantLen || len(got) > 0 && got[0].Query != tc.wantFirst {
				t.Fatalf("%d events, first %+v", len(got), got)
			}
			for _, ev := range got {
				if ev.Items == nil {
					t.Fatal("nil items encode as null")
				}
			}
		})
	}
}
