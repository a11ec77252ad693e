package gitsync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/memmerge"
)

// merged is what one merge of the remote's branch did.
type merged struct {
	received  int      // files the merge changed here
	both      int      // files both machines changed since they last met
	conflicts []string // siblings written for a clash the driver did not settle
	restored  []string // entries archived on one side and edited on the other, active again
	merge     bool     // a merge commit was made (not a fast-forward)
}

// mergeRemote merges the fetched remote branch into HEAD with the somni
// driver. It never leaves a conflict behind: a path git still reports
// unmerged (the driver failed, or a file that is not Markdown) keeps this
// machine's version and the remote's becomes a sibling beside it, and an
// entry one machine archived while the other edited it comes back active
// with the edit. Caller holds the store's write lock.
func (s *session) mergeRemote(ctx context.Context) (merged, error) {
	var m merged
	theirs, err := s.git.revParse(ctx, tracking)
	if err != nil || theirs == "" {
		return m, err
	}
	ours, err := s.git.revParse(ctx, "HEAD")
	if err != nil {
		return m, err
	}
	if ours != "" && s.isAncestor(ctx, theirs, ours) {
		return m, nil // nothing new from the remote
	}
	base := ""
	if ours != "" {
		if out, err := s.git.runCode(ctx, "merge-base", ours, theirs); err != nil {
			return m, err
		} else if out.code == 0 {
			base = strings.TrimSpace(string(out.stdout))
		}
	}
	plan, both, err := s.planArchives(ctx, base, ours, theirs)
	if err != nil {
		return m, err
	}
	m.both = both
	c, err := s.git.runCode(ctx, "merge", "--no-commit", "--allow-unrelated-histories", "--no-verify", "--no-edit",
		"-m", "somni: merge what "+remoteName+" holds", tracking)
	if err != nil {
		return m, err
	}
	unmerged, err := s.git.unmergedPaths(ctx)
	if err != nil {
		return m, err
	}
	if c.code != 0 && len(unmerged) == 0 {
		return m, s.mergeRefused(c)
	}
	if m.conflicts, err = s.settle(ctx, unmerged); err != nil {
		return m, err
	}
	if m.restored, err = s.restoreEdited(ctx, plan); err != nil {
		return m, err
	}
	// The driver writes a sibling into the work tree itself; the round's
	// next record commits it.
	untracked, err := s.git.run(ctx, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return m, err
	}
	for _, p := range splitZ(untracked) {
		if strings.Contains(p, "-conflict-") {
			m.conflicts = append(m.conflicts, p)
		}
	}
	if isFile(filepath.Join(s.dir, ".git", "MERGE_HEAD")) {
		if _, err := s.git.run(ctx, "commit", "-q", "--no-verify", "--no-edit"); err != nil {
			return m, err
		}
		m.merge = true
	}
	if ours == "" {
		m.received, err = s.countFiles(ctx, "HEAD")
	} else {
		m.received, err = s.changedFiles(ctx, ours, "HEAD")
	}
	return m, err
}

// mergeRefused says why git would not start the merge: almost always a
// file here that has not been recorded (one held back for a secret) which
// the other machine changed too.
func (s *session) mergeRefused(c *call) error {
	var files []string
	inList := false
	for _, l := range strings.Split(c.stderr, "\n") {
		switch {
		case strings.Contains(l, "would be overwritten by merge"):
			inList = true
		case inList && strings.HasPrefix(l, "\t"):
			files = append(files, strings.TrimSpace(l))
		default:
			inList = false
		}
	}
	if len(files) > 0 {
		return &Error{Kind: KindBlocked, Err: s.git.explain(c), Sentence: fmt.Sprintf(
			"the other machine changed %s, which has changes here that were not sent (held back for a secret?): remove the secret or undo the change there, then run sync again",
			strings.Join(files, ", "))}
	}
	return s.git.explain(c)
}

// unmergedPaths lists the paths the index holds in conflict, with the
// blob of each stage (1 base, 2 ours, 3 theirs).
func (r *repo) unmergedPaths(ctx context.Context) (map[string]map[int]string, error) {
	out, err := r.run(ctx, "ls-files", "-u", "-z")
	if err != nil {
		return nil, err
	}
	paths := map[string]map[int]string{}
	for _, rec := range splitZ(out) {
		// "<mode> <sha> <stage>\t<path>"
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || len(f[2]) != 1 {
			continue
		}
		if paths[p] == nil {
			paths[p] = map[int]string{}
		}
		paths[p][int(f[2][0]-'0')] = f[1]
	}
	return paths, nil
}

