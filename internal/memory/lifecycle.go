package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/somni-dev/somni/internal/safefs"
)

// Lifecycle numbers: every birth, reinforcement, decay and retirement constant lives here.
const (
	// BirthKnowledge is the starting score of verified knowledge and skills.
	BirthKnowledge = 0.5
	// BirthUnverified is the starting score of knowledge and skills created unverified.
	BirthUnverified = 0.3
	// BirthEpisodeLow, BirthEpisodeMid and BirthEpisodeHigh are the starting scores of episodes by salience.
	BirthEpisodeLow  = 0.4
	BirthEpisodeMid  = 0.6
	BirthEpisodeHigh = 0.8
	// BirthIntention is the fixed score of intentions (they never decay).
	BirthIntention = 1.0

	// UsageNewDayScore and UsageSameDayScore are the score gains of record_usage.
	UsageNewDayScore  = 0.2
	UsageSameDayScore = 0.05
	// RecallEpisodeGain is what an episode gains each time recall returns it.
	RecallEpisodeGain = 0.03

	// DecayBaseSemantic and DecayBaseEpisodic are the daily decay bases.
	DecayBaseSemantic = 0.1
	DecayBaseEpisodic = 0.25
	// SalienceHighFactor and SalienceMidFactor slow episode decay by salience.
	SalienceHighFactor = 0.4
	SalienceMidFactor  = 0.7
	// StabilityWeight is how much each stability point slows decay.
	StabilityWeight = 0.5

	// RetireBelow archives entries whose score falls under it.
	RetireBelow = 0.2
	// MaxSemanticEntries is the cap on active knowledge + learned skills.
	MaxSemanticEntries = 300
	// IntentionIdleDays expires intentions idle for longer than this.
	IntentionIdleDays = 30
)

// UnverifiedBanner is put at the top of the body of anything created unverified.
const UnverifiedBanner = "> ⚠️ unverified: recorded without confirmation; check before relying on it.\n\n"

// EpisodeBirthScore returns the starting score for an episode of the given salience (unknown ⇒ low).
func EpisodeBirthScore(salience string) float64 {
	switch NormalizeSalience(salience) {
	case "high":
		return BirthEpisodeHigh
	case "mid":
		return BirthEpisodeMid
	default:
		return BirthEpisodeLow
	}
}

// SemanticBirthScore returns the starting score for knowledge or a skill.
func SemanticBirthScore(verified bool) float64 {
	if verified {
		return BirthKnowledge
	}
	return BirthUnverified
}

// NormalizeSalience maps salience spellings to low|mid|high ("medium" ⇒ mid, unknown ⇒ low).
func NormalizeSalience(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "high":
		return "high"
	case "mid", "medium":
		return "mid"
	default:
		return "low"
	}
}

// Usage applies one record_usage to (stability, score): a first use on a new day adds 1 stability and
// 0.2 score, a repeat on the same day only 0.05 score (spaced repetition beats cramming); score caps at 1.
func Usage(stability int, score float64, lastUsed, today string) (int, float64) {
	if lastUsed != "" && len(lastUsed) >= 10 && lastUsed[:10] == today {
		return stability, math.Min(score+UsageSameDayScore, 1)
	}
	return stability + 1, math.Min(score+UsageNewDayScore, 1)
}

// DecayBase returns the daily decay base for an entry kind and (for episodes) salience.
func DecayBase(kind Kind, salience string) float64 {
	if kind != KindEpisode {
		return DecayBaseSemantic
	}
	switch NormalizeSalience(salience) {
	case "high":
		return DecayBaseEpisodic * SalienceHighFactor
	case "mid":
		return DecayBaseEpisodic * SalienceMidFactor
	default:
		return DecayBaseEpisodic
	}
}

// DailyDecay is the per-day retention factor: 1 − base / (1 + stability × 0.5).
func DailyDecay(base float64, stability int) float64 {
	if stability < 0 {
		stability = 0
	}
	return 1 - base/(1+float64(stability)*StabilityWeight)
}

// Decayed returns score after days of decay; days ≤ 0 leaves it unchanged.
func Decayed(score, base float64, stability, days int) float64 {
	if days <= 0 {
		return score
	}
	return score * math.Pow(DailyDecay(base, stability), float64(days))
}

// RecordUsage reinforces e (record_usage) and saves it. The change is applied to the file as it is on
// disk now, so edits made since e was loaded survive; e is refreshed to what was written.
func (s *Store) RecordUsage(e *Entry) error {
	unlock, err := s.mustLock()
	if err != nil {
		return err
	}
	defer unlock()
	return s.RewriteLocked(e, usageChange(s.today()))
}

// usageChange is one record_usage on day.
func usageChange(day string) func(*Entry) error {
	return func(e *Entry) error {
		st, sc := Usage(e.Stability(), e.Score(), e.Meta.Value(KeyLastUsed), day)
		e.SetStability(st)
		e.SetScore(sc)
		e.Meta.Set(KeyLastUsed, day)
		return nil
	}
}

// RecallChange is what one recall hit on day does to an entry (the usage
// journal's fold applies it through RewriteLocked): episodes gain 0.03,
// everything else gets a full record_usage.
func RecallChange(day string) func(*Entry) error {
	return func(e *Entry) error {
		if e.Kind == KindEpisode {
			e.SetScore(math.Min(e.Score()+RecallEpisodeGain, 1))
			e.Meta.Set(KeyLastUsed, day)
			return nil
		}
		return usageChange(day)(e)
	}
}

