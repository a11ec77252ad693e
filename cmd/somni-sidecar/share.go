package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/share"
	"github.com/somni-dev/somni/internal/team"
	"github.com/somni-dev/somni/internal/textcut"
)

// shareUsage is what `share` takes, for a mistyped command.
const shareUsage = "use `somni-sidecar share list`, `share approve ID`, `share reject ID` or `share NAME --team TEAM`"

// cmdShare runs `share list`, `share approve ID`, `share reject ID` and
// `share NAME --team TEAM`: the explicit share, the one way anything is
// written into a team pool (package share). A refusal is one sentence on
// stderr, exit 1; a mistyped command exits 2.
func cmdShare(o *options, stdout, stderr io.Writer) int {
	ctx, cancel := cliContext()
	defer cancel()
	sub, rest := "", o.args
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	args := o.args
	if o.shareTeam != "" {
		args = append(append([]string(nil), o.args...), "--team", o.shareTeam)
	}
	name, teamName, byName := shareByName(args)
	switch {
	case byName, (sub == "" || sub == "list") && len(rest) == 0, (sub == "approve" || sub == "reject") && len(rest) == 1:
	case len(o.args) == 1 && sub != "approve" && sub != "reject":
		fmt.Fprintf(stderr, "somni-sidecar share: say which team to share %q with: somni-sidecar share %s --team TEAM\n", sub, sub)
		return 2
	default:
		fmt.Fprintf(stderr, "somni-sidecar share: unknown %q: %s\n", strings.Join(o.args, " "), shareUsage)
		return 2
	}
	sh, err := openShares(o)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar share: %v\n", err)
		return 1
	}
	fail := func(what string, err error) int {
		fmt.Fprintf(stderr, "somni-sidecar share%s: %s\n", what, sentence(err))
		return 1
	}
	switch {
	case byName:
		done, err := sh.Share(ctx, name, teamName)
		if err != nil {
			return fail("", err)
		}
		printShared(stdout, done)
	case sub == "approve":
		done, err := sh.Approve(ctx, rest[0], share.Edit{})
		if err != nil {
			return fail(" approve", err)
		}
		printShared(stdout, done)
	case sub == "reject":
		p, err := sh.Reject(ctx, rest[0])
		if err != nil {
			return fail(" reject", err)
		}
		fmt.Fprintf(stdout, "rejected %s; nothing of it was shared or kept\n", p.ID)
	default:
		return listProposals(ctx, sh, stdout, stderr)
	}
	return 0
}

// shareByName reads `NAME --team TEAM` (or --team=TEAM); ok is false for
// any other form. Flags before the subcommand are the global ones, where
// --team mounts a pool (NAME=FOLDER), so the team comes after the name.
func shareByName(args []string) (name, teamName string, ok bool) {
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "--team" || a == "-team") && i+1 < len(args):
			teamName = args[i+1]
			i++
		case strings.HasPrefix(a, "--team=") || strings.HasPrefix(a, "-team="):
			_, teamName, _ = strings.Cut(a, "=")
		default:
			rest = append(rest, a)
		}
	}
	if teamName == "" || len(rest) != 1 {
		return "", "", false
	}
	return rest[0], teamName, true
}

// openShares opens the personal memory and every mounted pool's store.
func openShares(o *options) (*share.Shares, error) {
	cfg := memory.Config{DataDir: o.cfg.DataDir, MemoryDir: o.cfg.MemoryDir, SkillDir: o.cfg.SkillDir, Now: o.cfg.Now, Logger: o.cfg.Logger}
	st, err := memory.Open(cfg)
	if err != nil {
		return nil, err
	}
	mounted, err := team.Mounted(o.cfg.DataDir, o.teamFlags)
	if err != nil {
		return nil, err
	}
	pools := make([]share.Pool, 0, len(mounted))
	for _, p := range mounted {
		ps, err := p.Open(memory.Config{Now: o.cfg.Now, Logger: o.cfg.Logger})
		if err != nil {
			return nil, err
		}
		pools = append(pools, share.Pool{Pool: p, Store: ps})
	}
	return share.New(st, pools), nil
}

// sentence is an error as one line: a refusal's own sentence, anything
// else on one line.
func sentence(err error) string {
	var r *share.Refusal
	if errors.As(err, &r) {
		return textcut.OneLine(r.Msg)
	}
	return textcut.OneLine(err.Error())
}

// printShared says where the entry went, who shared it and how it reaches
// the team.
func printShared(w io.Writer, sh share.Shared) {
	fmt.Fprintf(w, "shared %q into team %s as %s (shared by %s)\n", sh.Name, sh.Pool.Name, sh.Rel(), sh.SharedBy)
	fmt.Fprintln(w, sh.Next())
	if sh.Note != "" {
		fmt.Fprintln(w, "note: "+sh.Note)
	}
}

// listProposals prints the proposals waiting, one a line: id, team, name,
// when, description.
func listProposals(ctx context.Context, sh *share.Shares, stdout, stderr io.Writer) int {
	all, err := sh.List(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar share list: %s\n", sentence(err))
		return 1
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "no proposals wait (the model proposes with share_memory; somni-sidecar share NAME --team TEAM shares an entry of yours)")
		return 0
	}
	for _, p := range all {
		fmt.Fprintf(stdout, "%s\tteam %s\t%s\t%s\t%s\n", p.ID, p.Team, p.Name, p.When(), textcut.Visible(textcut.OneLine(p.Description)))
	}
	fmt.Fprintln(stdout, "approve one with `somni-sidecar share approve ID`, or reject it with `share reject ID`")
	return 0
}
