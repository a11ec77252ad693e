package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/frontmatter"
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
	if n := strings.TrimSpace(p.Meta.Value(KeyName)); n != "" {
		return n
	}
	return p.UserID
}

// Identity is the store's identity files: the agent's about_me.md and each user's
// about_user.md. It reads and writes through the store's boundary, lock and clock.
type Identity struct{ s *Store }

// Identity returns the store's identity files.
func (s *Store) Identity() Identity { return Identity{s: s} }

// Where identity files live (with about_me.md and users/ in layout.go); doctor checks the same
// paths the readers use.
const (
	ProfileFile = "about_user.md" // a user's profile, in users/<id>/ (legacy: in the memory root)
	KeyUserID   = "user_id"       // the id a profile says it belongs to
)

// UsersDir returns memory/users, the folder of the users' profile folders.
func (in Identity) UsersDir() string { return in.s.dirs.users }

// ProfilePaths lists every identity file a reader may read: about_me.md, the
// legacy about_user.md and each users/<folder>/about_user.md, so doctor checks
// the files the prompts are built from.
func (in Identity) ProfilePaths() []string {
	paths := []string{in.s.dirs.aboutMe, in.s.dirs.legacyAboutUser}
	users, _ := filepath.Glob(filepath.Join(in.s.dirs.users, "*", ProfileFile))
	return append(paths, users...)
}

// UserProfilePath returns memory/users/<id>/about_user.md, where the Python sidecar keeps it too (see
// UserDirName), refusing ids that would leave users/.
func (in Identity) UserProfilePath(userID string) (string, error) {
	if strings.TrimSpace(userID) == "" {
		userID = DefaultUserID
	}
	dir, err := UserDirName(userID)
	if err != nil {
		return "", fmt.Errorf("memory: user id: %w", err)
	}
	return within(in.s.dirs.users, dir, ProfileFile)
}

// mappedProfilePath is where earlier somni versions kept a profile: the id through SafeName
// (feishu:ou_123 → users/feishu-ou_123/). It returns "" when that is the current location anyway.
func (in Identity) mappedProfilePath(userID string) string {
	dir, err := SafeName(userID)
	if err != nil {
		return ""
	}
	p, err := within(in.s.dirs.users, dir, ProfileFile)
	if err != nil {
		return ""
	}
	if cur, err := in.UserProfilePath(userID); err == nil && filepath.Clean(cur) == filepath.Clean(p) {
		return ""
	}
	return p
}

func (in Identity) readProfile(path, userID string) (*Profile, error) {
	data, ver, err := in.s.fs.ReadVersion(path, MaxEntryBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("memory: read %s: %w", path, err)
	}
	doc, err := frontmatter.Parse(path, data)
	if err != nil {
		in.s.problem(path, err)
		return nil, err
	}
	return &Profile{UserID: userID, Path: path, Meta: doc.Meta, Body: doc.Body, version: ver}, nil
}

// AboutMe returns the agent's self-description, or nil when there is none.
func (in Identity) AboutMe() (*Profile, error) { return in.readProfile(in.s.dirs.aboutMe, "") }

// AboutUser returns a user's profile, or nil when there is none. It looks where the Python sidecar
// keeps it, then in the folder earlier somni versions mapped the id to (only a file that names this very
// user_id: two ids can map to one folder, and one user must never get another's profile), and for
// "default" in the legacy memory/about_user.md.
func (in Identity) AboutUser(userID string) (*Profile, error) {
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
	return in.readProfile(in.s.dirs.legacyAboutUser, DefaultUserID)
}

// maxIdentityBytes bounds identity files; they are injected into every prompt.
const maxIdentityBytes = 16 << 10

// UpdateAboutMe replaces the body of about_me.md, keeping other front-matter keys.
func (in Identity) UpdateAboutMe(content string) (*Profile, error) {
	body, err := identityBody(content)
	if err != nil {
		return nil, err
	}
	unlock, err := in.s.mustLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	p, err := in.AboutMe()
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = &Profile{Path: in.s.dirs.aboutMe, Meta: frontmatter.New()}
		p.Meta.Set(KeyName, "about_me")
	}
	p.Meta.Set(KeyType, "identity")
	p.Meta.Set("has_data", "true")
	p.Meta.Set("updated", in.s.today())
	p.Body = body
	if _, err := in.s.replace(p.Path, frontmatter.Render(p.Meta, p.Body), p.version); err != nil {
		return nil, err
	}
	return p, nil
}

// UpdateAboutUser replaces the body of a user's profile (memory/users/<id>/about_user.md), keeping the
// identity keys; for "default" the legacy file's keys are carried over on first write.
func (in Identity) UpdateAboutUser(userID, content string) (*Profile, error) {
	if strings.TrimSpace(userID) == "" {
		userID = DefaultUserID
	}
	body, err := identityBody(content)
	if err != nil {
		return nil, err
	}
	// Checked where a profile is written, not in UserProfilePath: reading the profile of a host's user
	// id makes no path, and a host id redact mistakes for a key must not fail every prompt.
	if err := refuseSecretName("user id", userID); err != nil {
		return nil, fmt.Errorf("memory: user id: %w", err)
	}
	path, err := in.UserProfilePath(userID)
	if err != nil {
		return nil, err
	}
	unlock, err := in.s.mustLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	p, err := in.AboutUser(userID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = &Profile{UserID: userID, Meta: frontmatter.New()}
	}
	from := ""
	if p.Path != "" && p.Path != path {
		// A legacy default profile migrates to users/default/, and one in an earlier somni's mapped
		// folder to the Python location.
		p.version = safefs.Missing
		from = p.Path
	}
	p.Path = path
	if p.Meta.Value(KeyUserID) == "" {
		p.Meta.Set(KeyUserID, userID)
	}
	if p.Meta.Value(KeyName) == "" {
		p.Meta.Set(KeyName, userID)
	}
	p.Meta.Set(KeyType, "identity")
	p.Meta.Set("updated", in.s.today())
	p.Body = body
	if _, err := in.s.replace(path, frontmatter.Render(p.Meta, p.Body), p.version); err != nil {
		return nil, err
	}
	if from != "" && from != in.s.dirs.legacyAboutUser {
		// The mapped copy would now be stale and shadowed: remove it (and its folder when empty) so
		// users/ holds one profile per user. The legacy memory/about_user.md stays: the Python sidecar
		// still reads it for "default".
		if err := in.s.fs.Remove(from); err != nil {
			in.s.log.Warn("memory: could not remove the moved profile", "file", in.s.Rel(from), "err", err)
		} else {
			_ = in.s.fs.Remove(filepath.Dir(from)) // fails while anything else is in it, which is fine
		}
	}
	return p, nil
}

func identityBody(content string) (string, error) {
	c := strings.TrimSpace(content)
	if c == "" {
		return "", invalid("content is required")
	}
	if len(c) > maxIdentityBytes {
		return "", invalid("content is %d bytes; identity files are injected into every prompt, keep them under %d", len(c), maxIdentityBytes)
	}
	if strings.HasPrefix(c, frontmatter.Delim) {
		return "", invalid("content must be the profile text only, without front-matter")
	}
	return c + "\n", nil
}

// ProfileUserIDs lists the users other than DefaultUserID whose profile
// folder names them: a folder counts only when AboutUser reads a profile from
// it through the store's boundary, so a stray or foreign folder is not a user.
func (in Identity) ProfileUserIDs() []string {
	des, err := in.s.fs.ReadDir(in.s.dirs.users)
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
