package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrUnsafeName is wrapped by every refusal of a name or id that could leave its directory.
var ErrUnsafeName = errors.New("unsafe name")

// maxNameBytes keeps directory names well under common file-system limits (255 bytes).
const maxNameBytes = 120

// SafeName validates an externally supplied name and returns the directory name to use for it.
//
// It refuses empty names, `.` and `..`, path separators, absolute paths, NUL and other control
// characters that suggest an attack rather than a typo. Other names are made safe: runs of whitespace and
// characters that are unsafe on common file systems become `-`, leading dots are dropped (hidden files are
// ignored by scans), and the result is cut to 120 bytes. Letters of every script, CJK included, are kept.
func SafeName(name string) (string, error) {
	n := strings.TrimSpace(name)
	switch {
	case n == "":
		return "", fmt.Errorf("%w: empty name", ErrUnsafeName)
	case !utf8.ValidString(n):
		return "", fmt.Errorf("%w: %q is not valid UTF-8", ErrUnsafeName, name)
	case strings.ContainsRune(n, 0):
		return "", fmt.Errorf("%w: %q contains NUL", ErrUnsafeName, name)
	case n == "." || n == "..":
		return "", fmt.Errorf("%w: %q is a relative directory reference", ErrUnsafeName, name)
	case strings.ContainsAny(n, `/\`):
		return "", fmt.Errorf("%w: %q contains a path separator", ErrUnsafeName, name)
	case filepath.IsAbs(n) || filepath.VolumeName(n) != "":
		return "", fmt.Errorf("%w: %q is an absolute path", ErrUnsafeName, name)
	}
	var b strings.Builder
	b.Grow(len(n))
	dash := false
	for _, r := range n {
		ok := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || r == '.' || r == '-' || r == '+' || r == '@' || r == '(' || r == ')'
		if !ok {
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		b.WriteRune(r)
		dash = r == '-'
	}
	out := strings.TrimRight(strings.TrimLeft(b.String(), ".-"), "-")
	if len(out) > maxNameBytes {
		cut := maxNameBytes
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = strings.TrimRight(out[:cut], "-.")
	}
	if out == "" || out == "." || out == ".." {
		return "", fmt.Errorf("%w: %q has no usable characters", ErrUnsafeName, name)
	}
	return out, nil
}

// entryDirName is SafeName for the directory of a knowledge, skill or episode entry: it also refuses
// "archived", which is each root's archive folder (scans skip it, so an entry there would be invisible,
// and an episode there would sit inside the episode archive). Compared case-insensitively for file
// systems that are.
func entryDirName(name string) (string, error) {
	dir, err := SafeName(name)
	if err != nil {
		return "", err
	}
	if strings.EqualFold(dir, "archived") {
		return "", fmt.Errorf("%w: %q is reserved for the archive folder", ErrUnsafeName, name)
	}
	return dir, nil
}

// within joins elems under root and verifies the result is root itself or strictly inside it.
func within(root string, elems ...string) (string, error) {
	p := filepath.Join(append([]string{root}, elems...)...)
	if err := checkWithin(root, p); err != nil {
		return "", err
	}
	return p, nil
}

// checkWithin returns an error unless path lies inside root (after cleaning both).
func checkWithin(root, path string) error {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%w: %s is outside %s", ErrUnsafeName, path, root)
	}
	return nil
}

// sameEntryName is the one rule for when two names denote the same knowledge, skill or episode entry: they
// are equal ignoring case, or their directory names (SafeName) are. Creation applies it on every file
// system, so a case-sensitive one (Linux) ends up with the same entries as a case-insensitive one (macOS,
// Windows), where POSTGRES-PORT and postgres-port could never be two directories anyway.
func sameEntryName(a, b string) bool {
	if strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) {
		return true
	}
	da, errA := SafeName(a)
	db, errB := SafeName(b)
	return errA == nil && errB == nil && strings.EqualFold(da, db)
}

// existingSpelling returns the directory in one of dirs that is the same entry name as name, spelled as it
// is on disk, or name itself when there is none; checking that spelling for existence makes a create find
// the existing entry instead of adding a case variant beside it. Existing directories, capitals and all,
// are never renamed.
func existingSpelling(name string, dirs ...string) string {
	for _, dir := range dirs {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return name
		}
	}
	for _, dir := range dirs {
		des, err := os.ReadDir(dir)
		if err != nil {
			continue // a root that does not exist yet holds no names
		}
		for _, de := range des {
			if sameEntryName(de.Name(), name) {
				return de.Name()
			}
		}
	}
	return name
}
