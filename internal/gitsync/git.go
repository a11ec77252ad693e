package gitsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

const (
	// callTimeout bounds a git call that only touches this machine (status,
	// add, commit, merge). A merge of a 10k-entry remote into an empty data
	// dir writes 10k files: seconds, not minutes; a call still running after
	// this is hung (a hook, a full disk, a lock held by a stopped process).
	callTimeout = 2 * time.Minute
	// netTimeout bounds a fetch or a push: the first fetch of a large memory
	// over a slow link may take minutes, and a remote that stopped answering
	// must not hold a round (and the store's writers) forever.
	netTimeout = 10 * time.Minute
	// waitDelay is how long a cancelled git gets to exit after the interrupt
	// (git removes its own lock files on SIGINT) before it is killed.
	waitDelay = 5 * time.Second
	// branch is the one branch sync reads and writes on the remote.
	branch = "main"
	// remoteName is the remote sync configures and fetches.
	remoteName = "origin"
	// tracking is this machine's copy of the remote's branch after a fetch.
	tracking = "refs/remotes/" + remoteName + "/" + branch
)

// gitEnv is added to every git call's environment. GIT_TERMINAL_PROMPT=0: a
// missing credential fails at once instead of waiting for a person who is
// not at a terminal (the sidecar syncs by itself). LC_ALL=C: git's messages
// are read to tell what went wrong. Literal pathspecs: entry names are data,
// a "*" or "[" in one is not a pattern.
var gitEnv = []string{
	"GIT_TERMINAL_PROMPT=0",
	"LC_ALL=C",
	"LANGUAGE=",
	"GIT_LITERAL_PATHSPECS=1",
	"GIT_MERGE_AUTOEDIT=no",
}

// gitEnvDrop are variables of the caller's environment that would point git
// at another repository or index than the data dir's (set when sync runs
// from inside a git hook, say).
var gitEnvDrop = map[string]bool{"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_COMMON_DIR": true,
	"GIT_NAMESPACE": true, "GIT_PREFIX": true}

// repo is one data directory's git repository.
type repo struct {
	dir    string // the data dir, absolute: the work tree
	remote string // origin's URL without credentials (shownRemote), for messages; "" until read
	author string // "somni on <host>"
	email  string
}

// call is one git invocation's outcome.
type call struct {
	args   []string
	stdout []byte
	stderr string
	code   int // git's exit status; -1 when it did not run to an exit
}

// run runs git with args in the data dir under a timeout from ctx and
// returns its output; a non-zero exit is an error carrying git's words
// (see explain), so callers that expect one use runCode instead.
func (r *repo) run(ctx context.Context, args ...string) ([]byte, error) {
	return r.runIn(ctx, nil, args...)
}

// runIn is run with stdin.
func (r *repo) runIn(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	c, err := r.exec(ctx, stdin, args...)
	if err != nil {
		return nil, err
	}
	if c.code != 0 {
		return c.stdout, r.explain(c)
	}
	return c.stdout, nil
}

// runCode runs git and returns the call whatever its exit status; the error
// is only for git not running at all (missing, timed out, cancelled).
func (r *repo) runCode(ctx context.Context, args ...string) (*call, error) {
	return r.exec(ctx, nil, args...)
}

func (r *repo) exec(ctx context.Context, stdin []byte, args ...string) (*call, error) {
	ctx, cancel, timeout := withTimeout(ctx, args)
	defer cancel()
	cmd := r.command(ctx, args)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limitedWriter{w: &errb, n: maxStderr}
	err := cmd.Run()
	c := &call{args: args, stdout: out.Bytes(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, exec.ErrNotFound):
		return nil, missingGit(err)
	case ctx.Err() != nil:
		return nil, timedOut(args, timeout, ctx.Err())
	case errors.As(err, &ee) && ee.Exited():
		c.code = ee.ExitCode()
		return c, nil
	default:
		return nil, fmt.Errorf("gitsync: git %s: %w", strings.Join(args, " "), err)
	}
}

