package safefs

import (
	"bytes"
	"encoding/binary"
	"io/fs"

	"golang.org/x/sys/unix"
)

// DirEnt is one name a folder lists, and whether it is a folder.
type DirEnt struct {
	Name string
	Dir  bool
}

// ReadDirNamesFd lists the folder open as fd (from its start: fd must be
// freshly opened) without wrapping it in an os.File, whose poller
// registration and finaliser cost a walk of 100k folders as much as its
// own calls. Dir comes from the listing's type field, or an fstatat where
// the file system does not fill it; "." and ".." are left out.
func ReadDirNamesFd(fd int) ([]DirEnt, error) {
	var out []DirEnt
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, &fs.PathError{Op: "readdirent", Path: "", Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen == 0 || off+reclen > n {
				break
			}
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if s := string(name); s != "." && s != ".." {
				dir := typ == unix.DT_DIR
				if typ == unix.DT_UNKNOWN {
					var st unix.Stat_t
					dir = unix.Fstatat(fd, s, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
				}
				out = append(out, DirEnt{Name: s, Dir: dir})
			}
		}
	}
}
