package doctor

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/somni-dev/somni/internal/identity"
	"github.com/somni-dev/somni/internal/memory"
)

// checkIdentity reports identity files that exist but cannot be parsed.
func checkIdentity(st *memory.Store) []Finding {
	var out []Finding
	for _, p := range identity.Of(st).ProfilePaths() {
		if f, ok := checkParses(st, p); !ok {
			out = append(out, f)
		}
	}
	return out
}

// checkUserFolders reports profile folders under memory/users/ that no user id reads: a folder name
// that is not a usable id, a front-matter user_id the folder does not match, and profiles in the folder
// an older somni mapped a `channel:user` id to (feishu-ou_123 for feishu:ou_123), which the Python
// sidecar never finds. A profile nobody reads vanishes silently from every prompt.
//
// It lists and stats through the store's boundary like every read.
func checkUserFolders(st *memory.Store) []Finding {
	in, fsys := identity.Of(st), st.FS()
	root := in.UsersDir()
	des, err := fsys.ReadDir(root)
	if err != nil {
		return nil // no users/ yet
	}
	var out []Finding
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		name := de.Name()
		file := filepath.Join(root, name, identity.ProfileFile)
		if !fsys.Exists(file) {
			continue
		}
		report := func(format string, args ...any) {
			out = append(out, Finding{Path: file, Kind: "profile-folder", Reason: fmt.Sprintf(format, args...)})
		}
		dir, err := memory.UserDirName(name)
		if err != nil || dir != name {
			report("no user id maps to folder %q (%s): this profile is never read; rename the folder to the user's id", name, orReason(err, "the id would use folder "+strconv.Quote(dir)))
			continue
		}
		p, err := in.AboutUser(name)
		if err != nil || p == nil || filepath.Clean(p.Path) != filepath.Clean(file) {
			continue // unparsable ones are reported by checkIdentity
		}
		uid := strings.TrimSpace(p.Meta.Value(identity.KeyUserID))
		if uid == "" || uid == name {
			continue
		}
		if mapped, err := memory.SafeName(uid); err == nil && mapped == name {
			if cur, err := in.UserProfilePath(uid); err == nil && fsys.Exists(cur) {
				report("user %q has a newer profile in %s; this older copy is not read: merge anything missing and remove this folder", uid, cur)
			} else {
				report("user %q's profile is in the folder older somni versions used; somni reads it, the Python sidecar looks in users/%s/: the next profile update moves it there", uid, uid)
			}
			continue
		}
		report("front-matter user_id %q does not match folder %q: the profile is read as user %q's, never as %q's", uid, name, name, uid)
	}
	return out
}

func orReason(err error, other string) string {
	if err != nil {
		return err.Error()
	}
	return other
}
