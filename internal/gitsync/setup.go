package gitsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
	"github.com/somni-dev/somni/internal/sessionlog"
	"github.com/somni-dev/somni/internal/usage"
)

const (
	// driverName is the merge driver .gitattributes names for memory files.
	driverName = "somni"
	// driverLabel is merge.somni.name: what `git config` shows a person.
	driverLabel = "somni memory: front-matter field by field, body three-way, both texts kept on a clash"
	// ignoreHeader opens the lines sync keeps in .gitignore; a person's own
	// lines around them are left alone.
	ignoreHeader = "# somni sync: machine-local files (each machine keeps its own)"
	attrHeader   = "# somni sync: memory files merge entry by entry (somni-sidecar merge-file)"
)

// ignorePatterns are the machine-local things of a data dir, as .gitignore
// lines: the derived index (each machine computes its own vectors), the
// store's lock files, usage journal and its claims, atomic writes' temp
// files, the plugin's log and the raw session logs (the machine that
// captured a conversation consolidates it). Names come from the packages
// that write them, so a rename there cannot make a lock file travel.
func ignorePatterns(st *memory.Store) []string {
	dataRel := func(p string) string { return "/" + rel(st.DataDir(), p) }
	write, dream := st.LockFiles()
	journal, folding := usage.Of(st).Files()
	return []string{
		// the sidecar's SQLite cache (internal/sidecar) and its -wal/-shm/-journal
		"/index.sqlite*",
		// the plugin's log (plugin-ts logfile.ts: logs/somni.log and somni.log.1)
		"/logs/",
		// the team pools this machine mounts and the team repositories it
		// cloned (internal/team's RegistryFile and CloneDir): this machine's
		// paths, and repositories with remotes of their own
		"/teams.yml",
		"/teams/",
		dataRel(write),
		dataRel(dream),
		dataRel(journal),
		dataRel(folding),
		dataRel(filepath.Join(st.MemoryDir(), usage.Quarantine)) + "*",
		safefs.TempPrefix + "*" + safefs.TempInfix + "*",
		dataRel(sessionlog.New(st).Dir()) + "/",
	}
}

// attrLines are .gitattributes' lines: every Markdown file through the
// somni driver; the two files sync writes merge as a union of lines, so two
// machines' versions of them never conflict.
var attrLines = []string{
	"*.md merge=" + driverName,
	".gitignore merge=union",
	".gitattributes merge=union",
}

// setup writes .gitignore, .gitattributes (and the same attributes in
// .git/info/attributes, which outrank any a remote brings) and registers
// this executable as the merge driver. It runs every round: an upgrade
// moves the executable, and a newer somni may ignore one more file.
func (s *session) setup(ctx context.Context) error {
	if err := ensureLines(filepath.Join(s.dir, ".gitignore"), ignoreHeader, ignorePatterns(s.st)); err != nil {
		return err
	}
	if err := ensureLines(filepath.Join(s.dir, ".gitattributes"), attrHeader, attrLines); err != nil {
		return err
	}
	if err := ensureLines(filepath.Join(s.dir, ".git", "info", "attributes"), attrHeader, attrLines); err != nil {
		return err
	}
	return s.configDriver(ctx)
}

// configDriver registers this executable as the merge driver and keeps
// the repository from checking out links: a remote is another machine's
// word, and a link it planted at an entry's path must arrive as a plain
// file (the store reads no file through a link either). A key is written
// only when it differs: every config write takes .git/config.lock.
func (s *session) configDriver(ctx context.Context) error {
	want := [][2]string{
		{"merge." + driverName + ".name", driverLabel},
		{"merge." + driverName + ".driver", DriverCommand(s.exe)},
		{"core.symlinks", "false"},
	}
	out, err := s.git.run(ctx, "config", "--local", "--list", "-z")
	if err != nil {
		return err
	}
	have := map[string]string{}
	for _, kv := range splitZ(out) {
		k, v, _ := strings.Cut(kv, "\n")
		have[k] = v
	}
	for _, kv := range want {
		if have[kv[0]] == kv[1] {
			continue
		}
		if _, err := s.git.run(ctx, "config", "--local", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// DriverCommand is the merge driver's command line for git: exe's
// merge-file with git's placeholders, exe quoted for the POSIX shell git
// runs drivers with (Git for Windows included, which reads / paths).
func DriverCommand(exe string) string {
	return shellQuote(filepath.ToSlash(exe)) + " merge-file %O %A %B %P"
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ensureLines appends to the file at p the lines it lacks, under header,
// creating it if needed; lines already there (a person's, or an earlier
// round's) are kept as they are.
func ensureLines(p, header string, lines []string) error {
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("gitsync: read %s: %w", p, err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(old), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var add bytes.Buffer
	for _, l := range lines {
		if !have[l] {
			add.WriteString(l + "\n")
		}
	}
	if add.Len() == 0 {
		return nil
	}
	var b bytes.Buffer
	b.Write(old)
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		b.WriteByte('\n')
	}
	if !have[header] {
		b.WriteString(header + "\n")
	}
	b.Write(add.Bytes())
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("gitsync: %w", err)
	}
	if err := writeAtomic(p, b.Bytes()); err != nil {
		return fmt.Errorf("gitsync: write %s: %w", p, err)
	}
	return nil
}

// writeAtomic replaces p through a temp file beside it, so a kill leaves
// the old file or the new one, never half of one.
func writeAtomic(p string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), safefs.TempPrefix+filepath.Base(p)+safefs.TempInfix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
