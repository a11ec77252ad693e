package usage

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
	"github.com/somni-dev/somni/internal/memory"
)

// Fold applies the journalled recall hits to their entries (oldest
// first, one compare-and-swap rewrite per entry) and empties the journal.
// It returns how many entries it changed. A hit on an entry that is gone,
// archived or being edited is dropped with the journal. A claim no fold can
// read (a FIFO, a directory, a link, a file over the bound) is moved aside to
// .usage.quarantine-<time>, kept for doctor to name, and folding goes on:
// one bad file must not stop reinforcement for good.
func (u Journal) Fold(ctx context.Context) (int, error) {
	s := u.s
	// The claim below and the fold run under the write lock: a fold another
	// process has claimed (.usage.folding exists) is never folded again
	// here while it is still running.
	unlock, err := s.Lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	journal, folding := u.Files()
	changed := 0
	// A claim left by a killed fold is folded first, then the journal
	// recalls wrote since. Claiming with a rename means two processes never
	// fold the same hits, and recalls meanwhile start a fresh journal.
	for _, claimNew := range []bool{false, true} {
		if claimNew {
			if err := s.FS().Rename(journal, folding); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return changed, nil
				}
				return changed, fmt.Errorf("usage: claim the journal: %w", err)
			}
		} else if !s.FS().Exists(folding) {
			continue
		}
		n, err := u.fold(ctx, folding)
		changed += n
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// fold folds the claimed journal at folding and removes it; one it cannot
// read is quarantined instead. Caller holds the write lock.
func (u Journal) fold(ctx context.Context, folding string) (int, error) {
	s := u.s
	var data []byte
	trouble := u.Trouble(folding)
	if trouble == "" {
		var err error
		if data, err = s.FS().ReadFile(folding, readBytes); errors.Is(err, fs.ErrNotExist) {
			return 0, nil // removed by hand meanwhile: nothing to fold
		} else if err != nil {
			trouble = err.Error()
		}
	}
	if trouble != "" {
		dest, err := s.MoveToFreeName(folding, u.memory, Quarantine+s.Now().Format(dates.CompactTimeLayout), "")
		if err != nil {
			return 0, fmt.Errorf("usage: quarantine an unreadable journal (%s): %w", trouble, err)
		}
		s.Logger().Warn("usage: journal unreadable, moved aside; its recall hits are not counted", "file", s.Rel(dest), "why", trouble)
		return 0, nil
	}
	changed := 0
	for _, h := range u.parse(data) {
		if err := ctx.Err(); err != nil {
			return changed, fmt.Errorf("usage: fold: %w", err) // the claimed journal stays for the next fold
		}
		e := &memory.Entry{Path: h.path}
		err := s.RewriteLocked(e, func(e *memory.Entry) error {
			if e.Archived || e.Kind != memory.KindKnowledge && e.Kind != memory.KindSkill && e.Kind != memory.KindEpisode {
				return memory.ErrNoChange
			}
			for _, day := range h.days {
				if err := memory.RecallChange(day)(e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			if !errors.Is(err, memory.ErrNotFound) {
				s.Logger().Warn("usage: recall usage not applied", "file", s.Rel(h.path), "err", err)
			}
			continue
		}
		changed++
	}
	if err := s.FS().Remove(folding); err != nil {
		return changed, fmt.Errorf("usage: remove the folded journal: %w", err)
	}
	return changed, nil
}

// usageHits are one entry's journalled recall days, oldest first.
type usageHits struct {
	path string
	days []string
}

// parse reads journal lines into hits per entry, in first-hit order.
func (u Journal) parse(data []byte) []*usageHits {
	var order []*usageHits
	byPath := map[string]*usageHits{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) != 3 || !isDay(parts[0]) || strings.Contains(parts[2], "..") {
			continue // a line torn by a crash, or not ours
		}
		dir := u.memory
		if parts[1] == "s" {
			dir = u.skills
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

// isDay reports whether s is exactly one YYYY-MM-DD date.
func isDay(s string) bool { return len(s) == len(dates.Layout) && dates.IsDate(s) }
