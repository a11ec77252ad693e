//go:build unix && !linux

package safefs

// LeafCounting is false: these systems' link counts are not relied on (APFS
// counts every entry), so every folder is listed.
func LeafCounting(int) bool { return false }
