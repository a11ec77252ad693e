//go:build unix

package gitsync

import (
	"os/exec"
	"syscall"
)

// detach starts git in a session of its own: with no controlling terminal,
// ssh cannot stop a background sync to ask for a passphrase or a host key
// (it fails, and explain says what to do), and a cancelled call interrupts
// git and the ssh or credential helper it started, all of one process group.
// SIGINT first: git removes its lock files on it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	}
}
