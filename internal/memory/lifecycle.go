package memory

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refreshLocked(e); err != nil {
		return fmt.Errorf("memory: record usage of %s: %w", e.Name, err)
	}
	return s.recordUsageLocked(e)
}

// refreshLocked replaces e's contents with the file on disk, so a rewrite never writes back a stale copy
// (dropping keys or body text added by hand since) nor recreates an entry archived since it was loaded.
// Caller holds s.mu.
func (s *Store) refreshLocked(e *Entry) error {
	fresh, err := s.Load(e.Path)
	if err != nil {
		return err
	}
	*e = *fresh
	return nil
}

func (s *Store) recordUsageLocked(e *Entry) error {
	today := s.today()
	st, sc := Usage(e.Stability(), e.Score(), e.Meta.Value(KeyLastUsed), today)
	e.SetStability(st)
	e.SetScore(sc)
	e.Meta.Set(KeyLastUsed, today)
	if err := s.Save(e); err != nil {
		return fmt.Errorf("memory: record usage of %s: %w", e.Name, err)
	}
	return nil
}

// ReinforceRecall strengthens an entry that recall returned: episodes gain 0.03, everything else gets
// a full record_usage. Intentions are left alone.
func (s *Store) ReinforceRecall(e *Entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Kind {
	case KindIntention, KindIdentity, KindSessionLog, KindDreamLog:
		return nil
	}
	if err := s.refreshLocked(e); err != nil {
		return fmt.Errorf("memory: reinforce %s: %w", e.Name, err)
	}
	switch e.Kind {
	case KindEpisode:
		e.SetScore(math.Min(e.Score()+RecallEpisodeGain, 1))
		e.Meta.Set(KeyLastUsed, s.today())
		if err := s.Save(e); err != nil {
			return fmt.Errorf("memory: reinforce %s: %w", e.Name, err)
		}
		return nil
	default:
		return s.recordUsageLocked(e)
	}
}

// DecayReport says what one DecayAll pass did.
type DecayReport struct {
	// Decayed counts entries whose score changed.
	Decayed int
	// Retired lists names archived (score < 0.2, or beyond the 300 semantic-entry cap).
	Retired []string
	// Expired lists intention ids auto-expired after 30 idle days.
	Expired []string
	// Problems lists unparsable files that were skipped (and left untouched).
	Problems []Problem
}

// DecayAll runs decay over knowledge, learned skills and episodes, then retirement, then intention expiry.
// Skills outside agent_learned_skills belong to the user and are neither decayed nor retired.
func (s *Store) DecayAll(ctx context.Context) (DecayReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rep DecayReport
	entries, problems, err := s.List(ctx, KindKnowledge, KindSkill, KindEpisode)
	if err != nil {
		return rep, err
	}
	rep.Problems = problems
	today := dayOf(s.now())
	todayStr := today.Format(dateLayout)
	var semantic []*Entry
	for _, e := range entries {
		if e.Kind == KindSkill && !e.Learned {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("memory: decay: %w", err)
		}
		last, ok := e.LastDecay()
		if !ok {
			// Never decayed: start the clock today rather than guessing an age.
			last = today
			e.Meta.Set(KeyLastDecay, todayStr)
		}
		days := int(today.Sub(last).Hours() / 24)
		if days > 0 {
			base := DecayBase(e.Kind, e.Salience())
			e.SetScore(Decayed(e.Score(), base, e.Stability(), days))
			e.Meta.Set(KeyLastDecay, todayStr)
			if err := s.Save(e); err != nil {
				return rep, err
			}
			rep.Decayed++
		} else if !ok {
			if err := s.Save(e); err != nil {
				return rep, err
			}
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
	expired, err := s.expireIdleLocked(ctx, s.now())
	if err != nil {
		return rep, err
	}
	rep.Expired = expired
	return rep, nil
}

// idleDays is how many whole days separate the later of last_used/created from now.
func idleDays(e *Entry, now time.Time) (int, bool) {
	var last time.Time
	for _, k := range []string{KeyLastUsed, KeyCreated} {
		if t, ok := parseDate(e.Meta.Value(k)); ok && t.After(last) {
			last = t
		}
	}
	if c, ok := parseDate(e.BodyField("created")); ok && c.After(last) {
		last = c
	}
	if last.IsZero() {
		return 0, false
	}
	return int(dayOf(now).Sub(last).Hours() / 24), true
}
