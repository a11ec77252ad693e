package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// RestoreEntry puts an archived entry back among the active ones, the undo
// of ArchiveEntry for what the Memory tab forgets: archived knowledge
// returns to memory/knowledge, a learned skill to agent_learned_skills
// (the two share memory/archived; a knowledge type tells them apart), an
// episode to memory/episodes, each under its front-matter name. check is
// the caller's compare-and-swap on the bytes read under the write lock.
// It returns the restored file's path. An active entry already holding the
// name is never overwritten: the restore is refused and says so, as is an
// archive this cannot place (a hand-kept skill collection, an intention).
func (ed Editor) RestoreEntry(ctx context.Context, path string, check func(current []byte) error) (string, error) {
	s := ed.s
	unlock, err := s.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	e, err := s.Load(path)
	if err != nil {
		return "", err
	}
	if !e.Archived {
		return "", invalid("%s is not archived", s.Rel(e.Path))
	}
	if check != nil {
		if err := check(e.Raw()); err != nil {
			return "", err
		}
	}
	src := filepath.Dir(e.Path)
	var root string
	switch parent := filepath.Dir(src); {
	case parent == s.dirs.archive && slices.Contains(KnowledgeTypes, strings.ToLower(strings.TrimSpace(e.Type()))):
		root = s.dirs.knowledge
	case parent == s.dirs.archive:
		root = s.dirs.learned
	case parent == filepath.Join(s.dirs.episodes, "archived"):
		root = s.dirs.episodes
	default:
		return "", invalid("%s cannot be restored from where it is: move its folder back by hand", s.Rel(e.Path))
	}
	name, err := entryDirName(e.Name)
	if err != nil {
		return "", fmt.Errorf("memory: restore %s: %w", s.Rel(e.Path), err)
	}
	dest := filepath.Join(root, name)
	if _, err := s.fs.Lstat(dest); err == nil {
		return "", invalid("an active entry is already named %q (%s): rename or forget it first, then restore this one", name, s.Rel(dest))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("memory: restore %s: %w", s.Rel(e.Path), err)
	}
	if err := s.fs.Rename(src, dest); err != nil {
		return "", fmt.Errorf("memory: restore %s: %w", s.Rel(e.Path), err)
	}
	return filepath.Join(dest, filepath.Base(e.Path)), nil
}
