package embed

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestLocalScriptParts(t *testing.T) {
	tests := []struct {
		in         string
		latin, cjk string
		lu, cu     float64
	}{
		{"what port does postgres listen on", "what port does postgres listen on", "", 6, 0},
		{"数据库监听哪个端口", strings.Repeat(" ", 9), "数据库监听哪个端口", 0, 4.5}, // one space per CJK rune
		{"Elasticsearch 分片太多", "Elasticsearch     ", "分片太多", 1, 2},
		{"ratelimit.app.qps 怎么改", "ratelimit.app.qps    ", "怎么改", 3, 1.5},
		{"用 uv 管理环境，不用 pip", "  uv     ，   pip", "用 管理环境 不用", 2, 3.5},
		{"a ! ?", "a ! ?", "", 0, 0},
		{"", "", "", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			latin, cjk, lu, cu := localScriptParts(tc.in)
			if latin != tc.latin || cjk != tc.cjk || lu != tc.lu || cu != tc.cu {
				t.Errorf("got (%q, %q, %v, %v), want (%q, %q, %v, %v)", latin, cjk, lu, cu, tc.latin, tc.cjk, tc.lu, tc.cu)
			}
		})
	}
}

// fakeUSE stands in for the model: a fixed unit vector per distinct text,
// and it records what it was asked to embed.
type fakeUSE struct{ asked []string }

func (f *fakeUSE) embed(_ context.Context, texts []string) ([][]float32, error) {
	f.asked = append(f.asked, texts...)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 8)
		v[len(t)%8] = 1
		out[i] = v
	}
	return out, nil
}

func TestLocalFusedEmbed(t *testing.T) {
	f := &fakeUSE{}
	texts := []string{"pure english text", "纯中文的句子", "mixed 中英文 text", "!!", ""}
	vecs, err := localFusePlain.embed(context.Background(), texts, 8, f.embed, hashVector)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.asked) != 2 || f.asked[0] != "pure english text" || f.asked[1] != "mixed     text" {
		t.Errorf("model asked for %q, want only the Latin parts of the two texts with Latin words", f.asked)
	}
	for i, v := range vecs {
		if len(v) != localFuseDim(8) {
			t.Fatalf("text %d: dim %d, want %d", i, len(v), localFuseDim(8))
		}
		n := math.Sqrt(localNorm2(v))
		want := 1.0
		if i >= 3 {
			want = 0 // nothing to match on
		}
		if math.Abs(n-want) > 1e-5 {
			t.Errorf("text %q: norm %.6f, want %v", texts[i], n, want)
		}
	}
	if c := localCosine(vecs[0], vecs[1]); math.Abs(c) > 0.1 {
		t.Errorf("English vs Chinese cosine %.3f, want near 0 (no shared features)", c)
	}
	if c := localCosine(vecs[2], vecs[1]); c <= 0 {
		t.Errorf("mixed vs Chinese cosine %.3f, want > 0 (they share 中 / 文 n-grams)", c)
	}
	// the lexical half is the hash embedder's vector, scaled by b
	for i, text := range texts[:3] {
		_, _, lu, cu := localScriptParts(text)
		a, b := localFusePlain.weights(lu, 0, cu)
		h := hashVector(text)
		for d := range h {
			if math.Abs(float64(vecs[i][8+d]-b*h[d])) > 1e-6 {
				t.Fatalf("%q: lexical dim %d = %.4f, want b·hash = %.4f", text, d, vecs[i][8+d], b*h[d])
			}
		}
		if got := math.Sqrt(localNorm2(vecs[i][:8])); math.Abs(got-float64(a)) > 1e-6 {
			t.Errorf("%q: dense half has length %.4f, want a = %.4f", text, got, a)
		}
	}
	wantErr := errors.New("model down")
	if _, err := localFusePlain.embed(context.Background(), texts, 8, func(context.Context, []string) ([][]float32, error) {
		return nil, wantErr
	}, hashVector); !errors.Is(err, wantErr) {
		t.Errorf("model error %v, want it passed through", err)
	}
	if _, err := localFusePlain.embed(context.Background(), texts[:1], 4, f.embed, hashVector); err == nil {
		t.Error("an 8-dim model vector for a 4-dim fuse was accepted")
	}
}

func TestLocalFuseWeights(t *testing.T) {
	tests := []struct {
		name   string
		lu, cu float64
		a2     float64
	}{
		{"english", 6, 0, localFusePlain.alpha},
		{"chinese", 0, 4.5, 0},
		{"half and half", 2, 2, localFusePlain.alpha / 2},
		{"mostly chinese", 1, 3, localFusePlain.alpha / 4},
		{"nothing", 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := localFusePlain.weights(tc.lu, 0, tc.cu)
			if math.Abs(float64(a*a)-tc.a2) > 1e-6 || math.Abs(float64(a*a+b*b)-1) > 1e-6 {
				t.Errorf("a²=%.4f b²=%.4f, want a²=%.4f and a²+b²=1", a*a, b*b, tc.a2)
			}
		})
	}
}
