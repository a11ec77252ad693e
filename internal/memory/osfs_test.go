package memory

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// osFileFuncs are the os functions that touch the file system by name.
var osFileFuncs = map[string]bool{
	"Open": true, "OpenFile": true, "OpenInRoot": true, "OpenRoot": true, "Create": true, "CreateTemp": true,
	"ReadFile": true, "WriteFile": true, "ReadDir": true, "Lstat": true, "Stat": true,
	"Remove": true, "RemoveAll": true, "Rename": true, "Mkdir": true, "MkdirAll": true, "MkdirTemp": true,
	"Chmod": true, "Chtimes": true, "Truncate": true, "Symlink": true, "Link": true, "Readlink": true,
	"DirFS": true, "CopyFS": true,
}

// osAllowed names the direct os calls the boundary lets through, by file and
// function, each with why it cannot go through safefs.
var osAllowed = map[string]string{
	"sessionlog/capture_file.go:movedAway": "a stat by name of the log capture holds open reads nothing through a link, and resolving the root at every check would cost a third of capture",
}

// TestFilesGoThroughTheBoundary fails when a non-test file of the store's
// packages touches the file system with os directly: the data directory is
// a boundary (package safefs) only if every access goes through it.
func TestFilesGoThroughTheBoundary(t *testing.T) {
	fset := token.NewFileSet()
	for _, pkg := range []string{"memory", "sessionlog", "dreamlog", "frontmatter", "redact"} {
		files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			osName := ""
			for _, imp := range f.Imports {
				if imp.Path.Value == `"os"` {
					osName = "os"
					if imp.Name != nil {
						osName = imp.Name.Name
					}
				}
			}
			if osName == "" {
				continue
			}
			for _, d := range f.Decls {
				fn := "(package level)"
				if fd, ok := d.(*ast.FuncDecl); ok {
					fn = fd.Name.Name
				}
				ast.Inspect(d, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName && osFileFuncs[sel.Sel.Name] {
						where := pkg + "/" + filepath.Base(path) + ":" + fn
						if osAllowed[where] == "" {
							t.Errorf("%s: os.%s bypasses the data directory's boundary (use the store's safefs.FS)", fset.Position(sel.Pos()), sel.Sel.Name)
						}
					}
					return true
				})
			}
		}
	}
}
