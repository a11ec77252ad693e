package frontmatter

import (
	"strings"
	"testing"
)

var benchDoc = []byte("---\nname: docker-build-cache\ndescription: \"Docker builds on the CI runner: cache mounts need BuildKit\"\ntype: experience\nstability: 2\nscore: 0.72\ncreated: 2026-10-01\nlast_used: 2026-11-20\nlast_decay: 2026-11-25\nrelated: api-gateway-503\nticket: 123-456\n---\n\n" +
	strings.Repeat("Use the cache mount only with BuildKit.\n", 20))

var plainDoc = []byte("---\nname: 团队成员\ndescription: 项目团队共有五个人\ntype: fact\nstability: 1\nscore: 0.5\ncreated: 2026-11-01\nlast_used: 2026-11-01\nlast_decay: 2026-11-01\n---\n\nbody\n")

func BenchmarkFrontMatterParse(b *testing.B) {
	for _, bc := range []struct {
		name string
		doc  []byte
	}{{"plain", plainDoc}, {"quoted-yaml", benchDoc}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Parse("x", bc.doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFrontMatterRender(b *testing.B) {
	doc, err := Parse("x", benchDoc)
	if err != nil {
		b.Fatal(err)
	}
	doc.Meta.Set("score", "0.5") // one changed key, the rest reuse their raw text
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = doc.Render()
	}
}
