package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/somni-dev/somni/internal/export"
	"github.com/somni-dev/somni/internal/memory"
)

// cmdExport writes the memory's Markdown as a .tar.gz to FILE (- for
// stdout): the whole file or nothing, never into the data dir itself.
func cmdExport(o *options, stdout, stderr io.Writer) int {
	if len(o.args) != 1 {
		fmt.Fprintln(stderr, "somni-sidecar export: give the archive to write, e.g. somni-sidecar export memory.tar.gz (- for stdout)")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "somni-sidecar export: %v\n", err)
		return 1
	}
	ctx, cancel := cliContext()
	defer cancel()
	st, err := memory.Open(memory.Config{DataDir: o.cfg.DataDir, MemoryDir: o.cfg.MemoryDir, SkillDir: o.cfg.SkillDir, Logger: o.cfg.Logger})
	if err != nil {
		return fail(err)
	}
	target := o.args[0]
	if target == "-" {
		if _, err := export.Write(ctx, st, stdout); err != nil {
			return fail(err)
		}
		return 0
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return fail(err)
	}
	for _, root := range []string{st.MemoryDir(), st.SkillDir()} {
		if memory.CheckWithin(root, abs) == nil {
			return fail(fmt.Errorf("%s is inside the memory it exports; write it elsewhere", abs))
		}
	}
	// A temp file beside the target, renamed over it once complete: an
	// interrupted export leaves no half archive under the name.
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	sum, err := export.Write(ctx, st, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), abs)
	}
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "exported %d memory files (%d KB of Markdown) to %s\n", sum.Files, (sum.Bytes+1023)/1024, abs)
	return 0
}
