//go:build unix && !linux

package safefs

import "os"

// readEnts lists the freshly opened folder dir for a walk.
func readEnts(dir *os.File) ([]DirEnt, error) {
	des, err := dir.ReadDir(-1)
	out := make([]DirEnt, len(des))
	for i, d := range des {
		out[i] = DirEnt{Name: d.Name(), Type: d.Type()}
	}
	return out, err
}
