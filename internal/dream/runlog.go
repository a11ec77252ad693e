package dream

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dreamlog"
	"github.com/somni-dev/somni/internal/identity"
	"github.com/somni-dev/somni/internal/memory"
)

// runLog is what one dream changed as the dreamer itself saw it (the diary
// is the model's account, not a record): around every write-tool call it
// notes which memory files appeared, changed or left, with a unified diff
// of each, bounded by dreamlog.MaxRunDiffBytes; the run's record is written
// next to the diaries when the dream ends (dreamlog.WriteRun).
type runLog struct {
	tb   *toolbox
	rec  dreamlog.Run
	diff strings.Builder
	cut  bool
	// changes indexes rec.Changes by entry path; undoBytes is the before
	// texts kept so far (dreamlog.MaxRunUndoBytes).
	changes   map[string]int
	undoBytes int
}

// snapshot is the store as a write-tool call found it: the entry files there
// were, the bytes of the ones the call names, and the diaries.
type snapshot struct {
	refs    map[string]bool
	before  map[string][]byte
	diaries map[string]bool
}

func newRunLog(tb *toolbox, trigger string, start time.Time) *runLog {
	return &runLog{tb: tb, rec: dreamlog.Run{ID: dreamlog.RunID(start), Trigger: trigger, Started: start,
		Created: []string{}, Updated: []string{}, Archived: []string{}}, changes: map[string]int{}}
}

