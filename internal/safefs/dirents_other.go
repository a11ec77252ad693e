//go:build unix && !linux

package safefs

import (
	"io/fs"
	"os"
)

// DirEnt is one name a folder lists, whether it is a folder, and its type
// bits (fs.FileMode.Type) as the listing says.
type DirEnt struct {
	Name string
	Dir  bool
	Type fs.FileMode
}

// readEnts lists the freshly opened folder dir for a walk.
func readEnts(dir *os.File) ([]DirEnt, error) {
	des, err := dir.ReadDir(-1)
	out := make([]DirEnt, len(des))
	for i, d := range des {
		out[i] = DirEnt{Name: d.Name(), Dir: d.IsDir(), Type: d.Type()}
	}
	return out, err
}
