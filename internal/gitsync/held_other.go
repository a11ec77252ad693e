//go:build !linux

package gitsync

// lockHolder cannot look into other processes here: known is false, and a
// lock counts as stale by its age alone.
func lockHolder(path, gitDir string) (held, known bool) { return false, false }
