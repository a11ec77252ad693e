package identity

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
)

// DefaultUserID is the single-user profile id; it falls back to the legacy memory/about_user.md.
const DefaultUserID = "default"

// Profile is an identity file: about_me or a user's about_user.
type Profile struct {
	UserID string // "" for about_me
	Path   string
	Meta   *frontmatter.Meta
	Body   string

	version safefs.Version // what was read, for the compare-and-swap of the update
}

// Name returns the profile's display name (front-matter name, else the user id).
func (p *Profile) Name() string {
	if n := strings.TrimSpace(p.Meta.Value(memory.KeyName)); n != "" {
		return n
	}
	return p.UserID
}

// Files is a store's identity files: the agent's about_me.md and each user's
// about_user.md. It reads and writes through the store's boundary, lock and clock.
type Files struct {
	s *memory.Store

	aboutMe         string // memory/about_me.md
	legacyAboutUser string // memory/about_user.md, user "default" before users/
	users           string // memory/users
}

// Of returns the identity files of st.
func Of(st *memory.Store) Files {
	mem := st.MemoryDir()
	return Files{s: st, aboutMe: filepath.Join(mem, "about_me.md"),
		legacyAboutUser: filepath.Join(mem, ProfileFile), users: filepath.Join(mem, "users")}
}

// Where identity files live; doctor checks the same paths the readers use.
const (
	ProfileFile = "about_user.md" // a user's profile, in users/<id>/ (legacy: in the memory root)
	KeyUserID   = "user_id"       // the id a profile says it belongs to
)

// invalid is a refusal of bad input, wrapping memory.ErrInvalid as the store's refusals do.
func invalid(format string, args ...any) error {
	return fmt.Errorf("identity: %w: %s", memory.ErrInvalid, fmt.Sprintf(format, args...))
}

// today is the store's calendar day, the `updated:` of a profile written now.
func (in Files) today() string { return in.s.Now().Format(dates.Layout) }

// UsersDir returns memory/users, the folder of the users' profile folders.
func (in Files) UsersDir() string { return in.users }

// ProfilePaths lists every identity file a reader may read: about_me.md, the
// legacy about_user.md and each users/<folder>/about_user.md, so doctor checks
// the files the prompts are built from.
func (in Files) ProfilePaths() []string {
	paths := []string{in.aboutMe, in.legacyAboutUser}
	users, _ := filepath.Glob(filepath.Join(in.users, "*", ProfileFile))
	return append(paths, users...)
}

// UserProfilePath returns memory/users/<id>/about_user.md, where the Python sidecar keeps it too (see
// UserDirName), refusing ids that would leave users/.
func (in Files) UserProfilePath(userID string) (string, error) {
	if strings.TrimSpace(userID) == "" {
		userID = DefaultUserID
	}
	dir, err := memory.UserDirName(userID)
	if err != nil {
		return "", fmt.Errorf("identity: user id: %w", err)
	}
	return within(in.users, dir, ProfileFile)
}

// mappedProfilePath is where earlier somni versions kept a profile: the id through SafeName
// (feishu:ou_123 → users/feishu-ou_123/). It returns "" when that is the current location anyway.
func (in Files) mappedProfilePath(userID string) string {
	dir, err := memory.SafeName(userID)
	if err != nil {
		return ""
	}
	p, err := within(in.users, dir, ProfileFile)
	if err != nil {
		return ""
	}
	if cur, err := in.UserProfilePath(userID); err == nil && filepath.Clean(cur) == filepath.Clean(p) {
		return ""
	}
	return p
}

func (in Files) readProfile(path, userID string) (*Profile, error) {
	data, ver, err := in.s.FS().ReadVersion(path, memory.MaxEntryBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("identity: read %s: %w", path, err)
	}
	doc, err := frontmatter.Parse(path, data)
	if err != nil {
		in.s.NoteProblem(path, err)
		return nil, err
	}
	return &Profile{UserID: userID, Path: path, Meta: doc.Meta, Body: doc.Body, version: ver}, nil
}

// AboutMe returns the agent's self-description, or nil when there is none.
func (in Files) AboutMe() (*Profile, error) { return in.readProfile(in.aboutMe, "") }

// AboutUser returns a user's profile, or nil when there is none. It looks where the Python sidecar
// keeps it, then in the folder earlier somni versions mapped the id to (only a file that names this very
// user_id: two ids can map to one folder, and one user must never get another's profile), and for
// "default" in the legacy memory/about_user.md.
func (in Files) AboutUser(userID string) (*Profile, error) {
	if strings.TrimSpace(userID) == "" {
		userID = DefaultUserID
	}
	path, err := in.UserProfilePath(userID)
	if err != nil {
		return nil, err
	}
	p, err := in.readProfile(path, userID)
	if p != nil || err != nil {
		return p, err
	}
	if old := in.mappedProfilePath(userID); old != "" {
		p, err := in.readProfile(old, userID)
		if err != nil {
			return nil, err
		}
		if p != nil && strings.TrimSpace(p.Meta.Value(KeyUserID)) == strings.TrimSpace(userID) {
			return p, nil
		}
	}
	if userID != DefaultUserID {
		return nil, nil
	}
	return in.readProfile(in.legacyAboutUser, DefaultUserID)
}

// ProfileUserIDs lists the users other than DefaultUserID whose profile
// folder names them: a folder counts only when AboutUser reads a profile from
// it through the store's boundary, so a stray or foreign folder is not a user.
func (in Files) ProfileUserIDs() []string {
	des, err := in.s.FS().ReadDir(in.users)
	if err != nil {
		return nil
	}
	var ids []string
	for _, de := range des {
		id := de.Name()
		if !de.IsDir() || id == DefaultUserID || strings.HasPrefix(id, ".") {
			continue
		}
		if p, err := in.AboutUser(id); err == nil && p != nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// within joins elems under root and verifies the result is strictly inside it.
func within(root string, elems ...string) (string, error) {
	p := filepath.Join(append([]string{root}, elems...)...)
	if err := memory.CheckWithin(root, p); err != nil {
		return "", err
	}
	return p, nil
}
