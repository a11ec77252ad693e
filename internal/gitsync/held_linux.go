package gitsync

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockHolder reports whether a live process has path open or is a git
// working in the repository gitDir belongs to (git closes index.lock before
// it renames it, and runs hooks in between). known is true: /proc says.
// Processes of other users cannot be looked into; a data dir is one user's.
func lockHolder(path, gitDir string) (held, known bool) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	work := filepath.Dir(gitDir)
	self := os.Getpid()
	for _, p := range procs {
		pid := p.Name()
		if pid == "" || pid[0] < '0' || pid[0] > '9' || pid == strconv.Itoa(self) {
			continue
		}
		base := filepath.Join("/proc", pid)
		if comm, err := os.ReadFile(filepath.Join(base, "comm")); err == nil && strings.TrimSpace(string(comm)) == "git" {
			if cwd, err := os.Readlink(filepath.Join(base, "cwd")); err == nil && within(cwd, work) {
				return true, true
			}
		}
		fds, err := os.ReadDir(filepath.Join(base, "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join(base, "fd", fd.Name())); err == nil && target == path {
				return true, true
			}
		}
	}
	return false, true
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
