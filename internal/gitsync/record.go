package gitsync

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/somni-dev/somni/internal/redact"
)

const (
	// maxScanFiles bounds the changed files one round records (and so scans
	// for secrets); the rest wait for the next round, which says so. A first
	// sync of a 10k-entry memory fits in one round.
	maxScanFiles = 20000
	// maxScanBytes is the largest file a round scans and sends: four times
	// the store's own bound on an entry (memory.MaxEntryBytes). A larger one
	// is no memory somni wrote, and is held back rather than sent unscanned.
	maxScanBytes = 4 << 20
)

// HeldBack is a changed file a round did not send, and why.
type HeldBack struct {
	Path string // relative to the data dir, slash-separated
	Why  string
}

// staged is one change `git add` staged: its path and the blob it would
// commit ("" for a deletion).
type staged struct {
	path, blob string
	added      bool // new to the index, not a change of a tracked file
}

// record commits the work tree's changes as one commit, except files that
// hold a secret (the scan capture uses, package redact) or that are too
// large to scan: those are unstaged, so a tracked one keeps its last clean
// version in the commit, and named in the returned list. What is scanned is
// the staged blob itself, the bytes the commit holds, not a re-read file
// that could have changed in between.
func (s *session) record(ctx context.Context, why string) (committed int, held []HeldBack, more int, err error) {
	if _, err := s.git.run(ctx, "add", "-A"); err != nil {
		return 0, nil, 0, err
	}
	changes, err := s.stagedChanges(ctx)
	if err != nil {
		return 0, nil, 0, err
	}
	var hold []staged
	if len(changes) > maxScanFiles {
		more = len(changes) - maxScanFiles
		hold = append(hold, changes[maxScanFiles:]...)
		changes = changes[:maxScanFiles]
	}
	blobs := make([]string, len(changes))
	for i, c := range changes {
		blobs[i] = c.blob
	}
	bad, err := s.scan(ctx, blobs)
	if err != nil {
		return 0, nil, 0, err
	}
	for _, c := range changes {
		if why, ok := bad[c.blob]; ok && c.blob != "" {
			held = append(held, HeldBack{Path: c.path, Why: why})
			hold = append(hold, c)
		}
	}
	if err := s.unstage(ctx, hold); err != nil {
		return 0, nil, 0, err
	}
	committed = len(changes) - len(held)
	if committed == 0 {
		return 0, held, more, nil
	}
	msg := fmt.Sprintf("somni: %s (%d %s)", why, committed, plural(committed, "file", "files"))
	if _, err := s.git.run(ctx, "commit", "-q", "--no-verify", "-m", msg); err != nil {
		return 0, held, more, err
	}
	return committed, held, more, nil
}

// stagedChanges lists what the index holds that HEAD does not.
func (s *session) stagedChanges(ctx context.Context) ([]staged, error) {
	args := []string{"diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev"}
	head, err := s.git.revParse(ctx, "HEAD")
	if err != nil {
		return nil, err
	}
	if head == "" {
		// No commit yet: every staged file is new; the empty tree stands for HEAD.
		args = append(args, emptyTree)
	}
	out, err := s.git.run(ctx, args...)
	if err != nil {
		return nil, err
	}
	return parseRaw(out), nil
}

// emptyTree is git's id of the tree with nothing in it.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// parseRaw reads `git diff --raw -z --no-renames`: ":m1 m2 sha1 sha2 S\0path\0".
func parseRaw(out []byte) []staged {
	f := splitZ(out)
	var list []staged
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		if len(meta) < 5 {
			continue
		}
		c := staged{path: f[i+1], added: meta[4] == "A"}
		if meta[4] != "D" {
			c.blob = meta[3]
		}
		list = append(list, c)
	}
	return list
}

