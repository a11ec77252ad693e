// Package somni_test holds the checks that keep the maps of the code true:
// every package's doc comment names its files by job, and the README's
// Pieces table names every package. The package docs are the one truth; a
// file added without a line in its map, or a map line left behind by a
// move, fails here instead of misleading the next reader.
package somni_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// fileToken is how a map names a file: a Go file name, possibly with a
// glob star (`lock*.go` names lock_unix.go, lock_windows.go …).
var fileToken = regexp.MustCompile(`[A-Za-z0-9_*]+\.go\b`)

// goPackages lists every folder under internal/ and cmd/ that holds
// non-test Go files, with those files.
func goPackages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
				dir := filepath.ToSlash(filepath.Dir(p))
				pkgs[dir] = append(pkgs[dir], name)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", top, err)
		}
	}
	return pkgs
}

// packageDoc returns the package doc comments of dir's non-test files, by file.
func packageDoc(t *testing.T, dir string, files []string) map[string]string {
	t.Helper()
	docs := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatalf("parse %s/%s: %v", dir, f, err)
		}
		if af.Doc != nil {
			docs[f] = af.Doc.Text()
		}
	}
	return docs
}

func TestPackageMapsNameEveryFile(t *testing.T) {
	for dir, files := range goPackages(t) {
		docs := packageDoc(t, dir, files)
		if len(docs) != 1 {
			var where []string
			for f := range docs {
				where = append(where, f)
			}
			sort.Strings(where)
			t.Errorf("%s: want exactly one package doc comment (the map), found %d %v", dir, len(docs), where)
			continue
		}
		if len(files) == 1 {
			continue // a one-file package is its own map
		}
		var doc string
		for _, d := range docs {
			doc = d
		}
		named := map[string]bool{}
		for _, tok := range fileToken.FindAllString(doc, -1) {
			matches, _ := filepath.Glob(filepath.Join(dir, tok))
			for _, m := range matches {
				named[filepath.Base(m)] = true
			}
			if len(matches) == 0 {
				t.Errorf("%s: the map names %s, which is not a file of the package", dir, tok)
			}
		}
		for _, f := range files {
			if !named[f] && f != "doc.go" {
				t.Errorf("%s: %s is not named in the package map", dir, f)
			}
		}
	}
}

// piecesTable returns the paths in the first column of README.md's
// "## Pieces" table.
func piecesTable(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n## Pieces\n")
	if !ok {
		t.Fatal("README.md: no \"## Pieces\" section")
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	cell := regexp.MustCompile("(?m)^\\| `([^`]+)`")
	var paths []string
	for _, m := range cell.FindAllStringSubmatch(rest, -1) {
		paths = append(paths, strings.TrimSuffix(m[1], "/"))
	}
	return paths
}

func TestReadmePiecesNameEveryPackage(t *testing.T) {
	paths := piecesTable(t)
	listed := map[string]bool{}
	for _, p := range paths {
		listed[p] = true
		if _, err := os.Stat(p); err != nil {
			t.Errorf("README Pieces names %s: %v", p, err)
		}
	}
	for dir := range goPackages(t) {
		// A package nested in another (dream/dreamtest) is named by its parent's map.
		if parent := filepath.ToSlash(filepath.Dir(dir)); listed[parent] && parent != "internal" && parent != "cmd" {
			continue
		}
		if !listed[dir] {
			t.Errorf("README Pieces lacks %s", dir)
		}
	}
}

// repoPath is how a page names a file or folder of this repository: a
// backticked path under one of its top folders.
var repoPath = regexp.MustCompile("`((?:internal|cmd|plugin-ts|scripts|testdata|docs|packaging)/[A-Za-z0-9_./-]+)`")

// TestDocsPathsExist: the README and the contracts page name only paths
// that exist, so a move cannot leave them pointing at nothing.
func TestDocsPathsExist(t *testing.T) {
	for _, page := range []string{"README.md", "docs/ARCHITECTURE.md"} {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		found := repoPath.FindAllStringSubmatch(string(raw), -1)
		if len(found) < 5 {
			t.Fatalf("%s names %d repository paths; the pattern no longer reads it", page, len(found))
		}
		for _, m := range found {
			if _, err := os.Stat(strings.TrimSuffix(m[1], "/")); err != nil {
				t.Errorf("%s names %s: %v", page, m[1], err)
			}
		}
	}
	if raw, _ := os.ReadFile("docs/ARCHITECTURE.md"); strings.Contains(string(raw), "../") {
		t.Errorf("docs/ARCHITECTURE.md points outside the repository (../)")
	}
}
