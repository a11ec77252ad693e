package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/somni-dev/somni/internal/ort"
)

// localFamily is the kind of model a models/<name>/ folder holds.
type localFamily int

const (
	localFamilyBERT    localFamily = iota + 1 // model.onnx + tokenizer.json (WordPiece)
	localFamilyUSELite                        // model.onnx + vocab.json (SentencePiece, sparse inputs)
)

// localModelConfig is everything the local embedder needs to know about a
// model folder before touching ONNX Runtime.
type localModelConfig struct {
	Dir         string
	Name        string // folder name, used in the embedder ID
	Family      localFamily
	ModelPath   string
	VocabPath   string // USE-lite vocab.json
	GlossPath   string // USE-lite: optional CC-CEDICT file (local_gloss.go)
	TokenizerJS string // BERT tokenizer.json
	Pooling     string // BERT: "cls" | "mean"
	QueryPrefix string // BERT: instruction prepended by EmbedQueries
	MaxLength   int    // BERT: token cap including [CLS]/[SEP]
}

// localOverrides is the optional somni-embed.json in a BERT model folder.
// Example for bge-small-zh-v1.5:
//
//	{"pooling": "cls", "query_prefix": "为这个句子生成表示以用于检索相关文章：", "max_length": 512}
type localOverrides struct {
	Pooling     string `json:"pooling"`
	QueryPrefix string `json:"query_prefix"`
	MaxLength   int    `json:"max_length"`
}

const (
	localOverridesFile   = "somni-embed.json"
	localDefaultModel    = "use-lite"
	localDefaultMaxLen   = 512
	localDefaultPoolBERT = "cls" // bge, the documented BERT layout, pools on [CLS]
)

// localResolveModel inspects dir and decides the family and settings.
// cfgPooling (Config.Pooling) wins over every file in the folder.
func localResolveModel(dir, cfgPooling string) (localModelConfig, error) {
	c := localModelConfig{Dir: dir, Name: filepath.Base(filepath.Clean(dir))}
	st, err := os.Stat(dir)
	if err != nil {
		return c, fmt.Errorf("embed: local model dir: %w", err)
	}
	if !st.IsDir() {
		return c, fmt.Errorf("embed: local model dir %s is not a directory", dir)
	}
	for _, p := range []string{"model.onnx", filepath.Join("onnx", "model.onnx")} {
		if localIsFile(filepath.Join(dir, p)) {
			c.ModelPath = filepath.Join(dir, p)
			break
		}
	}
	if c.ModelPath == "" {
		return c, fmt.Errorf("embed: local model dir %s has no model.onnx (%s)", dir, localFixHint())
	}
	switch {
	case localIsFile(filepath.Join(dir, "tokenizer.json")):
		c.Family = localFamilyBERT
		c.TokenizerJS = filepath.Join(dir, "tokenizer.json")
	case localIsFile(filepath.Join(dir, "vocab.json")):
		c.Family = localFamilyUSELite
		c.VocabPath = filepath.Join(dir, "vocab.json")
		if g := filepath.Join(dir, localGlossFile); localIsFile(g) {
			c.GlossPath = g
		}
		if cfgPooling != "" {
			return c, fmt.Errorf("embed: pooling %q does not apply to the USE-lite model in %s", cfgPooling, dir)
		}
		return c, nil
	default:
		return c, fmt.Errorf("embed: local model dir %s has model.onnx but neither tokenizer.json (BERT) nor vocab.json (USE-lite)", dir)
	}

	// BERT family: sentence-transformers files first, our override on top.
	c.MaxLength = localDefaultMaxLen
	if p, ok, err := localSTPooling(dir); err != nil {
		return c, err
	} else if ok {
		c.Pooling = p
	}
	if q, ok, err := localSTQueryPrompt(dir); err != nil {
		return c, err
	} else if ok {
		c.QueryPrefix = q
	}
	var ov localOverrides
	if ok, err := localReadJSON(filepath.Join(dir, localOverridesFile), &ov); err != nil {
		return c, err
	} else if ok {
		if ov.Pooling != "" {
			c.Pooling = ov.Pooling
		}
		if ov.QueryPrefix != "" {
			c.QueryPrefix = ov.QueryPrefix
		}
		if ov.MaxLength < 0 {
			return c, fmt.Errorf("embed: %s: max_length %d is negative", localOverridesFile, ov.MaxLength)
		}
		if ov.MaxLength > 0 {
			c.MaxLength = ov.MaxLength
		}
	}
	if cfgPooling != "" {
		c.Pooling = cfgPooling
	}
	if c.Pooling == "" {
		c.Pooling = localDefaultPoolBERT
	}
	c.Pooling = strings.ToLower(c.Pooling)
	if c.Pooling != "cls" && c.Pooling != "mean" {
		return c, fmt.Errorf("embed: pooling %q: want cls or mean", c.Pooling)
	}
	return c, nil
}

// localSTPooling reads sentence-transformers' 1_Pooling/config.json.
func localSTPooling(dir string) (string, bool, error) {
	var pc struct {
		CLS  bool `json:"pooling_mode_cls_token"`
		Mean bool `json:"pooling_mode_mean_tokens"`
	}
	ok, err := localReadJSON(filepath.Join(dir, "1_Pooling", "config.json"), &pc)
	switch {
	case err != nil || !ok:
		return "", false, err
	case pc.CLS:
		return "cls", true, nil
	case pc.Mean:
		return "mean", true, nil
	}
	return "", false, nil
}

