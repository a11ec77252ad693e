package sidecar

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryExport: memory.export through the method table is an archive
// of every Markdown file of memory/ and skills/, byte for byte, named for the
// day, and nothing else (no index, no lock).
func TestMemoryExport(t *testing.T) {
	srv, dir := tabServer(t)
	var res exportResult
	if err := call(t, srv, "memory.export", `{}`, &res); err != nil {
		t.Fatal(err)
	}
	if res.Name != "somni-memory-2026-11-30.tar.gz" || res.Files == 0 {
		t.Fatalf("export: name %q, %d files", res.Name, res.Files)
	}
	raw, err := base64.StdEncoding.DecodeString(res.Archive)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		got[h.Name] = string(b)
	}
	// memory/ and skills/ (the fixture's own README.md beside them is no memory)
	want := map[string]string{}
	for _, root := range []string{"memory", "skills"} {
		_ = filepath.WalkDir(filepath.Join(dir, root), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				r, _ := filepath.Rel(dir, p)
				b, _ := os.ReadFile(p)
				want[filepath.ToSlash(r)] = string(b)
			}
			return nil
		})
	}
	if len(got) != len(want) || len(got) != res.Files {
		t.Fatalf("the archive holds %d files (says %d), the data dir %d Markdown files", len(got), res.Files, len(want))
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s differs in the archive", p)
		}
	}
}
