package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/safefs"
)

// Audit lists what the boundary refuses in the memory and skill roots: links
// that lead out of them (or are absolute), non-regular files named *.md
// (FIFOs, devices, sockets) and *.md files over the read limit. Every other
// reader skips these silently after one warning; doctor shows them.
func (s *Store) Audit(ctx context.Context) ([]Problem, error) {
	var out []Problem
	for _, root := range []string{s.dirs.memory, s.dirs.skills} {
		err := s.fs.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root && errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				out = append(out, Problem{Path: p, Reason: "unreadable: " + err.Error()})
				return nil
			}
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			switch t := d.Type(); {
			case t&fs.ModeSymlink != 0:
				if _, serr := s.fs.Stat(p); serr != nil && !errors.Is(serr, fs.ErrNotExist) {
					out = append(out, Problem{Path: p, Reason: "refused: " + refusal(serr), Refused: true})
				}
			case d.IsDir():
			case !strings.HasSuffix(d.Name(), ".md") || safefs.IsTempName(d.Name()):
			case !t.IsRegular():
				out = append(out, Problem{Path: p, Reason: fmt.Sprintf("refused: %s (%s)", safefs.ErrNotRegular, t), Refused: true})
			default:
				if info, ierr := d.Info(); ierr == nil && info.Size() > s.limitFor(p) {
					out = append(out, Problem{Path: p, Reason: fmt.Sprintf("refused: %d bytes is over the %d-byte limit; it is neither read nor rewritten", info.Size(), s.limitFor(p)), Refused: true})
				}
			}
			return nil
		})
		if err != nil {
			return out, fmt.Errorf("memory: audit %s: %w", root, err)
		}
	}
	return out, nil
}

// limitFor is the read bound of a file: session logs may be larger than entries.
func (s *Store) limitFor(p string) int64 {
	if kind, _, _, ok := s.dirs.classify(p); ok && kind == KindSessionLog {
		return MaxLogBytes
	}
	return MaxEntryBytes
}

func refusal(err error) string {
	switch {
	case errors.Is(err, safefs.ErrOutside):
		return "a link that leads outside the data directory (links must be relative and stay inside)"
	case errors.Is(err, safefs.ErrNotRegular):
		return "a link to something that is not a regular file"
	}
	return err.Error()
}

// CheckFile reads a store file through the boundary and parses it: nil when
// it is missing or fine.
func (s *Store) CheckFile(p string) error {
	data, err := s.fs.ReadFile(p, s.limitFor(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = frontmatter.Parse(p, data)
	return err
}

// Incomplete says what an entry lacks of name, description and body ("" when nothing).
func (e *Entry) Incomplete() string {
	var miss []string
	if strings.TrimSpace(e.Meta.Value(KeyName)) == "" {
		miss = append(miss, "name")
	}
	if strings.TrimSpace(e.Meta.Value(KeyDescription)) == "" {
		miss = append(miss, "description")
	}
	if strings.TrimSpace(e.Body) == "" && e.Kind != KindEpisode && e.Kind != KindIntention {
		miss = append(miss, "body")
	}
	return strings.Join(miss, ", ")
}
