package memory

import (
	"fmt"
	"testing"
)

func BenchmarkSaveAtomic(b *testing.B) {
	s := newTestStore(b)
	e := s.NewEntry(Draft{Kind: KindKnowledge, Path: s.dirs.knowledge + "/bench/SKILL.md", Name: "bench", Description: "d", Type: "fact", Score: 0.5, Body: "body\n"})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Body = fmt.Sprintf("body %d\n", i)
		if err := s.Save(e); err != nil {
			b.Fatal(err)
		}
	}
}
