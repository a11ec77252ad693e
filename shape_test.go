package somni_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The shape the code keeps once it was cut by job: a function longer than a
// screenful or two hides phases that deserve names, a package past a few
// thousand lines holds more than one job, and a type with dozens of methods
// is a package in disguise. Each limit sits well above the median it guards
// (Go functions: 10 lines; packages: about 1,000 lines) and was reached by
// splitting, never by raising it.
const (
	maxFuncLines    = 120  // any non-test Go function or method, braces included
	maxPackageLines = 3500 // non-blank, non-test lines of one package under internal/
	maxMethods      = 60   // methods of one type
)

// parsedPackage parses dir's non-test files.
func parsedPackage(t *testing.T, fset *token.FileSet, dir string, files []string) []*ast.File {
	t.Helper()
	var out []*ast.File
	for _, f := range files {
		af, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s/%s: %v", dir, f, err)
		}
		out = append(out, af)
	}
	return out
}

// receiverName is the type a method is declared on, "" for a function.
func receiverName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// nonBlankLines counts the lines of a file that hold anything, comments
// included: a package's size as its readers meet it.
func nonBlankLines(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

func TestCodeShape(t *testing.T) {
	fset := token.NewFileSet()
	pkgs := goPackages(t)
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		methods := map[string]int{}
		lines := 0
		for _, af := range parsedPackage(t, fset, dir, pkgs[dir]) {
			lines += nonBlankLines(t, fset.File(af.Pos()).Name())
			for _, d := range af.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				name := fd.Name.Name
				if r := receiverName(fd); r != "" {
					methods[r]++
					name = r + "." + name
				}
				start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
				if n := end.Line - start.Line + 1; n > maxFuncLines {
					t.Errorf("%s:%d: %s is %d lines (limit %d): give its phases names", start.Filename, start.Line, name, n, maxFuncLines)
				}
			}
		}
		if strings.HasPrefix(dir, "internal/") && lines > maxPackageLines {
			t.Errorf("%s: %d non-blank non-test lines (limit %d): cut it by job", dir, lines, maxPackageLines)
		}
		for typ, n := range methods {
			if n > maxMethods {
				t.Errorf("%s: type %s has %d methods (limit %d)", dir, typ, n, maxMethods)
			}
		}
	}
}

// envReaders may read the environment below main, each with why.
var envReaders = map[string]string{
	// the machine's zone is named the way the time package finds time.Local
	"internal/dates/zone.go": "TZ",
	// a crash test's writer child inherits the test's own environment
	"internal/testutil/crash.go": "os.Environ",
}

// TestEnvironmentReadInMain: configuration comes from the environment in
// cmd/ only, and reaches packages as values, so a package's behaviour is
// what its caller passed and a test never depends on the shell it ran in.
func TestEnvironmentReadInMain(t *testing.T) {
	fset := token.NewFileSet()
	for dir, files := range goPackages(t) {
		if !strings.HasPrefix(dir, "internal/") {
			continue
		}
		for i, af := range parsedPackage(t, fset, dir, files) {
			path := dir + "/" + files[i]
			ast.Inspect(af, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && (sel.Sel.Name == "Getenv" || sel.Sel.Name == "LookupEnv" || sel.Sel.Name == "Environ") {
					if _, allowed := envReaders[path]; !allowed {
						t.Errorf("%s: os.%s below main: read it in cmd/ and pass it down", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
