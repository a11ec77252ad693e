package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/safefs"
)

// Trouble says why the journal file at p cannot be folded ("" when
// it can, or when nothing is there). A link counts as trouble even when it
// stays inside: somni makes the journal as a plain file, and appends never
// go through a link, so a linked journal only ever loses hits.
func (u Journal) Trouble(p string) string {
	fi, err := u.s.FS().Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return err.Error()
	case !fi.Mode().IsRegular():
		return safefs.Kind(fi.Mode())
	case fi.Size() > readBytes:
		return fmt.Sprintf("%d bytes, over the journal's %d-byte bound", fi.Size(), readBytes)
	}
	return ""
}

// Files returns the paths of the journal recall appends to and of the claim
// a fold works on (in progress, or left by a killed one).
func (u Journal) Files() (journal, folding string) {
	return filepath.Join(u.memory, journalName), filepath.Join(u.memory, foldingName)
}

// Hits counts the recall hits journalled in the file at p (a journal or a
// claim: one hit a line), read within a fold's bound. A missing file is an
// error wrapping fs.ErrNotExist.
func (u Journal) Hits(p string) (int, error) {
	data, err := u.s.FS().ReadFile(p, readBytes)
	if err != nil {
		return 0, fmt.Errorf("usage: read the journal: %w", err)
	}
	return bytes.Count(data, []byte("\n")), nil
}

// Quarantined lists the journals folds moved aside, oldest first.
func (u Journal) Quarantined() []string {
	des, err := u.s.FS().ReadDir(u.memory)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range des {
		if strings.HasPrefix(d.Name(), Quarantine) {
			out = append(out, filepath.Join(u.memory, d.Name()))
		}
	}
	return out
}
