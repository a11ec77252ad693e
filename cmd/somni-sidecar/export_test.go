package main

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// markdownOf maps every Markdown file under dir (the index and the other
// machine-local files are not Markdown) to its text and modification time.
func markdownOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(r)] = info.ModTime().UTC().Format("2006-01-02T15:04:05") + "\n" + testutil.ReadFile(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// untar unpacks a .tar.gz into dir, refusing any name that leaves it.
func untar(t *testing.T, archive, dir string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		if !filepath.IsLocal(h.Name) || h.Typeflag != tar.TypeReg {
			t.Fatalf("archive entry %q (type %c) is not a plain file inside the archive", h.Name, h.Typeflag)
		}
		names = append(names, h.Name)
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, h.ModTime, h.ModTime); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExportRoundTrip: a data dir that lived (notes, an intention, a
// conversation dreamt over into an episode and a diary, a pending session
// log) is exported with the bare CLI; the archive unpacked as a new data
// dir holds the same Markdown with the same times, doctor finds it clean,
// and recall answers the same. The index and the lock files stay out.
func TestExportRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	note(t, dir, "staging-kafka-port", "The staging kafka listens on port 9094.")
	note(t, dir, "deploy-window", "Deploys go out on Tuesdays at 14:00, never on Fridays.")
	s := start(t, dir, []string{"--sync-interval", "off"})
	s.tool("add_intention", map[string]any{"what": "rotate the staging kafka credentials", "cue": "kafka credentials"})
	dreamWith(t, s, "")
	s.call("session.append", map[string]any{"sessionId": "later", "role": "user", "text": "the VPN gateway moved to vpn-gw-4"}, nil)
	s.call("session.closeAll", nil, nil)
	s.call("shutdown", nil, nil)
	s.waitExit()

	archive := filepath.Join(t.TempDir(), "memory.tar.gz")
	r := runCLIEnv(t, nil, "", "--data-dir", dir, "export", archive)
	if r.code != 0 || !strings.Contains(r.stdout, "exported ") {
		t.Fatalf("export: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	copyDir := filepath.Join(t.TempDir(), "unpacked")
	names := untar(t, archive, copyDir)
	for _, n := range names {
		if strings.Contains(n, "index.sqlite") || strings.HasSuffix(n, ".lock") || !strings.HasSuffix(n, ".md") {
			t.Errorf("the archive holds %s", n)
		}
	}
	want, got := markdownOf(t, dir), markdownOf(t, copyDir)
	for _, kind := range []string{"memory/knowledge/", "memory/intentions/", "memory/episodes/", "memory/dream-log/", "memory/session-log/"} {
		found := false
		for p := range want {
			found = found || strings.HasPrefix(p, kind)
		}
		if !found {
			t.Errorf("the data dir has nothing under %s: the test lived too little", kind)
		}
	}
	if strings.Join(sortedKeys(want), "\n") != strings.Join(sortedKeys(got), "\n") {
		t.Fatalf("the unpacked archive holds other files:\n%s\n--- want ---\n%s", strings.Join(sortedKeys(got), "\n"), strings.Join(sortedKeys(want), "\n"))
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s differs after the trip:\n%s\n--- want ---\n%s", p, got[p], w)
		}
	}
	if d := runCLIEnv(t, nil, "", "--data-dir", copyDir, "doctor"); d.code != 0 {
		t.Errorf("doctor on the unpacked archive: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}
	for _, q := range []string{"staging kafka port", "when do deploys go out", "tidy up"} {
		a := runCLIEnv(t, nil, "", "--data-dir", dir, "--embed", "off", "recall", q)
		b := runCLIEnv(t, nil, "", "--data-dir", copyDir, "--embed", "off", "recall", q)
		if strings.ReplaceAll(a.stdout, dir, "DIR") != strings.ReplaceAll(b.stdout, copyDir, "DIR") || a.stdout == "" {
			t.Errorf("recall %q differs:\n%s\n--- after the trip ---\n%s", q, a.stdout, b.stdout)
		}
	}
}

// TestExportRefusals: no archive inside the memory it exports, a missing
// argument, a data dir that is not there.
func TestExportRefusals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	note(t, dir, "a", "A note.")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--data-dir", dir, "export", filepath.Join(dir, "memory", "x.tar.gz")}, 1, "inside the memory it exports"},
		{[]string{"--data-dir", dir, "export"}, 2, "give the archive to write"},
		{[]string{"--data-dir", filepath.Join(dir, "nope"), "export", filepath.Join(t.TempDir(), "x.tgz")}, 2, ""},
	} {
		r := runCLIEnv(t, nil, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "memory", "x.tar.gz")); err == nil {
		t.Error("a refused export left a file")
	}
}
