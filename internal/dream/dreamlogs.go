package dream

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/present"
)

// recentDiaries is how many diaries review_dream_history lists.
const recentDiaries = 10

func (tb *toolbox) writeDreamLog(_ context.Context, c *call, a dreamLogArgs) string {
	path, err := tb.diaries.Write(a.Content)
	if err != nil {
		return errorf("write_dream_log: %v. Start with a front-matter block: a line `---`, `key: value` lines (dream_id, trigger, start_time, end_time, processed_logs), a closing `---`, then the Markdown body.", err)
	}
	c.out.Changed = true
	return fmt.Sprintf("Dream diary written: %s.", tb.rel(path))
}

func (tb *toolbox) reviewDreamHistory(_ context.Context, _ *call, a historyArgs) string {
	if p := strings.TrimSpace(a.Path); p != "" {
		// Paths are shown relative to the data dir; accept them back that way.
		if r, ok := strings.CutPrefix(filepath.ToSlash(p), "memory/"); ok && !filepath.IsAbs(p) {
			p = r
		}
		text, err := tb.diaries.Read(p)
		if errors.Is(err, memory.ErrNotFound) {
			return errorf("review_dream_history: no dream diary %q; call it without path to list them", a.Path)
		}
		if err != nil {
			return errorf("review_dream_history: %v", err)
		}
		return text
	}
	logs, err := tb.diaries.List()
	if err != nil {
		return errorf("review_dream_history: %v", err)
	}
	if len(logs) == 0 {
		return "No dream diaries yet."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d dream diaries, newest first (showing up to %d):\n", len(logs), recentDiaries)
	for _, l := range logs[:min(len(logs), recentDiaries)] {
		b.WriteString("- " + present.ShowExact(filepath.Base(l)) + "\n")
	}
	return b.String()
}

// latestDiary returns the newest diary's name and text, or "" when none is readable.
func (tb *toolbox) latestDiary() (string, string) {
	logs, err := tb.diaries.List()
	if err != nil || len(logs) == 0 {
		return "", ""
	}
	text, err := tb.diaries.Read(filepath.Base(logs[0]))
	if err != nil {
		tb.log.Warn("read latest dream diary", "path", logs[0], "err", err)
		return "", ""
	}
	return filepath.Base(logs[0]), text
}
