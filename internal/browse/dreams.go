package browse

import (
	"path/filepath"

	"github.com/somni-dev/somni/internal/dreamlog"
)

// Dream is one dream as the tab shows it: the dreamer's own record of what
// changed (dreamlog.Run) and the diary the model wrote.
type Dream struct {
	dreamlog.Run
	Diary string `json:"diary"`
}

// Dreams answers memory.dreams: the newest limit dreams' records, newest
// first, each with its diary's text ("" when it wrote none or it is gone).
func (b *Browser) Dreams(limit int) ([]Dream, error) {
	limit = min(max(limit, 1), MaxDreams)
	d := dreamlog.New(b.store)
	runs, err := d.Runs(limit)
	if err != nil {
		return nil, err
	}
	out := make([]Dream, 0, len(runs))
	for _, r := range runs {
		dr := Dream{Run: r}
		dr.Changes = make([]dreamlog.Change, len(r.Changes))
		for i, c := range r.Changes {
			c.Text = "" // what an undo writes back stays on disk (RevertDream)
			dr.Changes[i] = c
		}
		if r.Path != "" {
			dr.Diary, _ = d.Read(filepath.Base(r.Path))
		}
		out = append(out, dr)
	}
	return out, nil
}
