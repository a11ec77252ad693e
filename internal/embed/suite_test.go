package embed

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// suiteTexts are what RunEmbedderSuite embeds: English, Chinese, a symbol,
// a repeat and one long enough to be cut by a model's length limit.
var suiteTexts = []string{
	"postgres listens on port 5432",
	"数据库连接池满了",
	"the deploy uses BuildKit cache mounts",
	"postgres listens on port 5432",
	"renew the TLS certificate before Friday",
	strings.Repeat("a long note about the staging cluster and its nodes ", 200),
}

// RunEmbedderSuite checks what every Embedder promises (embed.go), run
// against each implementation as it is built for use: one vector per text,
// in order; unit vectors of one dimension (none at all from off); a text's
// vector the same whatever else is in the batch, where it stands in it, and
// whether other calls run at once; an empty batch no work; a cancelled
// context an error, never a short answer; an ID that names the embedder
// and its model, the same for the same config; Close safe twice.
func RunEmbedderSuite(t *testing.T, newEmbedder func(t *testing.T) Embedder) {
	ctx := context.Background()
	e := newEmbedder(t)
	off := IsOff(e)

	all, err := e.Embed(ctx, suiteTexts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(all) != len(suiteTexts) {
		t.Fatalf("Embed of %d texts gave %d vectors", len(suiteTexts), len(all))
	}
	dim := -1
	for i, v := range all {
		if off {
			if v != nil {
				t.Errorf("off: text %d has a vector of %d", i, len(v))
			}
			continue
		}
		if dim < 0 {
			dim = len(v)
		}
		if len(v) == 0 || len(v) != dim {
			t.Fatalf("text %d: dimension %d, the batch's is %d", i, len(v), dim)
		}
		if n := Dot(v, v); math.IsNaN(n) || math.Abs(n-1) > 1e-4 {
			t.Errorf("text %d: norm² %.6f, want 1", i, n)
		}
	}

	t.Run("a text's vector does not depend on its batch", func(t *testing.T) {
		// alone, and in reverse order
		for i, text := range suiteTexts {
			one, err := e.Embed(ctx, []string{text})
			if err != nil {
				t.Fatalf("Embed alone: %v", err)
			}
			if len(one) != 1 || !sameVector(one[0], all[i]) {
				t.Errorf("text %d alone: a vector other than in the batch", i)
			}
		}
		rev := make([]string, len(suiteTexts))
		for i, text := range suiteTexts {
			rev[len(rev)-1-i] = text
		}
		back, err := e.Embed(ctx, rev)
		if err != nil {
			t.Fatalf("Embed reversed: %v", err)
		}
		for i := range suiteTexts {
			if !sameVector(back[len(back)-1-i], all[i]) {
				t.Errorf("text %d: reversed batch gave another vector", i)
			}
		}
		if !off && !sameVector(all[0], all[3]) {
			t.Error("the same text twice in one batch: two vectors")
		}
	})

	t.Run("calls at once give what calls one by one give", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make([]error, 4)
		got := make([][][]float32, 4)
		for g := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[g], errs[g] = e.Embed(ctx, suiteTexts[g%2:])
			}()
		}
		wg.Wait()
		for g := range got {
			if errs[g] != nil {
				t.Fatalf("call %d: %v", g, errs[g])
			}
			for i, v := range got[g] {
				if !sameVector(v, all[g%2+i]) {
					t.Errorf("call %d text %d: another vector than alone", g, g%2+i)
				}
			}
		}
	})

	t.Run("an empty batch", func(t *testing.T) {
		vecs, err := e.Embed(ctx, nil)
		if err != nil || len(vecs) != 0 {
			t.Errorf("Embed(nil) = %d vectors, %v", len(vecs), err)
		}
	})

	t.Run("a cancelled context", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		vecs, err := e.Embed(cctx, suiteTexts)
		switch {
		case off && err == nil && len(vecs) == len(suiteTexts):
			// off has no work to stop and answers in full
		case err == nil:
			t.Errorf("Embed on a cancelled context: %d vectors, no error", len(vecs))
		case !errors.Is(err, context.Canceled):
			t.Errorf("Embed on a cancelled context: %v, want it to wrap context.Canceled", err)
		}
	})

	t.Run("the ID names the embedder and its model", func(t *testing.T) {
		id := e.ID()
		if strings.TrimSpace(id) == "" || id != e.ID() {
			t.Fatalf("ID %q, then %q", id, e.ID())
		}
		// a second one of the same config stores its vectors under the same name
		if again := newEmbedder(t); again.ID() != id {
			t.Errorf("two embedders of one config: IDs %q and %q", id, again.ID())
		}
	})

	t.Run("Close twice", func(t *testing.T) {
		c := newEmbedder(t)
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

// sameVector: equal within float rounding (a batch may sum in another order).
func sameVector(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-5 {
			return false
		}
	}
	return true
}

// TestEmbedderSuite runs RunEmbedderSuite against every embedder New
// builds: off, hash, http (against an OpenAI-compatible server in the
// test), the local models `make models` puts in models/ (USE-lite with its
// glossary and the test BERT), and hash standing in for a local model that
// cannot load.
func TestEmbedderSuite(t *testing.T) {
	build := func(cfg Config) func(t *testing.T) Embedder {
		return func(t *testing.T) Embedder {
			t.Helper()
			e, err := New(cfg, testutil.QuietLogger())
			if err != nil {
				t.Fatal(err)
			}
			if err := WaitReady(context.Background(), e); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			return e
		}
	}
	t.Run("off", func(t *testing.T) { RunEmbedderSuite(t, build(Config{Provider: "off"})) })
	t.Run("hash", func(t *testing.T) { RunEmbedderSuite(t, build(Config{Provider: "hash"})) })
	t.Run("http", func(t *testing.T) {
		srv := fakeEmbeddings(t, "sekrit")
		t.Cleanup(srv.Close)
		RunEmbedderSuite(t, build(Config{Provider: "http", BaseURL: srv.URL + "/v1", Model: "m1", APIKey: "sekrit"}))
	})
	t.Run("local use-lite", func(t *testing.T) {
		RunEmbedderSuite(t, build(Config{Provider: "local", ModelDir: localTestGlossedDir(t)}))
	})
	t.Run("local bert", func(t *testing.T) {
		RunEmbedderSuite(t, build(Config{Provider: "local", ModelDir: localTestModelDir(t, "test-bert")}))
	})
	t.Run("hash for a local model that cannot load", func(t *testing.T) {
		newE := build(Config{Provider: "local", ModelDir: t.TempDir()})
		if Degradation(newE(t)) == "" {
			t.Fatal("an empty model folder loaded")
		}
		RunEmbedderSuite(t, newE)
	})
}