// localSTQueryPrompt reads the "query" prompt of config_sentence_transformers.json.
func localSTQueryPrompt(dir string) (string, bool, error) {
	var sc struct {
		Prompts map[string]string `json:"prompts"`
	}
	ok, err := localReadJSON(filepath.Join(dir, "config_sentence_transformers.json"), &sc)
	if err != nil || !ok {
		return "", false, err
	}
	q, found := sc.Prompts["query"]
	return q, found && q != "", nil
}

// localReadJSON decodes path into v; a missing file is (false, nil).
func localReadJSON(path string, v any) (bool, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("embed: %w", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("embed: %s: %w", path, err)
	}
	return true, nil
}

func localIsFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// localModelsRoots lists where a models/ folder is looked for, in order: next
// to the binary (<bin>/../models) and this source tree's models/ (tests, `go
// run` in a checkout). A -trimpath build (every release binary) records no
// absolute source path, so it never finds a checkout's models: installed, the
// plugin passes the model and runtime packages' paths explicitly.
func localModelsRoots() []string {
	var roots []string
	if exe := localExe(); exe != "" {
		roots = append(roots, filepath.Join(filepath.Dir(exe), "..", "models"))
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		roots = append(roots, filepath.Join(filepath.Dir(file), "..", "..", "models"))
	}
	return roots
}

// localModelPackage is the npm package that ships the default model; its
// package.json names the model folder in somni.modelDir.
const localModelPackage = "dsh-somni-model-use-lite"

// localExe is the running binary with links resolved ("" if unknown).
func localExe() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return exe
}

// localInstalledModelDirs lists where an npm or pnpm install puts the model
// package, seen from a binary inside its platform package: a sibling in any
// node_modules above it (npm, flat or nested), and pnpm's store beside it
// (.pnpm/<name>@<version>/node_modules/<name>, newest version first, and
// .pnpm/node_modules/<name>). The plugin passes the folder explicitly; this
// is for the CLI a user runs by hand from the profile, which must rank
// with the same model.
func localInstalledModelDirs(exe string) []string {
	var dirs []string
	add := func(pkg string) {
		var pj struct {
			Somni struct {
				ModelDir string `json:"modelDir"`
			} `json:"somni"`
		}
		if ok, err := localReadJSON(filepath.Join(pkg, "package.json"), &pj); ok && err == nil && pj.Somni.ModelDir != "" &&
			filepath.IsLocal(pj.Somni.ModelDir) {
			dirs = append(dirs, filepath.Join(pkg, pj.Somni.ModelDir))
		}
	}
	for a := filepath.Dir(exe); exe != "" && filepath.Dir(a) != a; a = filepath.Dir(a) {
		switch filepath.Base(a) {
		case "node_modules":
			add(filepath.Join(a, localModelPackage))
		case ".pnpm":
			versions, _ := filepath.Glob(filepath.Join(a, localModelPackage+"@*"))
			sort.Sort(sort.Reverse(sort.StringSlice(versions)))
			for _, v := range versions {
				add(filepath.Join(v, "node_modules", localModelPackage))
			}
			add(filepath.Join(a, "node_modules", localModelPackage))
		}
	}
	return dirs
}

// localDefaultModelDir finds the default model when no folder was
// configured: models/use-lite of a checkout or a binary beside it, else the
// model package of an install.
func localDefaultModelDir() (string, error) {
	var tried []string
	candidates := localInstalledModelDirs(localExe())
	for _, root := range localModelsRoots() {
		candidates = append(candidates, filepath.Join(root, localDefaultModel))
	}
	for _, dir := range candidates {
		if localIsFile(filepath.Join(dir, "model.onnx")) {
			return filepath.Clean(dir), nil
		}
		tried = append(tried, filepath.Clean(dir))
	}
	return "", fmt.Errorf("embed: no local model configured and none found in %s (%s, or pass --embed-model-dir)", strings.Join(tried, ", "), localFixHint())
}

// localFixHint says how to get the model and runtime back, to the person
// this binary belongs to: an npm install is repaired by reinstalling the
// plugin (which brings the model package), a checkout by `make models`.
func localFixHint() string {
	if strings.Contains(filepath.ToSlash(localExe()), "/node_modules/") {
		return "reinstall the plugin with `dsh plugin add dsh-somni`, which brings " + localModelPackage + " and the platform package"
	}
	return "in a checkout, run `make models`"
}

// localFindORTLib picks libonnxruntime: the configured path (the sidecar's
// --ort-lib / SOMNI_ORT_LIB), else <ModelDir>/../lib, else lib/ beside the
// binary's folder (a platform package: bin/somni-sidecar + lib/), else
// models/lib next to the binary or in this source tree. An explicit choice
// must exist; no silent fallthrough.
func localFindORTLib(configured, modelDir string) (string, error) {
	name := ort.LibraryName
	if configured != "" {
		if !localIsFile(configured) {
			return "", fmt.Errorf("embed: ONNX Runtime library %s (--ort-lib / SOMNI_ORT_LIB) not found", configured)
		}
		return configured, nil
	}
	candidates := []string{filepath.Join(modelDir, "..", "lib", name)}
	if exe := localExe(); exe != "" {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "..", "lib", name))
	}
	for _, root := range localModelsRoots() {
		candidates = append(candidates, filepath.Join(root, "lib", name))
	}
	for _, c := range candidates {
		if localIsFile(c) {
			return filepath.Clean(c), nil
		}
	}
	for i := range candidates {
		candidates[i] = filepath.Clean(candidates[i])
	}
	return "", fmt.Errorf("embed: ONNX Runtime library not found (looked in %s; %s, or pass --ort-lib)", strings.Join(candidates, ", "), localFixHint())
}