// before snapshots what a write tool may change; nil for the other tools.
func (l *runLog) before(ctx context.Context, tool, args string) *snapshot {
	if !writeTools[tool] || tool == toolMarkLogProcessed {
		return nil
	}
	st := l.tb.st
	s := &snapshot{refs: map[string]bool{}, before: map[string][]byte{}, diaries: map[string]bool{}}
	refs, _ := st.Scan(ctx, memory.KindKnowledge, memory.KindSkill, memory.KindEpisode, memory.KindIntention)
	for _, r := range refs {
		s.refs[r.Path] = true
	}
	diaries, _ := l.tb.diaries.List()
	for _, p := range diaries {
		s.diaries[p] = true
	}
	var a struct {
		Name   string `json:"name"`
		UserID string `json:"user_id"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	var named []string
	switch tool {
	case toolUpdateKnowledge, toolUpdateSkill, toolArchiveItem:
		if e, err := st.Find(ctx, a.Name); err == nil {
			named = append(named, e.Path)
		}
	case toolUpdateAboutMe:
		if p, err := identity.Of(st).AboutMe(); err == nil && p != nil {
			named = append(named, p.Path)
		}
	case toolUpdateAboutUser:
		if p, err := identity.Of(st).UserProfilePath(a.UserID); err == nil {
			named = append(named, p)
		}
	case toolDecayAllKnowledge:
		es, _, _ := st.List(ctx, memory.KindKnowledge, memory.KindSkill, memory.KindEpisode, memory.KindIntention)
		for _, e := range es {
			s.before[e.Path] = e.Raw()
		}
	}
	for _, p := range named {
		if b, err := st.FS().ReadFile(p, memory.MaxEntryBytes); err == nil {
			s.before[p] = b
		} else {
			s.before[p] = nil // created by this call, if it appears
		}
	}
	return s
}

// after records what changed since s.
func (l *runLog) after(ctx context.Context, s *snapshot) {
	if s == nil {
		return
	}
	st := l.tb.st
	now := map[string]bool{}
	refs, _ := st.Scan(ctx, memory.KindKnowledge, memory.KindSkill, memory.KindEpisode, memory.KindIntention)
	for _, r := range refs {
		now[r.Path] = true
		if !s.refs[r.Path] {
			if _, named := s.before[r.Path]; !named {
				s.before[r.Path] = nil // a new file
			}
		}
	}
	paths := make([]string, 0, len(s.before))
	for p := range s.before {
		paths = append(paths, p)
	}
	for p := range s.refs {
		if !now[p] {
			if _, ok := s.before[p]; !ok {
				paths = append(paths, p) // left without being named: archived
			}
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		before := s.before[p]
		after, err := st.FS().ReadFile(p, memory.MaxEntryBytes)
		gone := err != nil
		switch {
		case gone && (before != nil || s.refs[p]):
			l.note(&l.rec.Archived, p, before, nil)
			l.change(dreamlog.OpArchived, p, before, nil)
		case gone:
		case before == nil && !s.refs[p]:
			l.note(&l.rec.Created, p, nil, after)
			l.change(dreamlog.OpCreated, p, nil, after)
		case string(before) != string(after):
			l.note(&l.rec.Updated, p, before, after)
			l.change(dreamlog.OpUpdated, p, before, after)
		}
	}
	if diaries, err := l.tb.diaries.List(); err == nil {
		for _, p := range diaries {
			if !s.diaries[p] {
				l.rec.Path = st.Rel(p)
			}
		}
	}
}

// note adds p to a list and its diff to the record, within the bounds.
func (l *runLog) note(list *[]string, p string, before, after []byte) {
	rel := l.tb.st.Rel(p)
	if len(*list) >= dreamlog.MaxRunPaths {
		l.rec.More++
	} else {
		*list = append(*list, rel)
	}
	if l.cut || before == nil && after == nil {
		return
	}
	d := dreamlog.Unified(rel, string(before), string(after))
	if l.diff.Len()+len(d) > dreamlog.MaxRunDiffBytes {
		l.cut = true
		fmt.Fprintf(&l.diff, "… (the rest of this dream's diff is past its %d KiB bound)\n", dreamlog.MaxRunDiffBytes>>10)
		return
	}
	l.diff.WriteString(d)
}

// change notes what undoing op on p needs (dreamlog.Change), one change per
// entry: a later touch of the same entry keeps the first one's op and before
// text and takes the bytes it left.
func (l *runLog) change(op, p string, before, after []byte) {
	rel := l.tb.st.Rel(p)
	i, seen := l.changes[rel]
	if !seen {
		if len(l.rec.Changes) >= dreamlog.MaxRunPaths {
			return
		}
		l.rec.Changes = append(l.rec.Changes, dreamlog.Change{Op: op, Path: rel})
		i = len(l.rec.Changes) - 1
		l.changes[rel] = i
	}
	c := &l.rec.Changes[i]
	switch op {
	case dreamlog.OpArchived:
		if seen && c.Op == dreamlog.OpCreated {
			c.After = "" // created and archived by the same dream: nothing to undo
			return
		}
		c.Op, c.After = op, ""
		if dest, data, ok := l.archivedAt(p, before); ok {
			c.Archive, c.After = l.tb.st.Rel(dest), dreamlog.Sum(data)
		}
		return
	case dreamlog.OpUpdated:
		if !seen && l.undoBytes+len(before) <= dreamlog.MaxRunUndoBytes {
			c.Text, c.Kept = string(before), true
			l.undoBytes += len(before)
		}
	}
	c.After = dreamlog.Sum(after)
}

// archivedAt finds where the entry file p went when the dream archived it
// (memory.Store.MoveToFreeName: <archive>/<name>, <name>-2 …, the newest
// the last taken): the copy holding before when it is known.
func (l *runLog) archivedAt(p string, before []byte) (string, []byte, bool) {
	st := l.tb.st
	dir, file := filepath.Dir(p), filepath.Base(p)
	base := filepath.Base(dir)
	var found string
	var data []byte
	for _, parent := range []string{filepath.Join(st.MemoryDir(), "archived"), filepath.Join(st.SkillDir(), "archived"), filepath.Join(filepath.Dir(dir), "archived")} {
		last := ""
		for i := 1; i < 10000; i++ {
			name := base
			if i > 1 {
				name = fmt.Sprintf("%s-%d", base, i)
			}
			if _, err := st.FS().Lstat(filepath.Join(parent, name)); err != nil {
				break
			}
			last = filepath.Join(parent, name, file)
		}
		if last == "" {
			continue
		}
		b, err := st.FS().ReadFile(last, memory.MaxEntryBytes)
		if err != nil {
			continue
		}
		if before != nil && string(b) == string(before) {
			return last, b, true
		}
		if found == "" {
			found, data = last, b
		}
	}
	return found, data, found != ""
}

// write stores the record of a dream that ended with res.
func (l *runLog) write(res Result, tokens int, end time.Time) {
	l.rec.Status, l.rec.Tokens = res.Status, tokens
	l.rec.DurationMs = end.Sub(l.rec.Started).Milliseconds()
	l.rec.Diff = l.diff.String()
	if _, err := l.tb.diaries.WriteRun(l.rec); err != nil {
		l.tb.log.Warn("dream: run record not written", "err", err)
	}
}
