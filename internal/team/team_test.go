package team

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"backend": true, "platform-team": true, "t1": true,
		"": false, "Backend": false, "-x": false, "a b": false, "../x": false, "a/b": false, strings.Repeat("a", 41): false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}

func TestParseFlag(t *testing.T) {
	for _, tc := range []struct {
		in, name string
		ok       bool
	}{
		{"backend=/src/backend/.somni", "backend", true},
		{" backend = ./x", "backend", true},
		{"backend", "", false},
		{"backend=", "", false},
		{"Bad Name=/x", "", false},
	} {
		p, err := ParseFlag(tc.in)
		if (err == nil) != tc.ok || p.Name != tc.name || tc.ok && !filepath.IsAbs(p.Root) {
			t.Errorf("ParseFlag(%q) = %+v, %v", tc.in, p, err)
		}
	}
}

func TestAddFolder(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	data := filepath.Join(root, "data")
	proj := filepath.Join(root, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(proj, ".somni")
	p, err := Add(ctx, data, "backend", folder)
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != folder || p.Clone != "" {
		t.Fatalf("pool %+v", p)
	}
	if info, err := os.Stat(folder); err != nil || !info.IsDir() {
		t.Fatalf("the pool folder was not created: %v", err)
	}
	for _, tc := range []struct {
		name, target, want string
	}{
		{"backend", filepath.Join(root, "other"), "already mounted"},
		{"again", folder, "already mounted as team backend"},
		{"inside", filepath.Join(data, "memory"), "overlaps the data dir"},
		{"above", root, "overlaps the data dir"},
		{"missing", filepath.Join(root, "no", "such"), "no folder"},
		{"Bad", folder, "lower-case"},
		{"empty", " ", "give the pool's folder"},
	} {
		if tc.name == "backend" {
			_ = os.MkdirAll(tc.target, 0o755)
		}
		if _, err := Add(ctx, data, tc.name, tc.target); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Add(%s, %s) = %v, want an error saying %q", tc.name, tc.target, err, tc.want)
		}
	}
	file := filepath.Join(root, "file")
	_ = os.WriteFile(file, []byte("x"), 0o644)
	if _, err := Add(ctx, data, "file", file); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("Add of a file = %v", err)
	}
	pools, err := List(data)
	if err != nil || len(pools) != 1 || pools[0] != p {
		t.Fatalf("List = %+v, %v", pools, err)
	}
	// A flag replaces teams.yml's pool of the same name and adds the others.
	flagged := Pool{Name: "backend", Root: filepath.Join(root, "elsewhere")}
	extra := Pool{Name: "ops", Root: filepath.Join(root, "ops")}
	pools, err = Mounted(data, []Pool{flagged, extra})
	if err != nil || len(pools) != 2 || pools[0] != flagged || pools[1] != extra {
		t.Fatalf("Mounted = %+v, %v", pools, err)
	}
	if _, err := Mounted(data, []Pool{{Name: "x", Root: filepath.Join(data, "memory", "knowledge")}}); err == nil {
		t.Error("a --team folder inside the data dir was mounted")
	}
	r, err := Remove(ctx, data, "backend")
	if err != nil || r.KeptClone || r.Pool != p {
		t.Fatalf("Remove = %+v, %v", r, err)
	}
	if _, err := os.Stat(folder); err != nil {
		t.Errorf("removing a folder pool touched its folder: %v", err)
	}
	if _, err := Remove(ctx, data, "backend"); err == nil || !strings.Contains(err.Error(), "no team named backend") {
		t.Errorf("a second Remove = %v", err)
	}
}

func TestRegistryRefusals(t *testing.T) {
	for _, tc := range []struct{ yml, want string }{
		{"teams: [", "not valid YAML"},
		{"teams:\n  - name: Bad\n    path: /x\n", "lower-case"},
		{"teams:\n  - name: a\n", "needs one of path: or clone:"},
		{"teams:\n  - name: a\n    path: /x\n    clone: teams/a\n", "needs one of path: or clone:"},
	} {
		data := t.TempDir()
		if err := os.WriteFile(filepath.Join(data, RegistryFile), []byte(tc.yml), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := List(data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("List(%q) = %v, want %q", tc.yml, err, tc.want)
		}
	}
}

func TestMaxPools(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	data := filepath.Join(root, "data")
	for i := 0; i < MaxPools; i++ {
		name := "t" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if _, err := Add(ctx, data, name, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Add(ctx, data, "onemore", filepath.Join(root, "onemore")); err == nil || !strings.Contains(err.Error(), "the most it takes") {
		t.Errorf("pool %d: %v", MaxPools+1, err)
	}
}

// TestAddRemote clones a team repository (a bare one, given as a path) into
// the data dir; removing it deletes the clone, which is in step.
func TestAddRemote(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	root := t.TempDir()
	bare := filepath.Join(root, "team.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v %s", err, out)
	}
	data := filepath.Join(root, "data")
	p, err := Add(ctx, data, "platform", bare)
	if err != nil {
		t.Fatal(err)
	}
	if p.Clone != filepath.Join(data, CloneDir, "platform") || p.Root != filepath.Join(p.Clone, "memory") {
		t.Fatalf("pool %+v", p)
	}
	if p.Remote() == "" || !strings.Contains(p.Remote(), "team.git") {
		t.Errorf("Remote() = %q", p.Remote())
	}
	r, err := Remove(ctx, data, "platform")
	if err != nil || r.KeptClone {
		t.Fatalf("Remove = %+v, %v", r, err)
	}
	if _, err := os.Stat(p.Clone); !os.IsNotExist(err) {
		t.Errorf("the clone is still there: %v", err)
	}
	if _, err := Add(ctx, data, "broken", "https://127.0.0.1:1/nothing.git"); err == nil {
		t.Error("an unreachable remote was mounted")
	} else if _, serr := os.Stat(filepath.Join(data, CloneDir, "broken")); !os.IsNotExist(serr) {
		t.Errorf("a failed clone left %s", filepath.Join(data, CloneDir, "broken"))
	}
}