// settle resolves every path git left unmerged, edit over deletion and both
// texts kept on a clash, and stages the result.
func (s *session) settle(ctx context.Context, unmerged map[string]map[int]string) ([]string, error) {
	var conflicts []string
	for p, st := range unmerged {
		ours, theirs := st[2], st[3]
		var err error
		switch {
		case ours != "" && theirs != "":
			var sib string
			if sib, err = s.keepBoth(ctx, p, st[1], ours, theirs); err == nil && sib != "" {
				conflicts = append(conflicts, sib)
			}
		case ours != "":
			err = s.putBlob(ctx, p, ours) // edited here, deleted or moved there
		case theirs != "":
			err = s.putBlob(ctx, p, theirs) // edited there, deleted or moved here
		default:
			_, err = s.git.run(ctx, "rm", "-q", "--cached", "--ignore-unmatch", "--", p) // deleted on both
		}
		if err != nil {
			return conflicts, err
		}
	}
	return conflicts, nil
}

// keepBoth settles a path both sides changed that git left unmerged (the
// driver failed, or did not run: a file that is not Markdown). It merges
// the three versions as the driver would (memmerge.Merge); where even that
// fails, ours stays and theirs is written whole beside it. The sibling's
// path is returned ("" when the merge needed none).
func (s *session) keepBoth(ctx context.Context, p, base, ours, theirs string) (string, error) {
	sides := make([][]byte, 3)
	for i, blob := range []string{base, ours, theirs} {
		if blob == "" {
			continue
		}
		data, err := s.git.run(ctx, "cat-file", "blob", blob)
		if err != nil {
			return "", err
		}
		sides[i] = data
	}
	res, err := memmerge.Merge(p, sides[0], sides[1], sides[2])
	if err != nil {
		s.log.Warn("gitsync: a file both machines changed could not be merged; keeping both whole", "file", p, "err", err)
		res = memmerge.Result{Merged: sides[1], Sibling: &memmerge.Sibling{Path: SiblingPath(p, sides[2]), Data: sides[2]}}
	}
	if err := s.writeFile(p, res.Merged); err != nil {
		return "", err
	}
	if _, err := s.git.run(ctx, "add", "--", p); err != nil {
		return "", err
	}
	if res.Sibling == nil {
		return "", nil
	}
	if err := s.writeFile(res.Sibling.Path, res.Sibling.Data); err != nil {
		return "", err
	}
	if _, err := s.git.run(ctx, "add", "--", res.Sibling.Path); err != nil {
		return "", err
	}
	s.log.Warn("gitsync: both machines changed the same lines; kept both", "file", p, "other", res.Sibling.Path)
	return res.Sibling.Path, nil
}

// putBlob writes blob at p in the work tree and stages it there.
func (s *session) putBlob(ctx context.Context, p, blob string) error {
	data, err := s.git.run(ctx, "cat-file", "blob", blob)
	if err != nil {
		return err
	}
	if err := s.writeFile(p, data); err != nil {
		return err
	}
	_, err = s.git.run(ctx, "add", "--", p)
	return err
}

// writeFile writes a slash path of the work tree atomically.
func (s *session) writeFile(p string, data []byte) error {
	abs := filepath.Join(s.dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("gitsync: %w", err)
	}
	if err := writeAtomic(abs, data); err != nil {
		return fmt.Errorf("gitsync: write %s: %w", p, err)
	}
	return nil
}

// SiblingPath is where theirs goes when a file both machines changed cannot
// be merged even by memmerge (a file over its size bound): beside the file,
// named by the first 8 hex digits of theirs' SHA-256 as memmerge names its
// siblings, so two machines settling the same clash write the same file.
// An entry that is a folder (…/<name>/SKILL.md) gets a sibling folder.
func SiblingPath(p string, theirs []byte) string {
	sum := sha256.Sum256(theirs)
	tag := "-conflict-" + hex.EncodeToString(sum[:4])
	dir, file := path.Split(p)
	if isEntryFile(file) && dir != "" {
		return strings.TrimSuffix(dir, "/") + tag + "/" + file
	}
	ext := path.Ext(file)
	return dir + strings.TrimSuffix(file, ext) + tag + ext
}

// isEntryFile is the file that holds an entry folder's text.
func isEntryFile(name string) bool { return name == "SKILL.md" || name == "INTENT.md" }

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// isAncestor reports whether commit a is an ancestor of b (or b itself).
func (s *session) isAncestor(ctx context.Context, a, b string) bool {
	c, err := s.git.runCode(ctx, "merge-base", "--is-ancestor", a, b)
	return err == nil && c.code == 0
}

// changedFiles counts the files that differ between two commits.
func (s *session) changedFiles(ctx context.Context, from, to string) (int, error) {
	out, err := s.git.run(ctx, "diff", "--name-only", "-z", "--no-renames", from, to)
	if err != nil {
		return 0, err
	}
	return len(splitZ(out)), nil
}

// countFiles counts the files a commit holds.
func (s *session) countFiles(ctx context.Context, rev string) (int, error) {
	out, err := s.git.run(ctx, "ls-tree", "-r", "-z", "--name-only", rev)
	if err != nil {
		return 0, err
	}
	return len(splitZ(out)), nil
}

// bytesEqualTrim compares two texts ignoring trailing blank space.
func bytesEqualTrim(a, b []byte) bool {
	return bytes.Equal(bytes.TrimRight(a, " \t\r\n"), bytes.TrimRight(b, " \t\r\n"))
}
