package browse

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
	"github.com/somni-dev/somni/internal/textcut"
)

// file is a store file a wire path named.
type file struct {
	abs      string
	rel      string // as the tab names it (Store.Rel)
	kind     memory.Kind
	archived bool
}

// resolve turns a wire path (relative to the data directory, or to the memory
// or skill root when those live elsewhere) into the store file it names. It
// refuses, with ErrBadPath, anything absolute, anything that climbs out, and
// anything the store's layout does not place (a lock, the usage journal, a
// file outside memory/ and skills/). Links are the boundary's: every read and
// write after this goes through safefs, which refuses a link leading out.
func (b *Browser) resolve(rel string) (file, error) {
	if strings.HasPrefix(rel, TeamPrefix) {
		// Read answers these (readTeam); every other use is a change.
		return file{}, fmt.Errorf("%w: %q is a team pool's entry, read-only here: nothing writes a team pool but an approved share; change it in the team's repository", ErrBadPath, textcut.Clip(rel, 200, "…"))
	}
	clean, err := cleanRel(rel)
	if err != nil {
		return file{}, err
	}
	for _, root := range []string{b.store.DataDir(), b.store.MemoryDir(), b.store.SkillDir()} {
		p := filepath.Join(root, clean)
		if memory.CheckWithin(root, p) != nil {
			continue
		}
		if k, archived, ok := b.ed.Kind(p); ok {
			return file{abs: p, rel: b.store.Rel(p), kind: k, archived: archived}, nil
		}
	}
	return file{}, fmt.Errorf("%w: %q is not an entry, profile or log of this store", ErrBadPath, rel)
}

// cleanRel checks a relative wire path and cleans it: not empty, bounded,
// no control character, not absolute, not climbing out, a *.md file.
func cleanRel(rel string) (string, error) {
	switch {
	case strings.TrimSpace(rel) == "":
		return "", fmt.Errorf("%w: path is required", ErrBadPath)
	case len(rel) > MaxPathBytes:
		return "", fmt.Errorf("%w: path is %d bytes, over the %d-byte limit", ErrBadPath, len(rel), MaxPathBytes)
	case strings.IndexFunc(rel, unicode.IsControl) >= 0:
		return "", fmt.Errorf("%w: path %q holds a control character", ErrBadPath, rel)
	case filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || filepath.VolumeName(rel) != "":
		return "", fmt.Errorf("%w: %q is absolute; paths are relative to the data directory", ErrBadPath, rel)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %q leads outside the data directory", ErrBadPath, rel)
	}
	if filepath.Ext(clean) != ".md" {
		return "", fmt.Errorf("%w: %q is not a memory file (*.md)", ErrBadPath, rel)
	}
	return clean, nil
}

// entryFile is resolve for an entry a person may edit, pin or forget: the
// SKILL.md or INTENT.md of knowledge, a skill, an episode or an intention
// (identity files too when profiles is set).
func (b *Browser) entryFile(rel string, profiles bool) (file, error) {
	f, err := b.resolve(rel)
	if err != nil {
		return f, err
	}
	base := filepath.Base(f.abs)
	switch {
	case f.kind == memory.KindIdentity && profiles:
	case (f.kind == memory.KindKnowledge || f.kind == memory.KindSkill || f.kind == memory.KindEpisode) && base == "SKILL.md":
	case f.kind == memory.KindIntention && base == "INTENT.md":
	default:
		return f, fmt.Errorf("%w: %q is not an entry file that can be changed here", ErrBadPath, rel)
	}
	return f, nil
}

// fileErr says what went wrong reading or writing rel in words, as
// ErrBadPath for what the boundary refused or what is not there.
func fileErr(rel string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, safefs.ErrOutside):
		return fmt.Errorf("%w: %s leads outside the data directory (a link out); refused", ErrBadPath, rel)
	case errors.Is(err, safefs.ErrSymlink):
		return fmt.Errorf("%w: %s is a symbolic link; somni never writes through links", ErrBadPath, rel)
	case safefs.IsRefusal(err):
		return fmt.Errorf("%w: %s refused: %v", ErrBadPath, rel, err)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, memory.ErrNotFound):
		return fmt.Errorf("%w: %s: no such file", ErrBadPath, rel)
	}
	return fmt.Errorf("browse: %s: %w", rel, err)
}
