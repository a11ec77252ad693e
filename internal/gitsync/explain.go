package gitsync

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/textcut"
)

// Kind is what went wrong, for a caller that acts on it (the sidecar's
// automatic sync backs off from an unreachable remote, say).
type Kind int

const (
	KindOther          Kind = iota
	KindGitMissing          // no git on PATH
	KindNotInitialised      // the data dir has no sync set up
	KindUnreachable         // the remote could not be reached
	KindAuth                // the remote refused our credentials
	KindRejected            // the remote refused the push after every retry
	KindTimeout             // a git call ran past its bound
	KindBlocked             // the work tree is in a state a round cannot move past by itself
)

// Error is a failure said as one sentence a person can act on. Err keeps
// git's own words (or the cause) for logs and errors.Is.
type Error struct {
	Kind     Kind
	Sentence string
	Err      error
}

func (e *Error) Error() string { return e.Sentence }
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of a gitsync error, KindOther for any other.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindOther
}

// installHint is how to get git on this system.
func installHint() string {
	switch runtime.GOOS {
	case "darwin":
		return "brew install git (or xcode-select --install)"
	case "windows":
		return "winget install --id Git.Git -e"
	default:
		return "sudo apt install git (Debian, Ubuntu), sudo dnf install git (Fedora) or your system's package manager"
	}
}

func missingGit(err error) error {
	return &Error{Kind: KindGitMissing, Err: err,
		Sentence: "git is not installed (somni syncs memory with the git command): install it with " + installHint() + ", then run sync again"}
}

func timedOut(args []string, limit time.Duration, err error) error {
	op := "git"
	if len(args) > 0 {
		op += " " + args[0]
	}
	return &Error{Kind: KindTimeout, Err: err,
		Sentence: fmt.Sprintf("%s did not finish within %v and was stopped: check the network and the remote, then run sync again", op, limit)}
}

func notInitialised(dir string) error {
	return &Error{Kind: KindNotInitialised,
		Sentence: fmt.Sprintf("%s is not synced yet: run `somni-sidecar sync init REMOTE` first (REMOTE: any git URL or path)", dir)}
}

// signs are the phrases of git's, ssh's and curl's messages (LC_ALL=C) that
// tell one failure from another, checked in order: an authentication
// failure over ssh also says "Could not read from remote repository".
var signs = []struct {
	kind  Kind
	words []string
}{
	{KindAuth, []string{"Authentication failed", "Permission denied (publickey", "Permission denied, please try again",
		"could not read Username", "could not read Password", "terminal prompts disabled", "HTTP Basic: Access denied",
		"The requested URL returned error: 401", "The requested URL returned error: 403", "Invalid username or password",
		"Host key verification failed"}},
	{KindRejected, []string{"[rejected]", "[remote rejected]", "non-fast-forward", "fetch first", "failed to push some refs"}},
	{KindUnreachable, []string{"Could not resolve host", "Connection refused", "Connection timed out", "No route to host",
		"Network is unreachable", "does not appear to be a git repository", "Could not read from remote repository",
		"unable to access", "unable to connect", "unable to look up", "Repository not found", "not found",
		"The requested URL returned error", "ssh: connect to host", "Connection reset", "early EOF"}},
}

// explain turns a failed git call into one sentence with what to do.
func (r *repo) explain(c *call) error {
	cause := fmt.Errorf("git %s: exit %d: %s", strings.Join(c.args, " "), c.code, strings.TrimSpace(c.stderr))
	remote := r.remote
	if remote == "" {
		remote = "the remote"
	}
	kind := KindOther
	for _, s := range signs {
		for _, w := range s.words {
			if strings.Contains(c.stderr, w) {
				kind = s.kind
				break
			}
		}
		if kind != KindOther {
			break
		}
	}
	said := gitSaid(c.stderr)
	var sentence string
	switch kind {
	case KindAuth:
		if strings.Contains(c.stderr, "Host key verification failed") {
			sentence = fmt.Sprintf("the host key of %s is not known to ssh: connect once by hand (ssh to the host, or git ls-remote %s) to check and accept it, then run sync again", remote, remote)
		} else {
			sentence = fmt.Sprintf("%s refused authentication: load your ssh key into the agent (ssh-add) or store a token in your git credential helper, check it can read and write the repository, then run sync again", remote)
		}
	case KindRejected:
		sentence = fmt.Sprintf("%s rejected the push: run sync again (it fetches and merges first); if it keeps failing, check that the branch %s is not protected against pushes (git said: %s)", remote, branch, said)
	case KindUnreachable:
		sentence = fmt.Sprintf("cannot reach %s (git said: %s): check the address (`somni-sidecar sync init REMOTE` sets it again) and the network, then run sync again", remote, said)
	default:
		sentence = fmt.Sprintf("git %s failed (git said: %s): fix what git names, then run sync again", firstArg(c.args), said)
	}
	return &Error{Kind: kind, Sentence: sentence, Err: cause}
}

// maxSaid bounds the words of git's quoted in a sentence.
const maxSaid = 200

// gitSaid is the line of git's stderr that says most: its first "fatal:"
// or "error:" line, else its last non-empty line, on one line and bounded.
func gitSaid(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	pick := ""
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fatal:") || strings.HasPrefix(l, "error:") || strings.HasPrefix(l, "ssh:") {
			pick = l
			// "fatal: unable to connect to host:" says why on the next line
			if strings.HasSuffix(l, ":") && i+1 < len(lines) {
				pick += " " + strings.TrimSpace(lines[i+1])
			}
			break
		}
	}
	if pick == "" {
		for i := len(lines) - 1; i >= 0 && pick == ""; i-- {
			pick = strings.TrimSpace(lines[i])
		}
	}
	if pick == "" {
		return "nothing"
	}
	return strings.TrimRight(textcut.Clip(textcut.OneLine(pick), maxSaid, "…"), ".")
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
