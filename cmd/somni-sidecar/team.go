package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/somni-dev/somni/internal/gitsync"
	"github.com/somni-dev/somni/internal/team"
)

// teamUsage is what `team` takes, for a refusal.
const teamUsage = "use `somni-sidecar team add NAME FOLDER|REMOTE`, `team list`, `team remove NAME` or `team sync`"

// cmdTeam runs `team add`, `team list`, `team remove` and `team sync`:
// the pools this machine mounts (teams.yml in the data dir). A refusal is
// one sentence on stderr, exit 1; a mistyped command exits 2.
func cmdTeam(o *options, stdout, stderr io.Writer) int {
	ctx, cancel := cliContext()
	defer cancel()
	log := gitsync.WithLogger(o.cfg.Logger)
	sub, rest := "", o.args
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "somni-sidecar team %s: %v\n", sub, err)
		return 1
	}
	switch {
	case sub == "add" && len(rest) == 2:
		p, err := team.Add(ctx, o.cfg.DataDir, rest[0], rest[1], log)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "mounted team %s: %s\n", p.Name, describe(p))
		if p.Clone == "" {
			fmt.Fprintln(stdout, "entries shared into it are left for you to commit with the project's code")
		}
		return 0
	case sub == "add":
		fmt.Fprintln(stderr, "somni-sidecar team add: give a name and the pool's folder or git remote, e.g. somni-sidecar team add backend ./.somni")
		return 2
	case (sub == "list" || sub == "") && len(rest) == 0:
		pools, err := team.Mounted(o.cfg.DataDir, o.teamFlags)
		if err != nil {
			return fail(err)
		}
		if len(pools) == 0 {
			fmt.Fprintln(stdout, "no team pools mounted (somni-sidecar team add NAME FOLDER|REMOTE)")
			return 0
		}
		for _, p := range pools {
			fmt.Fprintf(stdout, "%s\t%s\n", p.Name, describe(p))
		}
		return 0
	case sub == "remove" && len(rest) == 1:
		r, err := team.Remove(ctx, o.cfg.DataDir, rest[0], log)
		if err != nil {
			return fail(err)
		}
		switch {
		case r.KeptClone:
			fmt.Fprintf(stdout, "unmounted team %s; its clone %s holds changes its remote lacks, so it was kept: sync it (git -C %s push) or delete it\n", r.Pool.Name, r.Pool.Clone, r.Pool.Clone)
		case r.Pool.Clone != "":
			fmt.Fprintf(stdout, "unmounted team %s and deleted its clone (its remote keeps everything)\n", r.Pool.Name)
		default:
			fmt.Fprintf(stdout, "unmounted team %s; its folder %s is untouched\n", r.Pool.Name, r.Pool.Root)
		}
		return 0
	case sub == "sync" && len(rest) <= 1:
		return teamSync(o, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "somni-sidecar team: unknown %q: %s\n", strings.Join(o.args, " "), teamUsage)
	return 2
}

// teamSync runs one round on every cloned pool (or the one named): exit 0
// only when each is in step. A folder pool is the project's repository's
// to push, with its code.
func teamSync(o *options, names []string, stdout, stderr io.Writer) int {
	ctx, cancel := cliContext()
	defer cancel()
	pools, err := team.List(o.cfg.DataDir)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar team sync: %v\n", err)
		return 1
	}
	code, found := 0, false
	for _, p := range pools {
		if len(names) == 1 && p.Name != names[0] {
			continue
		}
		found = true
		if p.Clone == "" {
			fmt.Fprintf(stdout, "team %s: a folder of your project; commit and push it with your code\n", p.Name)
			continue
		}
		rep, err := gitsync.Round(ctx, p.Clone, gitsync.WithLogger(o.cfg.Logger))
		if err != nil {
			fmt.Fprintf(stderr, "somni-sidecar team sync %s: %v\n", p.Name, err)
			code = 1
			continue
		}
		for _, l := range rep.Lines() {
			fmt.Fprintf(stdout, "team %s: %s\n", p.Name, l)
		}
		if !rep.InStep {
			code = 1
		}
	}
	if !found {
		fmt.Fprintf(stderr, "somni-sidecar team sync: no team %s is mounted\n", strings.Join(names, " "))
		return 1
	}
	return code
}

// describe says where a pool is: its folder, or its remote and clone.
func describe(p team.Pool) string {
	if p.Clone == "" {
		return p.Root
	}
	if r := p.Remote(); r != "" {
		return r + " (cloned in " + p.Clone + ")"
	}
	return "cloned in " + p.Clone
}
