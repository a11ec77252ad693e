package sidecar

import (
	"slices"
	"testing"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/memory"
)

// TestKindsOneSpelling: the Source passes memory's kind names through as
// the index's, so the two must spell every kind recall knows alike.
func TestKindsOneSpelling(t *testing.T) {
	for _, k := range []struct {
		mem memory.Kind
		ix  string
	}{
		{memory.KindKnowledge, rank.KindKnowledge},
		{memory.KindSkill, rank.KindSkill},
		{memory.KindEpisode, rank.KindEpisode},
		{memory.KindIntention, rank.KindIntention},
	} {
		if string(k.mem) != k.ix {
			t.Errorf("memory kind %q, index kind %q", k.mem, k.ix)
		}
	}
	for _, k := range indexKinds {
		if got, ok := rank.ParseKind(string(k)); !ok || got != string(k) {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, ok)
		}
	}
}

// TestDocOfSupersession: the links a dream writes when a fact changed reach
// the index as the entry's own fields, read by memory's accessors.
func TestDocOfSupersession(t *testing.T) {
	meta := frontmatter.New()
	meta.Set(memory.KeyName, "kafka-port")
	meta.Set(memory.KeySupersedes, "kafka-port-old, kafka-port-older")
	meta.Set(memory.KeySupersededBy, "kafka-port-9095")
	d := docOf(&memory.Entry{Kind: memory.KindKnowledge, Name: "kafka-port", Path: "/m/knowledge/kafka-port/SKILL.md", Meta: meta})
	if !slices.Equal(d.Supersedes, []string{"kafka-port-old", "kafka-port-older"}) || d.SupersededBy != "kafka-port-9095" {
		t.Errorf("doc supersedes %q, superseded_by %q", d.Supersedes, d.SupersededBy)
	}
	if d := docOf(&memory.Entry{Kind: memory.KindKnowledge, Name: "plain", Meta: frontmatter.New()}); d.Supersedes != nil || d.SupersededBy != "" {
		t.Errorf("an entry without links: supersedes %q, superseded_by %q", d.Supersedes, d.SupersededBy)
	}
}
