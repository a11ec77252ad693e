package dream

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memmerge"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/present"
)

// logRef is one pending session log as the loop sees it.
type logRef struct {
	// Path is the absolute path, as listed to the model.
	Path string
	// ID is the file stem (the log's session_id).
	ID string
	// Empty is set when the log has no conversation blocks.
	Empty bool
}

func (tb *toolbox) pendingLogs(_ context.Context) ([]logRef, error) {
	paths, err := tb.logs.Pending()
	if err != nil {
		return nil, err
	}
	out := make([]logRef, 0, len(paths))
	for _, p := range paths {
		empty, err := tb.logIsEmpty(p)
		if err != nil {
			// Leave it to the model rather than archive something unread.
			tb.log.Warn("cannot inspect session log; giving it to the model", "path", p, "err", err)
		}
		out = append(out, logRef{Path: p, ID: strings.TrimSuffix(filepath.Base(p), ".md"), Empty: empty})
	}
	return out, nil
}

// logsOf keeps the logs of one host session; a log it cannot read is left
// to the full dream.
func (tb *toolbox) logsOf(logs []logRef, chatID string) []logRef {
	var out []logRef
	for _, l := range logs {
		if lg, err := tb.logs.Read(l.Path); err == nil && lg.ChatID() == chatID {
			out = append(out, l)
		}
	}
	return out
}

// logIsEmpty reports whether a log has no conversation at all: no blocks and
// no other text after its header (headerless legacy logs count as text).
func (tb *toolbox) logIsEmpty(path string) (bool, error) {
	l, err := tb.logs.Read(path)
	if err != nil {
		return false, err
	}
	if len(l.Blocks) > 0 {
		return false, nil
	}
	data := l.Raw
	body := string(data)
	if doc, perr := frontmatter.Parse(l.Path, data); perr == nil {
		body = doc.Body
	}
	return strings.TrimSpace(body) == "", nil
}

func (tb *toolbox) pendingCount(_ context.Context) (int, error) {
	paths, err := tb.logs.Pending()
	return len(paths), err
}

func (tb *toolbox) markProcessed(_ context.Context, path string) error {
	_, err := tb.logs.MarkProcessed(path)
	return err
}

// logKey identifies a session log in the conversation whatever form of its
// path the model used: logs live flat in session-log/, so the file name is unique.
func logKey(p string) string {
	b := filepath.Base(filepath.Clean(strings.TrimSpace(p)))
	if !strings.HasSuffix(b, ".md") {
		b += ".md"
	}
	return b
}

func (tb *toolbox) readSessionLog(_ context.Context, c *call, a logPathArgs) string {
	// memory resolves the path and refuses anything outside session-log/.
	l, err := tb.logs.Read(a.Path)
	if errors.Is(err, memory.ErrNotFound) {
		return errorf("read_session_log: %q does not exist; use the paths listed in the task", a.Path)
	}
	if err != nil {
		return errorf("read_session_log: %v (only files in memory/session-log can be read)", err)
	}
	// exec clips every answer for the prompt and names the log's real size at the cut.
	// The log goes out raw, not framed by package present: the dreamer
	// distils and quotes what was said (an episode names who said what),
	// so it must read the turns as written; defanged or quoted lines would
	// leak into what it stores. The system prompt says logs are material,
	// not instructions, and checkDirectives refuses instructions on write.
	data := l.Raw
	if l.Archived {
		return fmt.Sprintf("(note: %s was already processed and archived)\n\n%s", present.ShowExact(filepath.Base(l.Path)), data)
	}
	c.out.ReadLog = logKey(l.Path)
	return string(data)
}

func (tb *toolbox) markLogProcessed(_ context.Context, c *call, a logPathArgs) string {
	dest, err := tb.logs.MarkProcessed(a.Path)
	if errors.Is(err, memory.ErrNotFound) {
		return errorf("mark_log_processed: %q does not exist (already processed?)", a.Path)
	}
	if err != nil {
		return errorf("mark_log_processed: %v", err)
	}
	c.out.Changed = true
	c.out.ProcessedLog = logKey(a.Path)
	return fmt.Sprintf("Marked %s processed and archived it to %s. Its raw text has left the context: work from your notes.", present.ShowExact(logKey(a.Path)), tb.rel(dest))
}

// systemPrompt assembles role, strategy (the user's override when present)
// and workflow; knowledge is the store's knowledge entries (their count).
func (tb *toolbox) systemPrompt(knowledge []memory.Ref, trigger string, start time.Time) string {
	return renderSystemPrompt(tb.strategy(), len(knowledge), trigger, start)
}

// userPrompt lists the logs, the last diary's tail and the sync conflicts
// among knowledge, the same scan the system prompt counts.
func (tb *toolbox) userPrompt(knowledge []memory.Ref, logs []logRef, trigger string, now time.Time) string {
	name, text := tb.latestDiary()
	return renderUserPrompt(logs, trigger, now, name, text) + renderConflicts(tb.conflicts(knowledge))
}

// conflict is a sibling a git sync left beside an entry whose same lines
// two machines changed (package memmerge): the dream reconciles the pair.
type conflict struct{ sibling, of string }

// conflicts lists the knowledge entries whose header names, under
// conflicts_with, the entry they conflict with; only folders shaped like a
// sibling's are read, so a store without conflicts costs nothing more.
func (tb *toolbox) conflicts(knowledge []memory.Ref) []conflict {
	var out []conflict
	for _, r := range knowledge {
		if !memmerge.LooksLikeSibling(filepath.Base(filepath.Dir(r.Path))) {
			continue
		}
		e, err := tb.st.Load(r.Path)
		if err != nil {
			continue
		}
		if of := strings.TrimSpace(e.Meta.Value(memmerge.KeyConflictsWith)); of != "" {
			out = append(out, conflict{sibling: e.Name, of: of})
		}
	}
	return out
}
