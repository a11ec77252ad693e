package memory

import (
	"fmt"
	"testing"
)

func BenchmarkSaveAtomic(b *testing.B) {
	s := newTestStore(b)
	e := s.newEntry(KindKnowledge, s.dirs.knowledge+"/bench/SKILL.md", "bench", "d", "fact", 0.5, "body\n")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Body = fmt.Sprintf("body %d\n", i)
		if err := s.Save(e); err != nil {
			b.Fatal(err)
		}
	}
}
