package dream

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dreamlog"
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
		Created: []string{}, Updated: []string{}, Archived: []string{}}}
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
		if p, err := st.Identity().AboutMe(); err == nil && p != nil {
			named = append(named, p.Path)
		}
	case toolUpdateAboutUser:
		if p, err := st.Identity().UserProfilePath(a.UserID); err == nil {
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
		case gone:
		case before == nil && !s.refs[p]:
			l.note(&l.rec.Created, p, nil, after)
		case string(before) != string(after):
			l.note(&l.rec.Updated, p, before, after)
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

// write stores the record of a dream that ended with res.
func (l *runLog) write(res Result, tokens int, end time.Time) {
	l.rec.Status, l.rec.Tokens = res.Status, tokens
	l.rec.DurationMs = end.Sub(l.rec.Started).Milliseconds()
	l.rec.Diff = l.diff.String()
	if _, err := l.tb.diaries.WriteRun(l.rec); err != nil {
		l.tb.log.Warn("dream: run record not written", "err", err)
	}
}