// scan reads blobs through one `git cat-file --batch` and returns, by
// blob, why each one that must not leave the machine must not. Objects that
// are not blobs (a push's commits and trees) are read past; blobs found
// clean are remembered for the rest of the session, so a round's push does
// not scan again what its commit did.
func (s *session) scan(ctx context.Context, ids []string) (map[string]string, error) {
	var in bytes.Buffer
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" && !seen[id] && !s.clean[id] {
			seen[id] = true
			in.WriteString(id + "\n")
		}
	}
	bad := map[string]string{}
	if in.Len() == 0 {
		return bad, nil
	}
	err := s.git.stream(ctx, &in, func(out io.Reader) error {
		return readBatch(bufio.NewReaderSize(out, 64<<10), func(id, typ string, body []byte) {
			switch {
			case typ != "blob":
			case body == nil:
				bad[id] = fmt.Sprintf("it is larger than %d MiB, too large to scan for secrets: move it out of the data dir or list it in .gitignore", maxScanBytes>>20)
			default:
				if _, n := redact.TextCount(string(body)); n > 0 {
					bad[id] = fmt.Sprintf("it holds %d %s that capture would have redacted: take %s out and run sync again",
						n, plural(n, "secret", "secrets"), plural(n, "it", "them"))
				} else {
					s.clean[id] = true
				}
			}
		})
	}, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	return bad, nil
}

// readBatch reads `git cat-file --batch` answers ("<id> <type> <size>\n"
// then the body and a newline) and hands each object to fn; a body past
// maxScanBytes is skipped and handed over as nil.
func readBatch(r *bufio.Reader, fn func(id, typ string, body []byte)) error {
	for {
		head, err := r.ReadString('\n')
		if err == io.EOF && head == "" {
			return nil
		}
		if err != nil {
			return err
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			return fmt.Errorf("unexpected cat-file line %q", strings.TrimSpace(head))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("unexpected cat-file size %q", f[2])
		}
		var body []byte
		if size <= maxScanBytes {
			body = make([]byte, size)
			if _, err := io.ReadFull(r, body); err != nil {
				return err
			}
		} else if _, err := io.CopyN(io.Discard, r, size); err != nil {
			return err
		}
		if _, err := r.Discard(1); err != nil {
			return err
		}
		fn(f[0], f[1], body)
	}
}

// guardOutgoing scans every blob the push would send that this session
// has not scanned already: a commit a person made by hand in the data dir
// passes the same check as a round's own, and the remote's history never
// holds a secret.
func (s *session) guardOutgoing(ctx context.Context) error {
	args := []string{"rev-list", "--objects", "HEAD"}
	if theirs, err := s.git.revParse(ctx, tracking); err != nil {
		return err
	} else if theirs != "" {
		args = append(args, "--not", theirs)
	}
	out, err := s.git.run(ctx, args...)
	if err != nil {
		return err
	}
	var ids []string
	where := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		id, p, _ := strings.Cut(l, " ")
		if id != "" {
			ids = append(ids, id)
			if p != "" {
				where[id] = p
			}
		}
	}
	bad, err := s.scan(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if why, ok := bad[id]; ok {
			return &Error{Kind: KindBlocked, Sentence: fmt.Sprintf(
				"%s in a commit waiting to be sent (made by hand?) must not leave this machine, %s; take it out of that commit (git -C %s rebase -i, or commit --amend), then run sync again",
				where[id], strings.TrimPrefix(why, "it "), s.dir)}
		}
	}
	return nil
}

// unstage takes changes back out of the index: a new file becomes
// untracked again, a changed one returns to HEAD's version.
func (s *session) unstage(ctx context.Context, changes []staged) error {
	var added, changed []string
	for _, c := range changes {
		if c.added {
			added = append(added, c.path)
		} else {
			changed = append(changed, c.path)
		}
	}
	if len(added) > 0 {
		if _, err := s.git.runIn(ctx, zList(added), "rm", "-q", "--cached", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return err
		}
	}
	if len(changed) > 0 {
		if _, err := s.git.runIn(ctx, zList(changed), "reset", "-q", "HEAD", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return err
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