// rewriteTries is how often a rewrite re-reads and re-applies its change when
// the file changed under it (a person saving it, another process) before it
// gives up and leaves the file as it is.
const rewriteTries = 5

// ErrNoChange, returned by a change given to RewriteLocked, means there is
// nothing to write: the rewrite ends without error and e holds the file as it is.
var ErrNoChange = errors.New("no change")

// ErrIncomplete is a file a rewrite refuses because it does not hold a whole
// entry (no front-matter, or neither name nor description): typically a file
// caught half-written by an editor. Writing it back would keep the damage.
var ErrIncomplete = errors.New("is not a complete entry (no front-matter name or description)")

// RewriteLocked applies change to the entry at e.Path as it is on disk and writes
// the result with a compare-and-swap: when the file changes between the read
// and the swap, it re-reads and re-applies, so an edit made meanwhile is never
// reverted. A file that does not parse, or parses to an incomplete entry, is
// never written. On success e holds what was written. Caller holds the write
// lock (Lock): the jobs over the store's files (intentions, the usage fold)
// rewrite through it.
func (s *Store) RewriteLocked(e *Entry, change func(*Entry) error) error {
	var last error
	for try := 0; try < rewriteTries; try++ {
		fresh, err := s.Load(e.Path)
		if err != nil {
			return fmt.Errorf("memory: rewrite %s: %w", s.Rel(e.Path), err)
		}
		if !fresh.framed || fresh.Meta.Value(KeyName) == "" && fresh.Meta.Value(KeyDescription) == "" {
			return fmt.Errorf("memory: rewrite %s: %w", s.Rel(e.Path), ErrIncomplete)
		}
		if err := change(fresh); err != nil {
			if errors.Is(err, ErrNoChange) {
				*e = *fresh
				return nil
			}
			return err
		}
		err = s.Save(fresh)
		if errors.Is(err, safefs.ErrChanged) {
			last = err
			continue
		}
		if err != nil {
			return err
		}
		*e = *fresh
		return nil
	}
	return fmt.Errorf("memory: rewrite %s: gave up after %d tries: %w", s.Rel(e.Path), rewriteTries, last)
}

// DecayReport says what one DecayAll pass did.
type DecayReport struct {
	// Decayed counts entries whose score changed.
	Decayed int
	// Retired lists names archived (score < 0.2, or beyond the 300 semantic-entry cap).
	Retired []string
	// Problems lists unparsable files that were skipped (and left untouched).
	Problems []Problem
}

// DecayAll runs decay over knowledge, learned skills and episodes, then retirement (intentions never
// decay: package intentions expires the idle ones).
// Skills outside agent_learned_skills belong to the user and are neither decayed nor retired, nor are pinned entries.
func (s *Store) DecayAll(ctx context.Context) (DecayReport, error) {
	var rep DecayReport
	unlock, err := s.lock(ctx)
	if err != nil {
		return rep, err
	}
	defer unlock()
	entries, problems, err := s.List(ctx, KindKnowledge, KindSkill, KindEpisode)
	if err != nil {
		return rep, err
	}
	rep.Problems = problems
	today := dayOf(s.now())
	todayStr := today.Format(dateLayout)
	var semantic []*Entry
	for _, e := range entries {
		if e.Kind == KindSkill && !e.Learned || e.Pinned() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("memory: decay: %w", err)
		}
		changed := false
		err := s.RewriteLocked(e, func(e *Entry) error {
			changed = false // a retry starts over from the file as it is now
			if e.Pinned() {
				return ErrNoChange // pinned since it was listed
			}
			last, ok := e.LastDecay()
			if !ok {
				// Never decayed: start the clock today rather than guessing an age.
				last = today
				e.Meta.Set(KeyLastDecay, todayStr)
			}
			days := int(today.Sub(last).Hours() / 24)
			if days <= 0 {
				if ok {
					return ErrNoChange
				}
				return nil
			}
			base := DecayBase(e.Kind, e.Salience())
			e.SetScore(Decayed(e.Score(), base, e.Stability(), days))
			e.Meta.Set(KeyLastDecay, todayStr)
			changed = true
			return nil
		})
		if err != nil {
			// One entry a person is editing (or that is half-written) must not stop the pass.
			s.log.Warn("memory: decay skipped an entry", "file", s.Rel(e.Path), "err", err)
			rep.Problems = append(rep.Problems, Problem{Path: e.Path, Reason: err.Error()})
			continue
		}
		if changed {
			rep.Decayed++
		}
		if e.Pinned() {
			continue
		}
		if e.Score() < RetireBelow {
			dest, err := s.archiveLocked(e)
			if err != nil {
				return rep, err
			}
			s.log.Info("memory: retired entry", "name", e.Name, "score", e.Score(), "to", dest)
			rep.Retired = append(rep.Retired, e.Name)
			continue
		}
		if e.Kind != KindEpisode {
			semantic = append(semantic, e)
		}
	}
	if len(semantic) > MaxSemanticEntries {
		// Lowest score first; on a tie the one idle longest goes first.
		sort.SliceStable(semantic, func(i, j int) bool {
			a, b := semantic[i].Score(), semantic[j].Score()
			if a != b {
				return a < b
			}
			return semantic[i].Meta.Value(KeyLastUsed) < semantic[j].Meta.Value(KeyLastUsed)
		})
		for _, e := range semantic[:len(semantic)-MaxSemanticEntries] {
			if _, err := s.archiveLocked(e); err != nil {
				return rep, err
			}
			rep.Retired = append(rep.Retired, e.Name)
		}
	}
	return rep, nil
}
