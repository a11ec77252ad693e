package embed

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/ort"
)

// localTestUSELiteID is the ID of the fused USE-lite embedder that `make
// models` sets up: with the CC-CEDICT glossary (local_fuse.go, local_gloss.go).
const localTestUSELiteID = "local:use-lite+dense2+cedict1:hash-v2-256"

// localTestPlainID is the ID of a USE-lite folder without the glossary.
const localTestPlainID = "local:use-lite+dense2:hash-v2-256"

// localTestPlainDir is a use-lite folder holding the model and vocabulary
// of models/use-lite but not its CC-CEDICT file.
func localTestPlainDir(t testing.TB) string {
	t.Helper()
	src, err := filepath.Abs(localTestModelDir(t, "use-lite"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "use-lite")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"model.onnx", "vocab.json"} {
		if err := os.Symlink(filepath.Join(src, f), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// localTestGlossedDir returns models/use-lite, skipping when `make models`
// has not put the glossary there.
func localTestGlossedDir(t testing.TB) string {
	t.Helper()
	dir := localTestModelDir(t, "use-lite")
	if _, err := os.Stat(filepath.Join(dir, localGlossFile)); err != nil {
		t.Skipf("%s missing: run `make models` first", localGlossFile)
	}
	return dir
}

// localTestModelDir returns models/<name> or skips when `make models` has not run.
func localTestModelDir(t testing.TB, name string) string {
	t.Helper()
	dir := localTestRepoPath("models", name)
	for _, p := range []string{filepath.Join(dir, "model.onnx"), localTestRepoPath("models", "lib", "libonnxruntime.so.1")} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s missing: run `make models` first", p)
		}
	}
	return dir
}

// localTestEmbedder builds a local embedder for models/<name> and waits for it.
func localTestEmbedder(t testing.TB, name, pooling string) *localEmbedder {
	t.Helper()
	return localTestEmbedderAt(t, localTestModelDir(t, name), pooling)
}

// localTestEmbedderAt builds a local embedder for a model folder and waits for it.
func localTestEmbedderAt(t testing.TB, dir, pooling string) *localEmbedder {
	t.Helper()
	e, err := newLocal(Config{Provider: "local", ModelDir: dir, Pooling: pooling})
	if err != nil {
		t.Fatal(err)
	}
	le := e.(*localEmbedder)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := le.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { le.Close() })
	return le
}

func localTestEmbed(t testing.TB, e Embedder, texts ...string) [][]float32 {
	t.Helper()
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	return vecs
}

func localMaxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func localNorm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// The converted model, fed through the Go tokenizer, must reproduce TF.js's
// embeddings, alone and in one mixed-length batch.
func TestLocalUSELiteMatchesTFJS(t *testing.T) {
	e := localTestEmbedder(t, "use-lite", "")
	var texts []string
	var want [][]float32
	for _, item := range localTestReference(t) {
		if useLiteClean(item.Text) != item.Text {
			continue // we collapse whitespace on purpose; TF.js does not
		}
		texts = append(texts, item.Text)
		want = append(want, item.Embedding)
	}
	if len(texts) < 8 {
		t.Fatalf("only %d comparable reference texts", len(texts))
	}
	const tol = 1e-4
	// the model itself (embedLoaded), before Embed fuses in CJK features
	raw := func(texts ...string) [][]float32 {
		v, err := e.embedLoaded(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	batch := raw(texts...)
	worst := 0.0
	for i, text := range texts {
		single := raw(text)[0]
		if len(single) != 512 {
			t.Fatalf("dim %d, want 512", len(single))
		}
		if d := localMaxDiff(single, want[i]); d > tol {
			t.Errorf("%q alone: max |diff| vs TF.js %.2e", text, d)
		}
		if d := localMaxDiff(batch[i], want[i]); d > tol {
			t.Errorf("%q in a batch: max |diff| vs TF.js %.2e", text, d)
		}
		worst = max(worst, localMaxDiff(single, want[i]), localMaxDiff(batch[i], want[i]))
	}
	t.Logf("max |diff| vs TF.js over %d texts: %.2e", len(texts), worst)
}

func TestLocalUSELiteSemantics(t *testing.T) {
	e := localTestEmbedder(t, "use-lite", "")
	localTestNearFar(t, e, 0, []localNearFar{
		{"en 1", "what port does postgres listen on", "the database listens on 5432", "buy milk"},
		{"en 2", "how do I roll back a deploy", "reverting the release to the previous version", "my cat sleeps all day"},
		{"en 3", "the user prefers dark mode", "she likes a dark colour theme in her editor", "train tickets were sold out"},
		{"en 4", "remind me to call mum on sunday", "phone my mother this weekend", "the build uses go modules"},
	})
}

// localNearFar is one semantic check: query closer to near than to far.
type localNearFar struct{ name, query, near, far string }

// localTestNearFar runs the checks through e; with farBelow > 0 the far
// text's cosine must also stay under it.
func localTestNearFar(t *testing.T, e Embedder, farBelow float64, tests []localNearFar) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := localTestEmbed(t, e, tc.query, tc.near, tc.far)
			near, far := localCosine(v[0], v[1]), localCosine(v[0], v[2])
			if near <= far {
				t.Errorf("cos(query, near)=%.3f ≤ cos(query, far)=%.3f", near, far)
			}
			if farBelow > 0 && far >= farBelow {
				t.Errorf("unrelated cos %.3f reaches %.2f", far, farBelow)
			}
			t.Logf("near %.3f far %.3f", near, far)
		})
	}
}

