//go:build !unix

package gitsync

import "os/exec"

// detach leaves git in this process's console: GIT_TERMINAL_PROMPT=0 keeps
// git itself from asking, and a cancelled call is killed after waitDelay.
func detach(*exec.Cmd) {}
