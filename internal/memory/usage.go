package memory

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/safefs"
)

// Recall does not rewrite the files it returns. Each hit is one line in a
// usage journal (memory/.usage.log: "<day>\t<m|s>\t<path in the memory or
// skill root>") and the next dream folds the journal into the entries' score,
// stability and last_used, with the same record_usage numbers a rewrite per
// hit would give. A recall then never races a person's edit, costs an append
// instead of a read, a render and two fsyncs per hit, and a memory kept in git
// changes once a dream, not at every question.
const (
	usageJournal = ".usage.log"
	usageFolding = ".usage.folding" // a journal claimed by a fold in progress (or killed during one)
	// UsageQuarantine + a time names a claim no fold could read, kept for a
	// person to look at (doctor names it) instead of blocking every fold.
	UsageQuarantine = ".usage.quarantine-"
	// MaxUsageJournalBytes bounds the journal: about 40k hits. Past it hits
	// are dropped with a warning until the next dream folds it.
	MaxUsageJournalBytes = 4 << 20
	// usageReadBytes is what a fold reads: the journal may pass its bound by
	// the one append that found it just under (a recall's hits, a few KiB).
	usageReadBytes = MaxUsageJournalBytes + 64<<10
)

// NoteRecall journals that recall returned these entry files today.
// Intentions, identity files and anything outside the recall roots are ignored.
func (s *Store) NoteRecall(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	day := s.today()
	var b bytes.Buffer
	for _, p := range paths {
		kind, _, archived, ok := s.dirs.classify(p)
		if !ok || archived || kind != KindKnowledge && kind != KindSkill && kind != KindEpisode {
			continue
		}
		tag, rel, ok := s.usageRef(p)
		if !ok {
			continue
		}
		b.WriteString(day + "\t" + tag + "\t" + rel + "\n")
	}
	if b.Len() == 0 {
		return nil
	}
	path := filepath.Join(s.dirs.memory, usageJournal)
	f, err := s.fs.OpenAppend(path, false)
	if errors.Is(err, fs.ErrNotExist) {
		if f, err = s.fs.OpenAppend(path, true); errors.Is(err, fs.ErrExist) {
			f, err = s.fs.OpenAppend(path, false) // another process created it first
		}
	}
	if err != nil {
		return fmt.Errorf("memory: usage journal: %w", err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > MaxUsageJournalBytes {
		s.log.Warn("memory: usage journal full until the next dream; recall hits not counted", "file", s.Rel(path), "bytes", info.Size())
		return nil
	}
	// One write with O_APPEND: lines from two processes never interleave.
	if _, err := f.Write(b.Bytes()); err != nil {
		return fmt.Errorf("memory: usage journal: %w", err)
	}
	return nil
}

// usageRef names p in the journal: its root ("m" memory, "s" skills) and its
// path inside it, so the journal survives moving the data directory.
func (s *Store) usageRef(p string) (tag, rel string, ok bool) {
	for _, r := range []struct{ tag, dir string }{{"m", s.dirs.memory}, {"s", s.dirs.skills}} {
		if CheckWithin(r.dir, p) == nil {
			rel, _ := filepath.Rel(r.dir, p)
			return r.tag, filepath.ToSlash(rel), true
		}
	}
	return "", "", false
}

// FoldUsage applies the journalled recall hits to their entries (oldest
// first, one compare-and-swap rewrite per entry) and empties the journal.
// It returns how many entries it changed. A hit on an entry that is gone,
// archived or being edited is dropped with the journal. A claim no fold can
// read (a FIFO, a directory, a link, a file over the bound) is moved aside to
// .usage.quarantine-<time>, kept for doctor to name, and folding goes on:
// one bad file must not stop reinforcement for good.
func (s *Store) FoldUsage(ctx context.Context) (int, error) {
	// The claim below and the fold run under the write lock: a fold another
	// process has claimed (.usage.folding exists) is never folded again
	// here while it is still running.
	unlock, err := s.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	journal := filepath.Join(s.dirs.memory, usageJournal)
	folding := filepath.Join(s.dirs.memory, usageFolding)
	changed := 0
	// A claim left by a killed fold is folded first, then the journal
	// recalls wrote since. Claiming with a rename means two processes never
	// fold the same hits, and recalls meanwhile start a fresh journal.
	for _, claimNew := range []bool{false, true} {
		if claimNew {
			if err := s.fs.Rename(journal, folding); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return changed, nil
				}
				return changed, fmt.Errorf("memory: claim usage journal: %w", err)
			}
		} else if !s.fs.Exists(folding) {
			continue
		}
		n, err := s.UsageJournal().fold(ctx, folding)
		changed += n
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// UsageJournal is the recall usage journal's files (Store.UsageJournal): the
// fold of one claim, and what package doctor needs to say of them (Files,
// Trouble, Hits, Quarantined).
type UsageJournal struct{ s *Store }

// UsageJournal returns the store's usage journal.
func (s *Store) UsageJournal() UsageJournal { return UsageJournal{s: s} }

// fold folds the claimed journal at folding and removes it; one it cannot
// read is quarantined instead. Caller holds the write lock.
func (u UsageJournal) fold(ctx context.Context, folding string) (int, error) {
	s := u.s
	var data []byte
	trouble := u.Trouble(folding)
	if trouble == "" {
		var err error
		if data, err = s.fs.ReadFile(folding, usageReadBytes); errors.Is(err, fs.ErrNotExist) {
			return 0, nil // removed by hand meanwhile: nothing to fold
		} else if err != nil {
			trouble = err.Error()
		}
	}
	if trouble != "" {
		dest, err := s.MoveToFreeName(folding, s.dirs.memory, UsageQuarantine+s.now().Format(dates.CompactTimeLayout), "")
		if err != nil {
			return 0, fmt.Errorf("memory: quarantine unreadable usage journal (%s): %w", trouble, err)
		}
		s.log.Warn("memory: usage journal unreadable, moved aside; its recall hits are not counted", "file", s.Rel(dest), "why", trouble)
		return 0, nil
	}
	changed := 0
	for _, h := range u.parse(data) {
		if err := ctx.Err(); err != nil {
			return changed, fmt.Errorf("memory: fold usage: %w", err) // the claimed journal stays for the next fold
		}
		e := &Entry{Path: h.path}
		err := s.rewrite(e, func(e *Entry) error {
			if e.Archived || e.Kind != KindKnowledge && e.Kind != KindSkill && e.Kind != KindEpisode {
				return errNoChange
			}
			for _, day := range h.days {
				if err := s.recallChange(day)(e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			if !errors.Is(err, ErrNotFound) {
				s.log.Warn("memory: recall usage not applied", "file", s.Rel(h.path), "err", err)
			}
			continue
		}
		changed++
	}
	if err := s.fs.Remove(folding); err != nil {
		return changed, fmt.Errorf("memory: remove folded usage journal: %w", err)
	}
	return changed, nil
}

// usageHits are one entry's journalled recall days, oldest first.
type usageHits struct {
	path string
	days []string
}

// parse reads journal lines into hits per entry, in first-hit order.
func (u UsageJournal) parse(data []byte) []*usageHits {
	s := u.s
	var order []*usageHits
	byPath := map[string]*usageHits{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) != 3 || !isDay(parts[0]) || strings.Contains(parts[2], "..") {
			continue // a line torn by a crash, or not ours
		}
		dir := s.dirs.memory
		if parts[1] == "s" {
			dir = s.dirs.skills
		}
		p := filepath.Join(dir, filepath.FromSlash(parts[2]))
		h := byPath[p]
		if h == nil {
			h = &usageHits{path: p}
			byPath[p] = h
			order = append(order, h)
		}
		h.days = append(h.days, parts[0])
	}
	return order
}

// Trouble says why the journal file at p cannot be folded ("" when
// it can, or when nothing is there). A link counts as trouble even when it
// stays inside: somni makes the journal as a plain file, and appends never
// go through a link, so a linked journal only ever loses hits.
func (u UsageJournal) Trouble(p string) string {
	fi, err := u.s.fs.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return err.Error()
	case !fi.Mode().IsRegular():
		return safefs.Kind(fi.Mode())
	case fi.Size() > usageReadBytes:
		return fmt.Sprintf("%d bytes, over the journal's %d-byte bound", fi.Size(), usageReadBytes)
	}
	return ""
}

// Files returns the paths of the journal recall appends to and of the claim
// a fold works on (in progress, or left by a killed one).
func (u UsageJournal) Files() (journal, folding string) {
	return filepath.Join(u.s.dirs.memory, usageJournal), filepath.Join(u.s.dirs.memory, usageFolding)
}

// Hits counts the recall hits journalled in the file at p (a journal or a
// claim: one hit a line), read within a fold's bound. A missing file is an
// error wrapping fs.ErrNotExist.
func (u UsageJournal) Hits(p string) (int, error) {
	data, err := u.s.fs.ReadFile(p, usageReadBytes)
	if err != nil {
		return 0, fmt.Errorf("memory: read usage journal: %w", err)
	}
	return bytes.Count(data, []byte("\n")), nil
}

// Quarantined lists the journals folds moved aside, oldest first.
func (u UsageJournal) Quarantined() []string {
	s := u.s
	des, err := s.fs.ReadDir(s.dirs.memory)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range des {
		if strings.HasPrefix(d.Name(), UsageQuarantine) {
			out = append(out, filepath.Join(s.dirs.memory, d.Name()))
		}
	}
	return out
}

func isDay(s string) bool {
	_, ok := parseDate(s)
	return ok && len(s) == len(dateLayout)
}
