//go:build unix

package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWalkDirMatchesFSWalkDir holds WalkDir to fs.WalkDir's order and
// skip rules over a tree with links in and out of the root, and checks
// that no link is descended and each entry's Info is its own (a link is
// reported as a link, never as what it points to).
func TestWalkDirMatchesFSWalkDir(t *testing.T) {
	f, root, outside := newFS(t)
	must := mustOK(t)
	for _, d := range []string{"a/b/c", "a/skip/deep", "d", "e"} {
		must(os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for _, p := range []string{"a/x.md", "a/b/SKILL.md", "a/b/c/SKILL.md", "a/skip/deep/SKILL.md", "d/1.md", "d/2.md", "d/3.md", "e/z.md"} {
		must(os.WriteFile(filepath.Join(root, p), []byte(p), 0o644))
	}
	must(os.Symlink(outside, filepath.Join(root, "a", "out")))   // a folder outside
	must(os.Symlink("../d", filepath.Join(root, "a", "inlink"))) // a folder inside
	must(os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "e", "secret.md")))
	for _, tc := range []struct {
		name string
		fn   func(rel string, d fs.DirEntry) error
	}{
		{"everything", func(string, fs.DirEntry) error { return nil }},
		{"SkipDir on a folder", func(rel string, d fs.DirEntry) error {
			if rel == "a/skip" {
				return filepath.SkipDir
			}
			return nil
		}},
		{"SkipDir on a file skips the rest of its folder", func(rel string, d fs.DirEntry) error {
			if rel == "d/2.md" {
				return filepath.SkipDir
			}
			return nil
		}},
		{"SkipAll", func(rel string, d fs.DirEntry) error {
			if rel == "a/b/c" {
				return fs.SkipAll
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			walk := func(do func(fs.WalkDirFunc) error, rel func(string) string) []string {
				var seen []string
				must(do(func(p string, d fs.DirEntry, err error) error {
					if err != nil {
						t.Fatalf("%s: %v", p, err)
					}
					r := rel(p)
					info, err := d.Info()
					if err != nil {
						t.Fatalf("%s: Info: %v", r, err)
					}
					seen = append(seen, r+" "+info.Mode().Type().String())
					return tc.fn(r, d)
				}))
				return seen
			}
			got := walk(func(fn fs.WalkDirFunc) error { return f.WalkDir(root, fn) },
				func(p string) string { r, _ := filepath.Rel(root, p); return filepath.ToSlash(r) })
			want := walk(func(fn fs.WalkDirFunc) error { return fs.WalkDir(os.DirFS(root), ".", fn) },
				func(p string) string { return p })
			if !slices.Equal(got, want) {
				t.Fatalf("WalkDir visited\n%s\nfs.WalkDir visits\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, s := range got {
				if strings.HasPrefix(s, "a/out/") || strings.HasPrefix(s, "a/inlink/") {
					t.Errorf("descended through a link: %s", s)
				}
			}
		})
	}
}

// TestWalkDirStartInsideLink: a start reached through a link that stays
// inside the root is walked (as os.Root resolves it); one that leads out is
// refused.
func TestWalkDirStart(t *testing.T) {
	f, root, outside := newFS(t)
	if err := os.MkdirAll(filepath.Join(root, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "real", "n.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := f.WalkDir(filepath.Join(root, "alias"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		got = append(got, filepath.Base(p))
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"alias", "n.md"}) {
		t.Fatalf("walk through an inside link: %v %v", got, err)
	}
	var refused error
	_ = f.WalkDir(filepath.Join(root, "escape"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			refused = err
		} else {
			t.Errorf("read %s outside the root", p)
		}
		return nil
	})
	if !IsRefusal(refused) {
		t.Fatalf("start outside the root: %v, want a refusal", refused)
	}
}

// TestWalkNamed: only folders and files of the name are reported, nested
// ones too, whether folders are listed or, where link counts prove them
// leaves, looked into by name; links are never descended.
func TestWalkNamed(t *testing.T) {
	f, root, outside := newFS(t)
	must := mustOK(t)
	for _, d := range []string{"k/one", "k/two/nested", "k/empty", "k/.hidden"} {
		must(os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for _, p := range []string{"k/one/SKILL.md", "k/one/notes.md", "k/two/SKILL.md", "k/two/nested/SKILL.md", "k/SKILL.md", "k/.hidden/SKILL.md"} {
		must(os.WriteFile(filepath.Join(root, p), []byte(p), 0o644))
	}
	must(os.MkdirAll(filepath.Join(outside, "evil"), 0o755))
	must(os.WriteFile(filepath.Join(outside, "evil", "SKILL.md"), []byte("secret"), 0o644))
	must(os.Symlink(filepath.Join(outside, "evil"), filepath.Join(root, "k", "linked")))
	must(os.Symlink(filepath.Join(outside, "evil", "SKILL.md"), filepath.Join(root, "k", "empty", "SKILL.md")))
	want := []string{"k d---------", "k/.hidden d---------", "k/.hidden/SKILL.md ----------", "k/SKILL.md ----------",
		"k/empty d---------", "k/empty/SKILL.md L---------", "k/one d---------", "k/one/SKILL.md ----------",
		"k/two d---------", "k/two/SKILL.md ----------", "k/two/nested d---------", "k/two/nested/SKILL.md ----------"}
	collect := func(seen *[]string) fs.WalkDirFunc {
		return func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			info, err := d.Info()
			if err != nil {
				t.Fatalf("%s: Info: %v", p, err)
			}
			r, _ := filepath.Rel(root, p)
			*seen = append(*seen, filepath.ToSlash(r)+" "+info.Mode().Type().String())
			return nil
		}
	}
	var got []string
	must(f.WalkNamed(filepath.Join(root, "k"), "SKILL.md", collect(&got)))
	if !slices.Equal(got, want) {
		t.Errorf("WalkNamed:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// the same with every leaf looked into by name, as on ext4, XFS or tmpfs
	dir, err := os.Open(filepath.Join(root, "k"))
	must(err)
	defer dir.Close()
	got = []string{"k d---------"}
	must(walkTree(dir, filepath.Join(root, "k"), collect(&got), "SKILL.md", true))
	if !slices.Equal(got, want) {
		t.Errorf("WalkNamed by leaves:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWalkNamedManyFolders: a folder of more entries than one chunk opened
// ahead is reported whole and in order, with SkipDir and an early stop
// honoured, and no descriptor left open.
func TestWalkNamedManyFolders(t *testing.T) {
	_, root, _ := newFS(t)
	must := mustOK(t)
	const n = 3*prefetchChunk + 7
	var want []string
	for i := range n {
		name := fmt.Sprintf("e%04d", i)
		must(os.MkdirAll(filepath.Join(root, "k", name), 0o755))
		want = append(want, "k/"+name)
		if i%5 == 0 { // some folders hold no entry file
			continue
		}
		must(os.WriteFile(filepath.Join(root, "k", name, "SKILL.md"), []byte(name), 0o644))
		want = append(want, "k/"+name+"/SKILL.md")
	}
	fds := func() int {
		des, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(des)
	}
	before := fds()
	for _, leaves := range []bool{false, true} {
		walk := func(fn func(rel string) error) []string {
			dir, err := os.Open(filepath.Join(root, "k"))
			must(err)
			defer dir.Close()
			seen := []string{}
			err = walkTree(dir, filepath.Join(root, "k"), func(p string, d fs.DirEntry, err error) error {
				must(err)
				r, _ := filepath.Rel(root, p)
				r = filepath.ToSlash(r)
				seen = append(seen, r)
				return fn(r)
			}, "SKILL.md", leaves)
			if err != nil && err.Error() != "stop" {
				t.Fatal(err)
			}
			return seen
		}
		if got := walk(func(string) error { return nil }); !slices.Equal(got, want) {
			t.Fatalf("leaves=%v: %d reported, want %d; first difference at %v", leaves, len(got), len(want), firstDiff(got, want))
		}
		got := walk(func(r string) error {
			if r == "k/e0200" {
				return filepath.SkipDir
			}
			if r == "k/e0300" {
				return errors.New("stop")
			}
			return nil
		})
		if slices.Contains(got, "k/e0200/SKILL.md") || got[len(got)-1] != "k/e0300" {
			t.Fatalf("leaves=%v: SkipDir or the stop not honoured, last %v", leaves, got[len(got)-1])
		}
	}
	if after := fds(); after != before {
		t.Fatalf("%d descriptors open after the walks, %d before", after, before)
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] + " / " + b[i]
		}
	}
	return "the end"
}
