package gitsync

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// restore is an entry one machine archived (moved under an archived/
// folder) while the other edited it: the edit wins, at the active path.
type restore struct{ active, archived string }

type archivePlan []restore

// change is one line of `git diff --name-status -M`.
type change struct {
	status   byte // A, D, M, R, C, T
	from, to string
}

// diffStatus lists what changed from a to b, renames found.
func (s *session) diffStatus(ctx context.Context, a, b string) ([]change, error) {
	out, err := s.git.run(ctx, "diff", "--name-status", "-z", "-M", "--no-ext-diff", a, b)
	if err != nil {
		return nil, err
	}
	f := splitZ(out)
	var list []change
	for i := 0; i < len(f); {
		st := f[i]
		if st == "" {
			i++
			continue
		}
		c := change{status: st[0]}
		if (c.status == 'R' || c.status == 'C') && i+2 < len(f) {
			c.from, c.to = f[i+1], f[i+2]
			i += 3
		} else if i+1 < len(f) {
			c.from, c.to = f[i+1], f[i+1]
			i += 2
		} else {
			break
		}
		list = append(list, c)
	}
	return list, nil
}

// planArchives finds, before the merge, the entries one side archived and
// the other edited since base, and counts the files both sides changed.
func (s *session) planArchives(ctx context.Context, base, ours, theirs string) (archivePlan, int, error) {
	if base == "" || ours == "" {
		return nil, 0, nil
	}
	ourChanges, err := s.diffStatus(ctx, base, ours)
	if err != nil {
		return nil, 0, err
	}
	theirChanges, err := s.diffStatus(ctx, base, theirs)
	if err != nil {
		return nil, 0, err
	}
	touched := map[string]bool{}
	for _, c := range ourChanges {
		touched[c.from] = true
	}
	both := 0
	for _, c := range theirChanges {
		if touched[c.from] && c.status != 'R' {
			both++
		}
	}
	var plan archivePlan
	for _, side := range []struct {
		moves []change
		edits []change
		rev   string
	}{{ourChanges, theirChanges, theirs}, {theirChanges, ourChanges, ours}} {
		edited := map[string]bool{}
		for _, c := range side.edits {
			if c.status == 'M' {
				edited[c.from] = true
			}
		}
		for _, mv := range archiveMoves(side.moves) {
			if edited[mv.active] && s.isEdit(ctx, base, side.rev, mv.active) {
				plan = append(plan, mv)
			}
		}
	}
	return plan, both, nil
}

// archiveMoves are a side's moves of an active file under an archived/
// folder: renames git found, and a deletion paired with an addition of the
// same entry's file (an archive that also rewrote enough of the file that
// git no longer calls it a rename).
func archiveMoves(changes []change) []restore {
	var out []restore
	added := map[string][]string{} // entry key → archived paths added
	for _, c := range changes {
		if c.status == 'R' && !isArchived(c.from) && isArchived(c.to) {
			out = append(out, restore{active: c.from, archived: c.to})
		}
		if c.status == 'A' && isArchived(c.to) {
			k := entryKey(c.to)
			added[k] = append(added[k], c.to)
		}
	}
	for _, c := range changes {
		if c.status == 'D' && !isArchived(c.from) {
			if to := added[entryKey(c.from)]; len(to) == 1 {
				out = append(out, restore{active: c.from, archived: to[0]})
			}
		}
	}
	return out
}

// isArchived reports whether a slash path lies under an archived/ folder.
func isArchived(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == "archived" {
			return true
		}
	}
	return false
}

// entryKey names the entry a file belongs to the same way at its active and
// archived places: the entry folder's name (without a -2, -3 … an archive
// move added) and the file's name.
func entryKey(p string) string {
	dir, file := path.Split(p)
	if isEntryFile(file) {
		return trimFreeSuffix(path.Base(strings.TrimSuffix(dir, "/"))) + "/" + file
	}
	ext := path.Ext(file)
	return trimFreeSuffix(strings.TrimSuffix(file, ext)) + ext
}

// trimFreeSuffix drops the -2, -3 … memory.MoveToFreeName adds to an
// archived name that was taken.
func trimFreeSuffix(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}

// lifecycleKeys change when an entry is recalled or decays, on every
// machine, without anyone editing it: a change of only these is no edit
// and does not bring an archived entry back.
var lifecycleKeys = map[string]bool{memory.KeyScore: true, memory.KeyStability: true,
	memory.KeyLastUsed: true, memory.KeyLastDecay: true}

// isEdit reports whether p at rev differs from p at base in more than its
// lifecycle numbers.
func (s *session) isEdit(ctx context.Context, base, rev, p string) bool {
	a, err1 := s.git.run(ctx, "cat-file", "blob", base+":"+p)
	b, err2 := s.git.run(ctx, "cat-file", "blob", rev+":"+p)
	if err1 != nil || err2 != nil {
		return true // cannot tell: keeping the edit loses nothing
	}
	da, e1 := frontmatter.Parse(p, a)
	db, e2 := frontmatter.Parse(p, b)
	if e1 != nil || e2 != nil || !da.HasFrontMatter || !db.HasFrontMatter {
		return !bytesEqualTrim(a, b)
	}
	if !bytesEqualTrim([]byte(da.Body), []byte(db.Body)) {
		return true
	}
	keys := map[string]bool{}
	for _, k := range append(da.Meta.Keys(), db.Meta.Keys()...) {
		keys[k] = true
	}
	for k := range keys {
		if lifecycleKeys[k] {
			continue
		}
		va, oka := da.Meta.Get(k)
		vb, okb := db.Meta.Get(k)
		if oka != okb || va != vb {
			return true
		}
	}
	return false
}

// restoreEdited puts each planned entry back at its active path, holding
// the merged text (the edit included), and drops its archived copy.
func (s *session) restoreEdited(ctx context.Context, plan archivePlan) ([]string, error) {
	var done []string
	for _, r := range plan {
		active := filepath.Join(s.dir, filepath.FromSlash(r.active))
		archived := filepath.Join(s.dir, filepath.FromSlash(r.archived))
		switch {
		case isFile(archived) && !exists(active):
			// git mv makes no folders: the entry's own is gone with the archive.
			if err := os.MkdirAll(filepath.Dir(active), 0o755); err != nil {
				return done, fmt.Errorf("gitsync: %w", err)
			}
			if _, err := s.git.run(ctx, "mv", "-f", "--", r.archived, r.active); err != nil {
				return done, err
			}
			_ = os.Remove(filepath.Dir(archived)) // the archive's folder, when the entry was its only file
		case isFile(archived):
			if _, err := s.git.run(ctx, "rm", "-q", "-f", "--", r.archived); err != nil {
				return done, err
			}
		default:
			continue
		}
		s.log.Info("gitsync: an entry archived on one machine and edited on the other stays active with the edit",
			"file", r.active, "archived_copy", r.archived)
		done = append(done, r.active)
	}
	return done, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
