package identity

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/safefs"
)

// maxIdentityBytes bounds identity files; they are injected into every prompt.
const maxIdentityBytes = 16 << 10

// UpdateAboutMe replaces the body of about_me.md, keeping other front-matter keys.
func (in Files) UpdateAboutMe(content string) (*Profile, error) {
	body, err := identityBody(content)
	if err != nil {
		return nil, err
	}
	unlock, err := in.s.Lock(context.Background())
	if err != nil {
		return nil, err
	}
	defer unlock()
	p, err := in.AboutMe()
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = &Profile{Path: in.aboutMe, Meta: frontmatter.New()}
		p.Meta.Set(memory.KeyName, "about_me")
	}
	p.Meta.Set(memory.KeyType, "identity")
	p.Meta.Set("has_data", "true")
	p.Meta.Set("updated", in.today())
	p.Body = body
	if _, err := in.s.ReplaceLocked(p.Path, frontmatter.Render(p.Meta, p.Body), p.version); err != nil {
		return nil, err
	}
	return p, nil
}

// UpdateAboutUser replaces the body of a user's profile (memory/users/<id>/about_user.md), keeping the
// identity keys; for "default" the legacy file's keys are carried over on first write.
func (in Files) UpdateAboutUser(userID, content string) (*Profile, error) {
	if strings.TrimSpace(userID) == "" {
		userID = DefaultUserID
	}
	body, err := identityBody(content)
	if err != nil {
		return nil, err
	}
	// Checked where a profile is written, not in UserProfilePath: reading the profile of a host's user
	// id makes no path, and a host id redact mistakes for a key must not fail every prompt.
	if err := memory.RefuseSecretName("user id", userID); err != nil {
		return nil, fmt.Errorf("identity: user id: %w", err)
	}
	path, err := in.UserProfilePath(userID)
	if err != nil {
		return nil, err
	}
	unlock, err := in.s.Lock(context.Background())
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
	if p.Meta.Value(memory.KeyName) == "" {
		p.Meta.Set(memory.KeyName, userID)
	}
	p.Meta.Set(memory.KeyType, "identity")
	p.Meta.Set("updated", in.today())
	p.Body = body
	if _, err := in.s.ReplaceLocked(path, frontmatter.Render(p.Meta, p.Body), p.version); err != nil {
		return nil, err
	}
	if from != "" && from != in.legacyAboutUser {
		// The mapped copy would now be stale and shadowed: remove it (and its folder when empty) so
		// users/ holds one profile per user. The legacy memory/about_user.md stays: the Python sidecar
		// still reads it for "default".
		if err := in.s.FS().Remove(from); err != nil {
			in.s.Logger().Warn("identity: could not remove the moved profile", "file", in.s.Rel(from), "err", err)
		} else {
			_ = in.s.FS().Remove(filepath.Dir(from)) // fails while anything else is in it, which is fine
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