// The raw model's calibration must still be what the paraphrase-pair method
// measures: a drift means the model or tokenizer changed.
func TestLocalUSELiteCalibration(t *testing.T) {
	e := localTestEmbedder(t, "use-lite", "")
	got, err := localMeasureCalibration(context.Background(), e.embedLoaded, "en")
	if err != nil {
		t.Fatal(err)
	}
	want := useLiteCalibration
	if math.Abs(got.Floor-want.Floor) > 0.02 || math.Abs(got.Span-want.Span) > 0.02 {
		t.Errorf("measured floor %.3f span %.3f, hard-coded floor %.3f span %.3f", got.Floor, got.Span, want.Floor, want.Span)
	}
	for _, tc := range []struct {
		dir   string
		id    string
		calib Calibration
	}{
		{localTestGlossedDir(t), localTestUSELiteID, useLiteGlossedCalibration},
		{localTestPlainDir(t), localTestPlainID, useLiteFusedCalibration},
	} {
		e := localTestEmbedderAt(t, tc.dir, "")
		if e.ID() != tc.id {
			t.Errorf("%s: ID = %q, want %q", tc.dir, e.ID(), tc.id)
		}
		if e.Calibration() != tc.calib {
			t.Errorf("%s: embedder reports %+v, want %+v", tc.dir, e.Calibration(), tc.calib)
		}
	}
}

func TestLocalBERTFixture(t *testing.T) {
	cls := localTestEmbedder(t, "test-bert", "")
	mean := localTestEmbedder(t, "test-bert", "mean")
	texts := []string{
		"what port does postgres listen on",
		"the database listens on 5432",
		"buy milk",
		"",
		strings.Repeat("the cat runs fast and the dog runs slow ", 50), // > max_length
	}
	if cls.ID() != "local:test-bert:cls" || mean.ID() != "local:test-bert:mean" {
		t.Errorf("IDs %q, %q", cls.ID(), mean.ID())
	}
	a := localTestEmbed(t, cls, texts...)
	m := localTestEmbed(t, mean, texts...)
	for i, text := range texts {
		t.Run(text[:min(len(text), 20)], func(t *testing.T) {
			if len(a[i]) != 32 || len(m[i]) != 32 {
				t.Fatalf("dims %d, %d; want 32", len(a[i]), len(m[i]))
			}
			if n := localNorm(a[i]); math.Abs(n-1) > 1e-5 {
				t.Errorf("cls norm %.6f", n)
			}
			if localMaxDiff(a[i], m[i]) < 1e-3 {
				t.Error("cls and mean pooling gave the same vector")
			}
			// Alone (no padding) equals inside the padded batch: the
			// attention mask is honoured and nothing is nondeterministic.
			alone := localTestEmbed(t, cls, text)[0]
			if d := localMaxDiff(alone, a[i]); d > 1e-5 {
				t.Errorf("alone vs batched: max |diff| %.2e", d)
			}
			meanAlone := localTestEmbed(t, mean, text)[0]
			if d := localMaxDiff(meanAlone, m[i]); d > 1e-5 {
				t.Errorf("mean alone vs batched: max |diff| %.2e", d)
			}
		})
	}
	if localMaxDiff(a[0], a[1]) < 1e-3 {
		t.Error("different texts gave the same vector")
	}
	q, err := cls.EmbedQueries(context.Background(), texts[:1])
	if err != nil {
		t.Fatal(err)
	}
	if localMaxDiff(q[0], a[0]) < 1e-3 {
		t.Error("query prefix from somni-embed.json had no effect")
	}
	if c := cls.Calibration(); c == DefaultCalibration || c.Span <= 0 {
		t.Errorf("calibration %+v was not measured", c)
	}
}

