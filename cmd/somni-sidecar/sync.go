package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/somni-dev/somni/internal/gitsync"
)

// syncUsage is what `sync` takes, for a refusal.
const syncUsage = "use `somni-sidecar sync` (one round), `somni-sidecar sync init REMOTE` or `somni-sidecar sync status`"

// cmdSync runs `sync`, `sync init REMOTE` and `sync status`. Exit 0 only
// when this machine is in step with the remote; a failure is one sentence
// on stderr with what to do, exit 1; a mistyped command exits 2.
func cmdSync(o *options, stdout, stderr io.Writer) int {
	ctx, cancel := cliContext()
	defer cancel()
	log := gitsync.WithLogger(o.cfg.Logger)
	sub, rest := "", o.args
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	switch {
	case sub == "" && len(rest) == 0:
		rep, err := gitsync.Round(ctx, o.cfg.DataDir, log)
		return syncOutcome(rep, err, stdout, stderr)
	case sub == "init" && len(rest) == 1:
		rep, err := gitsync.Init(ctx, o.cfg.DataDir, rest[0], log)
		return syncOutcome(rep, err, stdout, stderr)
	case sub == "status" && len(rest) == 0:
		st, err := gitsync.Status(ctx, o.cfg.DataDir, log)
		if err != nil {
			fmt.Fprintf(stderr, "somni-sidecar sync status: %v\n", err)
			return 1
		}
		for _, l := range st.Lines() {
			fmt.Fprintln(stdout, l)
		}
		if !st.InStep {
			return 1
		}
		return 0
	case sub == "init":
		fmt.Fprintf(stderr, "somni-sidecar sync init: give one remote, e.g. somni-sidecar sync init git@github.com:you/memory.git\n")
		return 2
	}
	fmt.Fprintf(stderr, "somni-sidecar sync: unknown %q: %s\n", strings.Join(o.args, " "), syncUsage)
	return 2
}

// syncOutcome prints what a round did and how it ended; a round that ran
// but left this machine out of step (a file held back) says so on stderr.
func syncOutcome(rep gitsync.Report, err error, stdout, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar sync: %v\n", err)
		return 1
	}
	for _, l := range rep.Lines() {
		fmt.Fprintln(stdout, l)
	}
	if rep.InStep {
		return 0
	}
	switch held := rep.HeldBack; {
	case len(held) == 1:
		fmt.Fprintf(stderr, "somni-sidecar sync: not in step: %s was held back: %s\n", held[0].Path, held[0].Why)
	case len(held) > 1:
		fmt.Fprintf(stderr, "somni-sidecar sync: not in step: %d files were held back (listed above, with why): take the secrets out and run sync again\n", len(held))
	case rep.Waiting > 0:
		fmt.Fprintf(stderr, "somni-sidecar sync: not in step: %d changed files wait for the next round; run sync again\n", rep.Waiting)
	default:
		fmt.Fprintln(stderr, "somni-sidecar sync: not in step with the remote yet; run sync again")
	}
	return 1
}
