package gitsync

import (
	"fmt"
	"strings"
)

// Report is what one round (or Init) did.
type Report struct {
	Remote    string     // origin's URL
	Joined    string     // Init: the remote this data dir now syncs with
	Sent      int        // files the push changed on the remote
	Received  int        // files the merge changed here
	Merged    int        // files both machines changed since they last met
	Conflicts []string   // siblings kept beside an entry both machines changed and no merge settled
	Restored  []string   // entries archived on one machine and edited on the other, active again
	HeldBack  []HeldBack // changed files not sent, with why
	Waiting   int        // changed files past maxScanFiles, left for the next round
	Attempts  int        // fetch-merge-push passes (more than one: another machine pushed meanwhile)
	Pushed    bool
	InStep    bool // the remote holds exactly this machine's memory, nothing held back
}

func (r *Report) addHeld(held []HeldBack) {
	have := map[string]bool{}
	for _, h := range r.HeldBack {
		have[h.Path] = true
	}
	for _, h := range held {
		if !have[h.Path] {
			r.HeldBack = append(r.HeldBack, h)
			have[h.Path] = true
		}
	}
}

// Lines says what the round did: a line of counts and how it stands, then
// one line per file held back.
func (r Report) Lines() []string {
	var lines []string
	if r.Joined != "" {
		lines = append(lines, fmt.Sprintf("this memory now syncs with %s (branch %s)", r.Joined, branch))
	}
	parts := []string{
		fmt.Sprintf("sent %d %s", r.Sent, plural(r.Sent, "change", "changes")),
		fmt.Sprintf("received %d", r.Received),
	}
	if r.Merged > 0 {
		parts = append(parts, fmt.Sprintf("merged %d %s both machines changed", r.Merged, plural(r.Merged, "entry", "entries")))
	}
	if n := len(r.Conflicts); n > 0 {
		parts = append(parts, fmt.Sprintf("kept %d conflicting %s beside the original (%s)", n, plural(n, "text", "texts"), strings.Join(r.Conflicts, ", ")))
	}
	if n := len(r.Restored); n > 0 {
		parts = append(parts, fmt.Sprintf("kept %d %s active that one machine archived and the other edited", n, plural(n, "entry", "entries")))
	}
	if r.Attempts > 1 {
		parts = append(parts, fmt.Sprintf("pushed on try %d", r.Attempts))
	}
	line := strings.Join(parts, ", ")
	switch {
	case r.InStep:
		line += "; in step with " + remoteName
	case len(r.HeldBack) > 0:
		line += fmt.Sprintf("; not in step: %d %s held back", len(r.HeldBack), plural(len(r.HeldBack), "file", "files"))
	case r.Waiting > 0:
		line += fmt.Sprintf("; not in step: %d more changed files wait for the next round", r.Waiting)
	default:
		line += "; not in step with " + remoteName
	}
	lines = append(lines, line)
	for _, h := range r.HeldBack {
		lines = append(lines, fmt.Sprintf("held back %s: %s", h.Path, h.Why))
	}
	return lines
}

// String is Lines joined.
func (r Report) String() string { return strings.Join(r.Lines(), "\n") }
