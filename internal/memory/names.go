package memory

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/safefs"
	"github.com/somni-dev/somni/internal/textcut"
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
		out = strings.TrimRight(textcut.ClipBytes(out, maxNameBytes, ""), "-.")
	}
	if out == "" || out == "." || out == ".." {
		return "", fmt.Errorf("%w: %q has no usable characters", ErrUnsafeName, name)
	}
	return out, nil
}

// NameWithoutSecrets is the one check of a name or id that is about to become a path, a file or folder
// name, a front-matter id or an index row: name with each secret package redact finds replaced by
// redact.Marker, and whether it held one. A marker already in name counts: it is a secret redacted
// earlier (a session log's `user:`), and every such id would be the same one.
func NameWithoutSecrets(name string) (string, bool) {
	red, n := redact.TextCount(name)
	return red, n > 0 || strings.Contains(name, redact.Marker)
}

// RefuseSecretName is NameWithoutSecrets where a name becomes a folder: a name holding a secret is
// refused rather than redacted. Redacted, every such name would be the same folder (`REDACTED`), so
// unrelated entries would meet as duplicates and different users share one profile; refused, the
// dreaming model that chose it picks a name that says what the entry is about, which is what a name
// is for. The error shows the name redacted: it goes back to the model and into logs.
func RefuseSecretName(what, name string) error {
	if red, secret := NameWithoutSecrets(name); secret {
		return fmt.Errorf("%w: the %s %q holds a secret (shown redacted) and would be written into a path; "+
			"choose one that says what it is about, without the secret", ErrUnsafeName, what, red)
	}
	return nil
}

// entryDirName is SafeName for the directory of a knowledge, skill or episode entry: it also refuses
// "archived", which is each root's archive folder (scans skip it, so an entry there would be invisible,
// and an episode there would sit inside the episode archive), and a name holding a secret
// (RefuseSecretName). Compared case-insensitively for file systems that are.
func entryDirName(name string) (string, error) {
	if err := RefuseSecretName("name", name); err != nil {
		return "", err
	}
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
	if err := CheckWithin(root, p); err != nil {
		return "", err
	}
	return p, nil
}

// CheckWithin returns an error unless path lies inside root (after cleaning both).
func CheckWithin(root, path string) error {
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
// are never renamed. It looks through fsys, the store's boundary.
func existingSpelling(fsys *safefs.FS, name string, dirs ...string) string {
	for _, dir := range dirs {
		if _, err := fsys.Lstat(filepath.Join(dir, name)); err == nil {
			return name
		}
	}
	for _, dir := range dirs {
		des, err := fsys.ReadDir(dir)
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

// maxUserDirBytes is the common file-system limit on one path element: a longer id could never have
// been written by the Python sidecar either.
const maxUserDirBytes = 255

// UserDirName returns the directory under memory/users/ that holds a user's profile.
//
// It is the id itself, as the Python sidecar stores it: a `channel:user` id such as feishu:ou_123 lives
// in users/feishu:ou_123/, and mapping it to another name would make the profile vanish for whichever
// sidecar reads the directory next. Only what is unsafe is refused: empty ids, `.` and `..`, path
// separators (`/` and `\`, the latter a separator on Windows), absolute paths, NUL and other control
// characters, and names longer than a path element may be.
//
// On Windows, where `< > : " | ? *`, a trailing dot or space and the device names (CON, NUL, COM1, …)
// cannot be file names, such an id gets SafeName's mapped form instead (feishu:ou_123 → feishu-ou_123):
// the Python sidecar could not have created the verbatim folder there either.
func UserDirName(userID string) (string, error) { return userDirName(userID, runtime.GOOS) }

func userDirName(userID, goos string) (string, error) {
	id := strings.TrimSpace(userID)
	switch {
	case id == "":
		return "", fmt.Errorf("%w: empty user id", ErrUnsafeName)
	case !utf8.ValidString(id):
		return "", fmt.Errorf("%w: user id %q is not valid UTF-8", ErrUnsafeName, userID)
	case strings.IndexFunc(id, unicode.IsControl) >= 0:
		return "", fmt.Errorf("%w: user id %q contains a control character", ErrUnsafeName, userID)
	case id == "." || id == "..":
		return "", fmt.Errorf("%w: user id %q is a relative directory reference", ErrUnsafeName, userID)
	case strings.ContainsAny(id, `/\`):
		return "", fmt.Errorf("%w: user id %q contains a path separator", ErrUnsafeName, userID)
	case filepath.IsAbs(id) || filepath.VolumeName(id) != "":
		return "", fmt.Errorf("%w: user id %q is an absolute path", ErrUnsafeName, userID)
	case len(id) > maxUserDirBytes:
		return "", fmt.Errorf("%w: user id is %d bytes, longer than a file name may be (%d)", ErrUnsafeName, len(id), maxUserDirBytes)
	}
	if goos != "windows" {
		return id, nil
	}
	dir := id
	if strings.ContainsAny(id, `<>:"|?*`) || strings.HasSuffix(id, ".") {
		// Windows drops a trailing dot itself; dropping it here keeps the name we use the one on disk.
		mapped, err := SafeName(id)
		if err != nil {
			return "", err
		}
		if dir = strings.TrimRight(mapped, "."); dir == "" {
			return "", fmt.Errorf("%w: user id %q has no usable characters", ErrUnsafeName, userID)
		}
	}
	if windowsDeviceName(dir) {
		return "", fmt.Errorf("%w: user id %q is a reserved device name on Windows", ErrUnsafeName, userID)
	}
	return dir, nil
}

// windowsDeviceName reports whether name (before any extension) is a DOS device name, which Windows
// resolves to the device instead of a folder.
func windowsDeviceName(name string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(name), ".")
	base = strings.TrimRight(base, " ")
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		c := base[3]
		return c >= '1' && c <= '9'
	}
	return false
}