// stream runs git with stdin and hands its stdout to read as it comes (a
// cat-file --batch over thousands of blobs is not held in memory whole).
func (r *repo) stream(ctx context.Context, stdin io.Reader, read func(io.Reader) error, args ...string) error {
	ctx, cancel, timeout := withTimeout(ctx, args)
	defer cancel()
	cmd := r.command(ctx, args)
	cmd.Stdin = stdin
	var errb bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &errb, n: maxStderr}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("gitsync: git %s: %w", firstArg(args), err)
	}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return missingGit(err)
		}
		return fmt.Errorf("gitsync: git %s: %w", firstArg(args), err)
	}
	rerr := read(out)
	if rerr != nil {
		// Stop git rather than wait for it to fill a pipe no one reads.
		cancel()
	}
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil && rerr == nil:
		return timedOut(args, timeout, ctx.Err())
	case rerr != nil:
		return fmt.Errorf("gitsync: read git %s: %w", firstArg(args), rerr)
	case werr != nil:
		return r.explain(&call{args: args, stderr: errb.String(), code: 1})
	}
	return nil
}

// withTimeout bounds one git call: a fetch or push by netTimeout, any other
// by callTimeout.
func withTimeout(ctx context.Context, args []string) (context.Context, context.CancelFunc, time.Duration) {
	timeout := callTimeout
	if len(args) > 0 && (args[0] == "fetch" || args[0] == "push" || args[0] == "ls-remote") {
		timeout = netTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, cancel, timeout
}

// command is git with args in the data dir, with sync's environment.
func (r *repo) command(ctx context.Context, args []string) *exec.Cmd {
	full := append([]string{"-C", r.dir, "-c", "core.quotepath=false", "-c", "color.ui=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	// cmd.Environ is the process's environment as exec would pass it: the
	// user's HOME, ssh agent socket and credential helpers' variables reach
	// git unchanged; only ours are added and repository pointers cleared.
	var env []string
	for _, kv := range cmd.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !gitEnvDrop[k] {
			env = append(env, kv)
		}
	}
	env = append(env, gitEnv...)
	if r.author != "" {
		env = append(env, "GIT_AUTHOR_NAME="+r.author, "GIT_COMMITTER_NAME="+r.author,
			"GIT_AUTHOR_EMAIL="+r.email, "GIT_COMMITTER_EMAIL="+r.email)
	}
	cmd.Env = env
	detach(cmd)
	cmd.WaitDelay = waitDelay
	return cmd
}

// maxStderr bounds what is kept of git's stderr: enough for the lines that
// say what went wrong, not a megabyte of progress.
const maxStderr = 64 << 10

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		_, _ = l.w.Write(p[:k])
	}
	return len(p), nil
}

// splitZ splits NUL-terminated output (the -z forms: paths verbatim,
// whatever bytes they hold).
func splitZ(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}

// zList is paths as --pathspec-from-file reads them with --pathspec-file-nul.
func zList(paths []string) []byte {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// revParse returns the commit a revision names, "" when it names none.
func (r *repo) revParse(ctx context.Context, rev string) (string, error) {
	c, err := r.runCode(ctx, "rev-parse", "-q", "--verify", rev+"^{commit}")
	if err != nil {
		return "", err
	}
	if c.code != 0 {
		return "", nil
	}
	return strings.TrimSpace(string(c.stdout)), nil
}

// count is `git rev-list --count a..b`, 0 when either end is missing.
func (r *repo) count(ctx context.Context, from, to string) (int, error) {
	if from == "" || to == "" {
		if to == "" {
			return 0, nil
		}
		out, err := r.run(ctx, "rev-list", "--count", to)
		return atoiTrim(out), err
	}
	out, err := r.run(ctx, "rev-list", "--count", from+".."+to)
	return atoiTrim(out), err
}

func atoiTrim(b []byte) int {
	n := 0
	for _, c := range strings.TrimSpace(string(b)) {
		if c < '0' || c > '9' {
			return n
		}
		n = n*10 + int(c-'0')
	}
	return n
}