// The BERT tokenizer path: forced padding in tokenizer.json is switched off
// and max_length from somni-embed.json caps the length.
func TestLocalBERTTokenizer(t *testing.T) {
	dir := localTestModelDir(t, "test-bert")
	mc, err := localResolveModel(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	model, err := os.ReadFile(mc.ModelPath)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := localReadONNXSignature(model)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bertLoad(mc, sig)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want string // tokens between [CLS] and [SEP]
	}{
		{"buy milk", "buy milk"}, // not padded to the file's Fixed 24
		{"Buy MILK!", "buy milk !"},
		{"unable", "un ##able"},
		{"cats\tand\ndogs", "cat ##s and dog ##s"},
		{"\u00a0sky\u3000sea", "sky sea"}, // NBSP and ideographic space split words
		{"zebra", "[UNK]"},
		{"the database 数据", "the database [UNK] [UNK]"}, // CJK chars split one by one
		{"disk\u0000file", "[UNK]"},                     // clean_text drops NUL: "diskfile" is unknown
		{"", ""},
		{strings.Repeat("cat ", 100), strings.TrimSpace(strings.Repeat("cat ", 30))}, // max_length 32
		{strings.Repeat("a ", 10000), strings.TrimSpace(strings.Repeat("a ", 30))},   // huge input cut first
	}
	cls, _ := b.tk.TokenToId("[CLS]")
	sep, _ := b.tk.TokenToId("[SEP]")
	for _, tc := range tests {
		t.Run(tc.text[:min(len(tc.text), 16)], func(t *testing.T) {
			enc, err := b.encode(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if enc.ids[0] != int64(cls) || enc.ids[len(enc.ids)-1] != int64(sep) {
				t.Fatalf("encode(%q) = %v, want [CLS] … [SEP]", tc.text, enc.ids)
			}
			var toks []string
			for _, id := range enc.ids[1 : len(enc.ids)-1] {
				tok, _ := b.tk.IdToToken(int(id))
				toks = append(toks, tok)
			}
			if got := strings.Join(toks, " "); got != tc.want {
				t.Errorf("encode(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestLocalFactoryErrors(t *testing.T) {
	useLite := localTestModelDir(t, "use-lite")
	bert := localTestModelDir(t, "test-bert")
	tmp := t.TempDir()
	mk := func(name string, files map[string]string) string {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, src := range files {
			data := []byte(src)
			if strings.HasPrefix(src, "copy:") {
				var err error
				if data, err = os.ReadFile(strings.TrimPrefix(src, "copy:")); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	lib, err := filepath.Abs(localTestRepoPath("models", "lib", "libonnxruntime.so.1"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"missing dir", Config{ModelDir: filepath.Join(tmp, "nope")}, "no such file"},
		{"no model.onnx", Config{ModelDir: mk("empty", nil)}, "has no model.onnx"},
		{"no tokenizer or vocab", Config{ModelDir: mk("bare", map[string]string{"model.onnx": "copy:" + bert + "/model.onnx"})}, "neither tokenizer.json"},
		{"pooling on use-lite", Config{ModelDir: useLite, Pooling: "mean"}, "does not apply"},
		{"bad pooling", Config{ModelDir: bert, Pooling: "max"}, "want cls or mean"},
		{"missing ORT lib", Config{ModelDir: useLite, ORTLib: filepath.Join(tmp, "libonnxruntime.so.1")}, "not found"},
		{"bert model with use-lite vocab", Config{ModelDir: mk("mixed", map[string]string{
			"model.onnx": "copy:" + bert + "/model.onnx", "vocab.json": "copy:" + useLite + "/vocab.json"})}, "want [indices,values]"},
		{"garbage model", Config{ModelDir: mk("garbage", map[string]string{
			"model.onnx": "\xff\xff\xff\xff not protobuf", "vocab.json": "copy:" + useLite + "/vocab.json"})}, "onnx"},
		{"malformed tokenizer.json", Config{ModelDir: mk("badtok", map[string]string{
			"model.onnx": "copy:" + bert + "/model.onnx", "tokenizer.json": `{"model": {"type": "WordPiece"}}`})}, "tokenizer"},
		{"bad somni-embed.json", Config{ModelDir: mk("badcfg", map[string]string{
			"model.onnx": "copy:" + bert + "/model.onnx", "tokenizer.json": "copy:" + bert + "/tokenizer.json", localOverridesFile: "{"})}, localOverridesFile},
		{"different ORT lib than the loaded one", Config{ModelDir: useLite, ORTLib: mk("otherlib", map[string]string{"libonnxruntime.so.1": "x"}) + "/libonnxruntime.so.1"}, "already loaded"},
	}
	// Make sure ORT is loaded from the real library first.
	if err := ort.Load(lib); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := newLocal(tc.cfg)
			if err == nil {
				e.Close()
				t.Fatalf("no error, want one mentioning %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestLocalLifecycle(t *testing.T) {
	e := localTestEmbedder(t, "use-lite", "")
	if vecs, err := e.Embed(context.Background(), nil); err != nil || len(vecs) != 0 {
		t.Fatalf("empty input: %v, %v", vecs, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"hello"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: err = %v", err)
	}
	// 70 texts span three batches; order must survive the length sort.
	var texts []string
	for i := range 70 {
		texts = append(texts, strings.Repeat("word ", i%9+1)+string(rune('a'+i%26)))
	}
	all := localTestEmbed(t, e, texts...)
	for _, i := range []int{0, 33, 69} {
		if d := localMaxDiff(all[i], localTestEmbed(t, e, texts[i])[0]); d > 1e-5 {
			t.Errorf("text %d: batched vs alone differ by %.2e", i, d)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := e.Embed(context.Background(), []string{"hello"}); err == nil {
		t.Error("Embed after Close succeeded")
	}
}

// With no ModelDir the factory finds models/use-lite (here: in the source tree).
func TestLocalDefaultModelDir(t *testing.T) {
	localTestModelDir(t, "use-lite")
	e, err := newLocal(Config{Provider: "local"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.ID() != localTestUSELiteID {
		t.Errorf("ID = %q, want %q", e.ID(), localTestUSELiteID)
	}
	if _, ok := e.(Calibrated); !ok {
		t.Error("local embedder does not implement Calibrated")
	}
}

// Close right after the factory returns must wait for the background load
// and not leak or crash.
func TestLocalCloseDuringLoad(t *testing.T) {
	e, err := newLocal(Config{ModelDir: localTestModelDir(t, "use-lite")})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"x"}); err == nil {
		t.Error("Embed after Close succeeded")
	}
}

func TestLocalONNXSignature(t *testing.T) {
	tests := []struct {
		model   string
		inputs  string
		outputs string
		rank    int
	}{
		{"use-lite", "indices,values", "embedding", 2},
		{"test-bert", "input_ids,attention_mask,token_type_ids", "last_hidden_state", 3},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(localTestModelDir(t, tc.model), "model.onnx"))
			if err != nil {
				t.Fatal(err)
			}
			sig, err := localReadONNXSignature(raw)
			if err != nil {
				t.Fatal(err)
			}
			var in, out []string
			for _, v := range sig.Inputs {
				in = append(in, v.Name)
			}
			for _, v := range sig.Outputs {
				out = append(out, v.Name)
			}
			if strings.Join(in, ",") != tc.inputs || strings.Join(out, ",") != tc.outputs || sig.Outputs[0].Rank != tc.rank {
				t.Errorf("got inputs %v outputs %v rank %d", in, out, sig.Outputs[0].Rank)
			}
			if _, err := localReadONNXSignature(raw[:len(raw)/2]); err == nil {
				t.Error("truncated model: no error")
			}
		})
	}
}

// The fused USE-lite embedder without a glossary must separate Chinese texts by meaning (raw
// USE-lite embeds every Chinese text identically), keep the model's English
// semantics as its dense half, and not relate texts of different scripts
// that share no word.
func TestLocalUSELiteBilingual(t *testing.T) {
	e := localTestEmbedderAt(t, localTestPlainDir(t), "")
	localTestNearFar(t, e, e.Calibration().Floor, []localNearFar{
		{"zh paraphrase", "备份服务器的磁盘快满了", "备份机器的磁盘空间不够了", "下午喜欢喝乌龙茶"},
		{"zh same topic", "订单查询很慢要加索引吗", "订单表缺少联合索引导致慢查询", "出差发票怎么报销"},
		{"zh with a latin token", "ratelimit.app.qps 怎么改", "开放平台接口按应用限流，配置项 ratelimit.app.qps", "双十一前一周禁止上线"},
		{"en paraphrase", "what port does postgres listen on", "the database listens on 5432", "buy milk"},
		{"en paraphrase, no shared word", "remind me to call mum on sunday", "phone my mother this weekend", "the build uses go modules"},
		{"en generic", "the cache deleted nothing when it filled up", "session cache evicted nothing under memory pressure", "user avoids meetings on friday afternoons"},
	})
	raw, err := e.embedLoaded(context.Background(), []string{"备份服务器的磁盘快满了", "下午喜欢喝乌龙茶", "what port does postgres listen on"})
	if err != nil {
		t.Fatal(err)
	}
	if c := localCosine(raw[0], raw[1]); c < 0.9 {
		t.Logf("raw USE-lite now separates Chinese texts (cos %.3f): Chinese may no longer need to be lexical only", c)
	}
	for _, pair := range [][2]string{
		{"the disk on the backup server is almost full", "备份服务器的磁盘快满了"},
		{"what port does postgres listen on", "数据库监听哪个端口"},
	} {
		v := localTestEmbed(t, e, pair[0], pair[1])
		if c := localCosine(v[0], v[1]); math.Abs(c) > 0.1 {
			t.Errorf("%q vs %q: cosine %.3f, want near 0 (no shared word)", pair[0], pair[1], c)
		}
	}
	v := localTestEmbed(t, e, "what port does postgres listen on", "备份服务器的磁盘快满了")
	a, _ := localFusePlain.weights(1, 0, 0)
	for d := range useLiteDim {
		if diff := math.Abs(float64(v[0][d] - a*raw[2][d])); diff > 1e-6 {
			t.Fatalf("English text: dense dim %d is %.5f, want %.5f (√α × the model)", d, v[0][d], a*raw[2][d])
		}
	}
	h := hashVector("备份服务器的磁盘快满了")
	if n := localNorm2(v[1][:useLiteDim]); n != 0 {
		t.Errorf("Chinese text: dense half has squared length %.3f, want 0 (USE-lite cannot read it)", n)
	}
	if d := localMaxDiff(v[1][useLiteDim:], h); d > 1e-6 {
		t.Errorf("Chinese text: lexical half differs from the hash embedder by %.2e", d)
	}
}

// Unrelated calibration pairs, English and Chinese, must stay under the
// fused floor (it was set from the eval's noise, a different sample), and a
// typical English paraphrase must clear it: the one floor serves both
// scripts because Chinese pairs are scored by hashed features alone.
func TestLocalUSELiteFusedFloor(t *testing.T) {
	e := localTestEmbedderAt(t, localTestPlainDir(t), "")
	cal := e.Calibration()
	for _, tc := range []struct {
		lang            string
		paraphraseClear bool
	}{{"en", true}, {"zh", false}} {
		t.Run(tc.lang, func(t *testing.T) {
			m, err := localMeasureCalibration(context.Background(), e.Embed, tc.lang)
			if err != nil {
				t.Fatal(err)
			}
			if m.Floor >= cal.Floor {
				t.Errorf("unrelated p90 %.3f reaches the floor %.2f", m.Floor, cal.Floor)
			}
			// Span is median − p90 unless clamped to 0.1, so this is a lower bound
			if low := m.Floor + m.Span; tc.paraphraseClear && low <= cal.Floor {
				t.Errorf("paraphrase median %.3f does not clear the floor %.2f", low, cal.Floor)
			}
			t.Logf("%s: unrelated p90 %.3f, span %.3f, floor %.2f", tc.lang, m.Floor, m.Span, cal.Floor)
		})
	}
}

// With the CC-CEDICT glossary USE-lite reads Chinese through its English
// gloss: Chinese paraphrases and a question in one language about a text in
// the other come closer than an unrelated text, where without the glossary
// such a pair shares nothing (TestLocalUSELiteBilingual).
func TestLocalUSELiteGlossed(t *testing.T) {
	e := localTestEmbedderAt(t, localTestGlossedDir(t), "")
	localTestNearFar(t, e, 0, []localNearFar{
		{"zh paraphrase", "电脑坏了找谁修", "笔记本维修请联系信息技术服务台", "周末去郊外爬山"},
		{"zh to en", "数据库监听哪个端口", "the database listens on port 5432", "buy milk and eggs on the way home"},
		{"en to zh", "what does the user drink in the afternoon", "用户下午一般喝乌龙茶", "构建缓存让持续集成快了很多"},
		{"en paraphrase", "remind me to call mum on sunday", "phone my mother this weekend", "the build uses go modules"},
	})
	v := localTestEmbed(t, e, "备份服务器的磁盘快满了", "下午喜欢喝乌龙茶")
	if n := localNorm2(v[0][:useLiteDim]); n < 0.5 {
		t.Errorf("glossed Chinese text: dense half has squared length %.3f, want about α = %.2f", n, localGlossAlpha)
	}
	if c := localCosine(v[0][:useLiteDim], v[1][:useLiteDim]); c > 0.5*localGlossAlpha {
		t.Errorf("two unrelated Chinese texts share a dense half (cos %.3f): the gloss is not reaching the model", c)
	}
}

// A glossary file that is not CC-CEDICT fails the load with an error naming
// it, instead of an embedder whose ID promises glossing it cannot do.
func TestLocalUSELiteBrokenGlossary(t *testing.T) {
	dir := localTestPlainDir(t)
	if err := os.WriteFile(filepath.Join(dir, localGlossFile), []byte("<html>not found</html>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := newLocal(Config{Provider: "local", ModelDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.ID() != localTestUSELiteID {
		t.Errorf("ID = %q, want %q", e.ID(), localTestUSELiteID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = e.(*localEmbedder).WaitReady(ctx)
	if err == nil || !strings.Contains(err.Error(), localGlossFile) {
		t.Errorf("WaitReady = %v, want an error naming %s", err, localGlossFile)
	}
}

// TestLocalInstalledModelDirs: from the binary inside its platform
// package, the model package is found where npm (flat or nested under the
// plugin) and pnpm (its store, newest version first) put it.
func TestLocalInstalledModelDirs(t *testing.T) {
	pkg := func(t *testing.T, dir, modelDir string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		pj := `{"name":"` + localModelPackage + `","somni":{"modelDir":"` + modelDir + `"}}`
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pj), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		exe   string   // relative to the temp root
		pkgs  []string // model package folders to create
		want  []string // what is listed, in order
		model string   // somni.modelDir
	}{
		{"npm flat", "p/node_modules/dsh-somni-linux-x64/bin/somni-sidecar",
			[]string{"p/node_modules/" + localModelPackage},
			[]string{"p/node_modules/" + localModelPackage + "/use-lite"}, "use-lite"},
		{"npm nested under the plugin, model hoisted", "p/node_modules/dsh-somni/node_modules/dsh-somni-linux-x64/bin/somni-sidecar",
			[]string{"p/node_modules/" + localModelPackage},
			[]string{"p/node_modules/" + localModelPackage + "/use-lite"}, "use-lite"},
		{"pnpm store, newest first", "p/node_modules/.pnpm/dsh-somni-linux-x64@0.1.1/node_modules/dsh-somni-linux-x64/bin/somni-sidecar",
			[]string{"p/node_modules/.pnpm/" + localModelPackage + "@0.1.0/node_modules/" + localModelPackage,
				"p/node_modules/.pnpm/" + localModelPackage + "@0.1.1/node_modules/" + localModelPackage},
			[]string{"p/node_modules/.pnpm/" + localModelPackage + "@0.1.1/node_modules/" + localModelPackage + "/m",
				"p/node_modules/.pnpm/" + localModelPackage + "@0.1.0/node_modules/" + localModelPackage + "/m"}, "m"},
		{"a modelDir that leaves the package is ignored", "p/node_modules/dsh-somni-linux-x64/bin/somni-sidecar",
			[]string{"p/node_modules/" + localModelPackage}, nil, "../../etc"},
		{"a checkout", "src/bin/somni-sidecar", nil, nil, "use-lite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, p := range tc.pkgs {
				pkg(t, filepath.Join(root, p), tc.model)
			}
			var got []string
			for _, d := range localInstalledModelDirs(filepath.Join(root, tc.exe)) {
				rel, err := filepath.Rel(root, d)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, filepath.ToSlash(rel))
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
