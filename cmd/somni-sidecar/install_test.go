package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/ort"
	"github.com/somni-dev/somni/internal/sidecar"
	"github.com/somni-dev/somni/internal/testutil"
)

// buildSidecar builds the sidecar with the given CGO_ENABLED the way a
// release is built (-trimpath), into dir.
func buildSidecar(t *testing.T, cgo string, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "somni-sidecar-cgo"+cgo)
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build CGO_ENABLED=%s: %v\n%s", cgo, err, b)
	}
	return out
}

// embedWith runs `embed` on texts and decodes its report.
func embedWith(t *testing.T, bin string, args []string, texts []string) embedReport {
	t.Helper()
	cmd := exec.Command(bin, append(args, "embed")...)
	cmd.Stdin = strings.NewReader(strings.Join(texts, "\n"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s embed: %v\n%s", filepath.Base(bin), err, stderr.String())
	}
	var rep embedReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("embed output %q: %v", out, err)
	}
	return rep
}

// The release binaries are built without cgo and load ONNX Runtime through
// purego; a cgo build uses onnxruntime_go. Both run the one embedder, so for
// the same texts they must give the same vectors.
func TestEmbedCgoAndPuregoBuildsAgree(t *testing.T) {
	model := testutil.Model(t, "use-lite", "model.onnx")
	lib := testutil.Model(t, "lib", ort.LibraryName)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler for the cgo build")
	}
	dir := t.TempDir()
	args := []string{"--embed", "local", "--embed-model-dir", filepath.Dir(model), "--ort-lib", lib, "--log-level", "error"}
	texts := []string{
		"staging postgres runs on pg-stage-7, port 6543",
		"上线新版本的步骤：先跑迁移，再切流量",
		"Ann prefers tea over coffee in the morning",
		"x",
		strings.Repeat("a long note about deploy pitfalls and rollback plans ", 40),
		"混合 mixed 文本 with pnpm and 缓存",
	}
	reps := map[string]embedReport{}
	for _, cgo := range []string{"1", "0"} {
		reps[cgo] = embedWith(t, buildSidecar(t, cgo, dir), args, texts)
	}
	withCgo, without := reps["1"], reps["0"]
	if withCgo.Runtime != "onnxruntime_go" || without.Runtime != "purego" {
		t.Fatalf("runtimes %q and %q, want onnxruntime_go and purego", withCgo.Runtime, without.Runtime)
	}
	if withCgo.ID != without.ID || !strings.HasPrefix(without.ID, "local:") || without.Degraded != "" {
		t.Fatalf("embedders %q / %q (degraded %q), want the same local one", withCgo.ID, without.ID, without.Degraded)
	}
	if len(withCgo.Vectors) != len(texts) || len(without.Vectors) != len(texts) {
		t.Fatalf("%d and %d vectors for %d texts", len(withCgo.Vectors), len(without.Vectors), len(texts))
	}
	worst := 0.0
	for i := range texts {
		a, b := withCgo.Vectors[i], without.Vectors[i]
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("text %d: dims %d and %d", i, len(a), len(b))
		}
		for d := range a {
			worst = math.Max(worst, math.Abs(float64(a[d]-b[d])))
		}
	}
	t.Logf("max |diff| over %d texts × %d dims: %.2g", len(texts), len(withCgo.Vectors[0]), worst)
	if worst > 1e-5 {
		t.Fatalf("cgo and purego builds differ by %g (> 1e-5)", worst)
	}
}

// ping says which embedder recall really uses, with the files it loaded,
// and why when it is not the configured one.
func TestPingSaysWhichEmbedder(t *testing.T) {
	model := testutil.Model(t, "use-lite")
	lib := testutil.Model(t, "lib", ort.LibraryName)
	for _, tc := range []struct {
		name     string
		args     []string
		wantID   string
		label    string // what a person reads
		degraded string
	}{
		{"local", []string{"--embed", "local", "--embed-model-dir", model, "--ort-lib", lib}, "local:use-lite", "local (USE-lite + CC-CEDICT), live", ""},
		{"model missing", []string{"--embed", "local", "--embed-model-dir", filepath.Join(t.TempDir(), "gone")}, "hash",
			"hash (word and character features, no model) standing in for the local model, degraded", "no such file"},
		{"runtime missing", []string{"--embed", "local", "--embed-model-dir", model, "--ort-lib", filepath.Join(t.TempDir(), ort.LibraryName)}, "hash",
			"hash (word and character features, no model) standing in for the local model, degraded", "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, t.TempDir(), tc.args)
			var res sidecar.PingResult
			waitFor(t, func() bool {
				s.call("ping", map[string]any{}, &res)
				return res.Embed.ID != ""
			})
			e := res.Embed
			if e.Provider != "local" || !strings.HasPrefix(e.ID, tc.wantID) {
				t.Fatalf("embed %+v, want id %s…", e, tc.wantID)
			}
			if e.Label != tc.label && !(tc.degraded != "" && strings.HasPrefix(e.ID, "local")) {
				t.Errorf("embed label %q, want %q", e.Label, tc.label)
			}
			if tc.degraded == "" {
				if e.Degraded != "" || e.ModelDir != model || e.RuntimeLib != lib {
					t.Fatalf("embed %+v, want model %s and runtime %s, not degraded", e, model, lib)
				}
				return
			}
			if !strings.Contains(e.Degraded, tc.degraded) || res.Vector && !strings.HasPrefix(e.ID, "hash") {
				t.Fatalf("embed %+v, want degraded mentioning %q", e, tc.degraded)
			}
		})
	}
}

// doctor checks the install too: the embedder it really gets, and a problem
// (exit 1) when the local model cannot load.
func TestDoctorChecksInstall(t *testing.T) {
	model := testutil.Model(t, "use-lite")
	lib := testutil.Model(t, "lib", ort.LibraryName)
	run := func(args ...string) (string, int) {
		return runCLI(t, append([]string{"--data-dir", t.TempDir(), "--log-level", "error", "--verbose"}, args...)...)
	}
	out, code := run("--embed-model-dir", model, "--ort-lib", lib, "doctor")
	if code != 0 {
		t.Fatalf("doctor on a good install: exit %d\n%s", code, out)
	}
	mustContain(t, "doctor", out, "install: somni-sidecar", "install: embedder local (USE-lite + CC-CEDICT), live [local:use-lite", model, lib, "ok: no problems")
	out, code = run("--embed-model-dir", filepath.Join(t.TempDir(), "gone"), "doctor")
	if code != 1 {
		t.Fatalf("doctor with the model missing: exit %d\n%s", code, out)
	}
	mustContain(t, "doctor", out, "install: embedder hash (word and character features, no model) standing in for the local model, degraded [hash-v2-", "install: local embedder unavailable", "1 problem(s)")
}

// waitFor polls cond for up to 30 s (the model loads in the background).
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
