package sidecar

import (
	"testing"

	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/memory"
)

// TestKindsOneSpelling: the Source passes memory's kind names through as
// the index's, so the two must spell every kind recall knows alike.
func TestKindsOneSpelling(t *testing.T) {
	for _, k := range []struct {
		mem memory.Kind
		ix  string
	}{
		{memory.KindKnowledge, index.KindKnowledge},
		{memory.KindSkill, index.KindSkill},
		{memory.KindEpisode, index.KindEpisode},
		{memory.KindIntention, index.KindIntention},
	} {
		if string(k.mem) != k.ix {
			t.Errorf("memory kind %q, index kind %q", k.mem, k.ix)
		}
	}
	for _, k := range indexKinds {
		if got, ok := index.ParseKind(string(k)); !ok || got != string(k) {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, ok)
		}
	}
}
