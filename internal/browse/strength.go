package browse

import (
	"bufio"
	"bytes"
	"context"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/usage"
)

// Point is an entry's strength (its score) on one day.
type Point struct {
	Day   string  `json:"day"`
	Value float64 `json:"value"`
	// Event is what the point marks: created (its birth score), stored (the
	// score in the file, as of its last decay), recalled (a hit in the usage
	// journal a dream has not folded in yet), today, projected (decay ahead).
	Event string `json:"event"`
	// Projected is set for days after today.
	Projected bool `json:"projected,omitempty"`
}

// usageJournalLimit is what a series reads of the usage journal: its bound
// plus one append's worth (memory's own fold reads the same).
const usageJournalLimit = usage.MaxJournalBytes + 64<<10

// strength is e's strength over time. Nothing is invented: the past comes
// from the file (created, the stored score) and the usage journal, and every
// step applies the lifecycle's own functions (memory.Usage, the episode
// recall gain, memory.Decayed with memory.DecayBase); pinned, archived,
// intentions and the user's own skills do not decay, so their line is flat.
// Files without a score (profiles) have no series.
func (b *Browser) strength(ctx context.Context, e *memory.Entry) []Point {
	out := []Point{}
	if _, ok := e.Meta.Get(memory.KeyScore); !ok || e.Kind == memory.KindIdentity {
		return out
	}
	decays := (e.Kind == memory.KindKnowledge || e.Kind == memory.KindEpisode || e.Kind == memory.KindSkill && e.Learned) &&
		!e.Pinned() && !e.Archived
	base := memory.DecayBase(e.Kind, e.Salience())
	today := civil(b.store.Now())
	score, stab := e.Score(), e.Stability()
	anchor := today
	for _, get := range []func() (time.Time, bool){e.LastDecay, e.LastUsed, e.Created} {
		if t, ok := get(); ok {
			anchor = civil(t)
			break
		}
	}
	if c, ok := e.Created(); ok && civil(c).Before(anchor) {
		out = append(out, Point{Day: dates.Format(c), Value: round3(birthScore(e)), Event: "created"})
	}
	out = append(out, Point{Day: anchor.Format(dates.Layout), Value: round3(score), Event: "stored"})
	last, lastUsed := anchor, e.Meta.Value(memory.KeyLastUsed)
	for _, d := range b.recallDays(ctx, e, anchor, today) {
		if decays {
			score = memory.Decayed(score, base, stab, daysBetween(last, d))
		}
		day := d.Format(dates.Layout)
		if e.Kind == memory.KindEpisode {
			score = min(score+memory.RecallEpisodeGain, 1)
		} else {
			stab, score = memory.Usage(stab, score, lastUsed, day)
		}
		lastUsed, last = day, d
		out = append(out, Point{Day: day, Value: round3(score), Event: "recalled"})
	}
	if decays {
		score = memory.Decayed(score, base, stab, daysBetween(last, today))
	}
	out = append(out, Point{Day: today.Format(dates.Layout), Value: round3(score), Event: "today"})
	for d := StrengthStepDays; d <= StrengthHorizonDays; d += StrengthStepDays {
		v := score
		if decays {
			v = memory.Decayed(score, base, stab, d)
		}
		out = append(out, Point{Day: today.AddDate(0, 0, d).Format(dates.Layout), Value: round3(v), Event: "projected", Projected: true})
		if v < memory.RetireBelow {
			break // the decay after this retires it
		}
	}
	return out
}

// birthScore is the score e started with, by the lifecycle's birth rules.
func birthScore(e *memory.Entry) float64 {
	switch e.Kind {
	case memory.KindEpisode:
		return memory.EpisodeBirthScore(e.Salience())
	case memory.KindIntention:
		return memory.BirthIntention
	}
	banner, _, _ := strings.Cut(memory.UnverifiedBanner, ":")
	return memory.SemanticBirthScore(!strings.Contains(e.Body, banner))
}

// recallDays are the days in (after, today] the usage journal records a
// recall hit of e on, one per hit, oldest first, the newest MaxRecallPoints.
func (b *Browser) recallDays(ctx context.Context, e *memory.Entry, after, today time.Time) []time.Time {
	tag, ref := "", ""
	for _, r := range []struct{ tag, dir string }{{"m", b.store.MemoryDir()}, {"s", b.store.SkillDir()}} {
		if memory.CheckWithin(r.dir, e.Path) == nil {
			rel, _ := filepath.Rel(r.dir, e.Path)
			tag, ref = r.tag, filepath.ToSlash(rel)
			break
		}
	}
	data, err := b.store.FS().ReadFile(filepath.Join(b.store.MemoryDir(), ".usage.log"), usageJournalLimit)
	if tag == "" || err != nil || ctx.Err() != nil {
		return nil
	}
	var out []time.Time
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 || f[1] != tag || f[2] != ref {
			continue
		}
		if t, err := time.Parse(dates.Layout, f[0]); err == nil && t.After(after) && !t.After(today) {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Before(out[j]) })
	if len(out) > MaxRecallPoints {
		out = out[len(out)-MaxRecallPoints:]
	}
	return out
}

// civil is t's calendar day as a UTC midnight, so day counts ignore zones and DST.
func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func daysBetween(a, b time.Time) int { return int(civil(b).Sub(civil(a)).Hours() / 24) }
