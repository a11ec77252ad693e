package memmerge

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// mergeBody merges the bodies three ways; clean is false when both sides
// changed the same lines, and the body is then ours.
func mergeBody(base, ours, theirs string) (body string, clean bool, err error) {
	switch {
	case ours == theirs, theirs == base:
		return ours, true, nil
	case ours == base:
		return theirs, true, nil
	}
	b, o, t, crlf := agreeLineEnds(base, ours, theirs)
	merged, clean, err := gitMergeFile(b, o, t)
	if err != nil || !clean {
		return ours, false, err
	}
	if markerLines(merged) > markerLines(o)+markerLines(t) {
		// git said clean yet wrote a marker of its own: never let one out.
		return ours, false, nil
	}
	if crlf {
		merged = strings.ReplaceAll(merged, "\n", "\r\n")
	}
	return merged, true, nil
}

// agreeLineEnds gives git three texts with one kind of line end: a file
// saved with CRLF on one machine and LF on the other differs on every line,
// which a line merge takes for a conflict everywhere. When the sides
// disagree all become LF, and crlf says whether ours, whose line ends the
// result keeps, had CRLF.
func agreeLineEnds(base, ours, theirs string) (b, o, t string, crlf bool) {
	hasCRLF := func(s string) bool { return strings.Contains(s, "\r\n") }
	if hasCRLF(ours) == hasCRLF(theirs) && (base == "" || hasCRLF(base) == hasCRLF(ours)) {
		return base, ours, theirs, false
	}
	lf := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
	return lf(base), lf(ours), lf(theirs), hasCRLF(ours)
}

// markerLines counts the lines that start like a conflict marker of git's.
func markerLines(s string) int {
	n := 0
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, "<<<<<<<") || strings.HasPrefix(line, ">>>>>>>") || strings.HasPrefix(line, "|||||||") {
			n++
		}
	}
	return n
}

// gitMergeFile runs `git merge-file -p ours base theirs` on temp copies.
// git's exit status is the number of conflicts (at most 127), or negative
// (255) when it could not merge; its output is used only when it is 0, so
// the markers of a conflicted merge are never read.
func gitMergeFile(base, ours, theirs string) (merged string, clean bool, err error) {
	dir, err := os.MkdirTemp("", "somni-merge-")
	if err != nil {
		return "", false, fmt.Errorf("body merge: %w", err)
	}
	defer os.RemoveAll(dir)
	paths := make([]string, 3)
	for i, side := range []struct{ name, text string }{{"ours", ours}, {"base", base}, {"theirs", theirs}} {
		paths[i] = filepath.Join(dir, side.name)
		if err := os.WriteFile(paths[i], []byte(side.text), 0o600); err != nil {
			return "", false, fmt.Errorf("body merge: %w", err)
		}
	}
	var out, stderr bytes.Buffer
	cmd := exec.Command("git", append([]string{"merge-file", "-p"}, paths...)...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), true, nil
	case errors.As(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() <= 127:
		return "", false, nil
	}
	return "", false, fmt.Errorf("body merge: git merge-file: %w: %s", err, strings.TrimSpace(stderr.String()))
}
