package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/memory"
)

// Recall does not rewrite the files it returns. Each hit is one line in a
// usage journal (memory/.usage.log: "<day>\t<m|s>\t<path in the memory or
// skill root>") and the next dream folds the journal into the entries' score,
// stability and last_used, with the same record_usage numbers a rewrite per
// hit would give. A recall then never races a person's edit, costs an append
// instead of a read, a render and two fsyncs per hit, and a memory kept in git
// changes once a dream, not at every question.
const (
	journalName = ".usage.log"
	foldingName = ".usage.folding" // a journal claimed by a fold in progress (or killed during one)
	// Quarantine + a time names a claim no fold could read, kept for a
	// person to look at (doctor names it) instead of blocking every fold.
	Quarantine = ".usage.quarantine-"
	// MaxJournalBytes bounds the journal: about 40k hits. Past it hits
	// are dropped with a warning until the next dream folds it.
	MaxJournalBytes = 4 << 20
	// readBytes is what a fold reads: the journal may pass its bound by
	// the one append that found it just under (a recall's hits, a few KiB).
	readBytes = MaxJournalBytes + 64<<10
)

// Journal is a store's recall usage journal (Of): recall's appends
// (NoteRecall), a dream's fold (Fold), and what package doctor needs to say
// of its files (Files, Trouble, Hits, Quarantined).
type Journal struct {
	s              *memory.Store
	memory, skills string // the roots a journal line names a file in ("m", "s")
}

// Of returns the usage journal of st.
func Of(st *memory.Store) Journal {
	return Journal{s: st, memory: st.MemoryDir(), skills: st.SkillDir()}
}

// NoteRecall journals that recall returned these entry files today.
// Intentions, identity files and anything outside the recall roots are ignored.
func (u Journal) NoteRecall(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	s := u.s
	day := s.Now().Format(dates.Layout)
	var b bytes.Buffer
	for _, p := range paths {
		kind, archived, ok := s.KindOf(p)
		if !ok || archived || kind != memory.KindKnowledge && kind != memory.KindSkill && kind != memory.KindEpisode {
			continue
		}
		tag, rel, ok := u.ref(p)
		if !ok {
			continue
		}
		b.WriteString(day + "\t" + tag + "\t" + rel + "\n")
	}
	if b.Len() == 0 {
		return nil
	}
	path := filepath.Join(u.memory, journalName)
	f, err := s.FS().OpenAppend(path, false)
	if errors.Is(err, fs.ErrNotExist) {
		if f, err = s.FS().OpenAppend(path, true); errors.Is(err, fs.ErrExist) {
			f, err = s.FS().OpenAppend(path, false) // another process created it first
		}
	}
	if err != nil {
		return fmt.Errorf("usage: journal: %w", err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > MaxJournalBytes {
		s.Logger().Warn("usage: journal full until the next dream; recall hits not counted", "file", s.Rel(path), "bytes", info.Size())
		return nil
	}
	// One write with O_APPEND: lines from two processes never interleave.
	if _, err := f.Write(b.Bytes()); err != nil {
		return fmt.Errorf("usage: journal: %w", err)
	}
	return nil
}

// ref names p in the journal: its root ("m" memory, "s" skills) and its
// path inside it, so the journal survives moving the data directory.
func (u Journal) ref(p string) (tag, rel string, ok bool) {
	for _, r := range []struct{ tag, dir string }{{"m", u.memory}, {"s", u.skills}} {
		if memory.CheckWithin(r.dir, p) == nil {
			rel, _ := filepath.Rel(r.dir, p)
			return r.tag, filepath.ToSlash(rel), true
		}
	}
	return "", "", false
}
