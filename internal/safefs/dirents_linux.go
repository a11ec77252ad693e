package safefs

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// readEnts lists the freshly opened folder dir for a walk: by getdents,
// not os.File.ReadDir, whose entry objects and the sort through their
// interface cost a large store's listing more than its own getdents
// (docs/ARCHITECTURE.md, Measurements).
func readEnts(dir *os.File) ([]DirEnt, error) { return ReadDirNamesFd(int(dir.Fd())) }

// direntType is the type bits of a getdents type field.
func direntType(typ uint8) fs.FileMode {
	switch typ {
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	return 0
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
				t := direntType(typ)
				if typ == unix.DT_UNKNOWN {
					var st unix.Stat_t
					if unix.Fstatat(fd, s, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
						t = (&statInfo{st: st}).Mode().Type()
					}
				}
				out = append(out, DirEnt{Name: s, Type: t})
			}
		}
	}
}
