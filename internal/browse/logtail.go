package browse

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/safefs"
)

const (
	// LogFile is the log in the data directory (slash-separated): the
	// plugin writes its own lines and the sidecar's stderr there
	// (plugin-ts/src/logfile.ts).
	LogFile = "logs/somni.log"
	// MaxLogTailLines is how many of its last lines memory.health shows.
	MaxLogTailLines = 100
	// logTailBytes is how much of the log's end is read for them: 100
	// lines of a few hundred bytes each, with room for long ones.
	logTailBytes = 64 << 10
)

// LogTail returns the last MaxLogTailLines lines of <data-dir>/logs/somni.log,
// read through a boundary rooted at the data directory (a somni.log that is
// a link out is refused) and redacted; none when there is no log.
func (b *Browser) LogTail() ([]string, error) {
	fsys, err := safefs.New(b.store.DataDir())
	if err != nil {
		return nil, fmt.Errorf("browse: log tail: %w", err)
	}
	p := filepath.Join(b.store.DataDir(), filepath.FromSlash(LogFile))
	f, err := fsys.OpenRead(p)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fileErr(LogFile, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("browse: log tail: %w", err)
	}
	off := max(info.Size()-logTailBytes, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, off, logTailBytes))
	if err != nil {
		return nil, fmt.Errorf("browse: log tail: %w", err)
	}
	text := string(buf)
	if off > 0 {
		_, text, _ = strings.Cut(text, "\n") // the first line is cut short
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return []string{}, nil
	}
	if len(lines) > MaxLogTailLines {
		lines = lines[len(lines)-MaxLogTailLines:]
	}
	for i, l := range lines {
		lines[i] = redact.Text(l)
	}
	return lines, nil
}
