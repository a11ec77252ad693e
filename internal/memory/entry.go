package memory

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/safefs"
)

// Kind says what an entry is; it is derived from where the file lives, never from its path text.
type Kind string

// Entry kinds.
const (
	KindKnowledge  Kind = "knowledge"
	KindEpisode    Kind = "episode"
	KindSkill      Kind = "skill"
	KindIntention  Kind = "intention"
	KindIdentity   Kind = "identity"
	KindSessionLog Kind = "session_log"
	KindDreamLog   Kind = "dream_log"
)

// Standard front-matter keys.
const (
	KeyName        = "name"
	KeyDescription = "description"
	KeyType        = "type"
	KeyStability   = "stability"
	KeyScore       = "score"
	KeyCreated     = "created"
	KeyLastUsed    = "last_used"
	KeyLastDecay   = "last_decay"
	KeyAutoMerge   = "auto_merge"
	// KeyPinned: true keeps an entry out of decay, retirement and expiry (a person pinned it).
	KeyPinned = "pinned"
)

// dateLayout is the ISO date the compat format uses for created/last_used/last_decay.
const dateLayout = dates.Layout

// Ref is the cheap identity of an entry file, as returned by Scan.
type Ref struct {
	Path    string
	Kind    Kind
	ModTime time.Time
	Size    int64
}

// Entry is one memory file (knowledge, episode, skill, intention) with its front-matter and body.
type Entry struct {
	Kind Kind
	// Name is the front-matter name, or the directory name when the file has none.
	Name string
	// Path is the absolute path of the SKILL.md / INTENT.md file.
	Path string
	Meta *frontmatter.Meta
	// Body is written back byte for byte unless a caller changes it.
	Body string
	// Learned is true for skills under skills/agent_learned_skills (the dreamer's own skills).
	Learned bool
	// Archived is true for entries under an archived/ directory.
	Archived bool
	ModTime  time.Time
	Size     int64

	version safefs.Version // what was read or written last, for the compare-and-swap of the next Save; a rewrite patches its bytes
	framed  bool           // the file had a front-matter block
}

// Pinned reports whether the front-matter says pinned: true.
func (e *Entry) Pinned() bool {
	return strings.EqualFold(strings.TrimSpace(e.Meta.Value(KeyPinned)), "true")
}

// Raw is the file's bytes as last read or written (what its next compare-and-swap compares against).
func (e *Entry) Raw() []byte { return e.version.Data() }

// Description returns the front-matter description.
func (e *Entry) Description() string { return e.Meta.Value(KeyDescription) }

// Type returns the front-matter type (experience, fact, episode, intention …).
func (e *Entry) Type() string { return e.Meta.Value(KeyType) }

// Score returns the stored score, 0.5 when absent or unreadable (the original default).
func (e *Entry) Score() float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(e.Meta.Value(KeyScore)), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0.5
	}
	return v
}

// Stability returns the stored stability, 0 when absent or unreadable.
func (e *Entry) Stability() int {
	s := strings.TrimSpace(e.Meta.Value(KeyStability))
	if v, err := strconv.Atoi(s); err == nil {
		return v
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return int(f)
	}
	return 0
}

// Created returns the created date; ok is false when absent or not an ISO date.
func (e *Entry) Created() (time.Time, bool) { return parseDate(e.Meta.Value(KeyCreated)) }

// LastUsed returns the last_used date; ok is false when absent or not an ISO date.
func (e *Entry) LastUsed() (time.Time, bool) { return parseDate(e.Meta.Value(KeyLastUsed)) }

// LastDecay returns the last_decay date; ok is false when absent or not an ISO date.
func (e *Entry) LastDecay() (time.Time, bool) { return parseDate(e.Meta.Value(KeyLastDecay)) }

// SetScore stores score clamped to [0,1] with at most 3 decimals.
func (e *Entry) SetScore(score float64) { e.Meta.Set(KeyScore, FormatScore(score)) }

// SetStability stores stability (never negative).
func (e *Entry) SetStability(n int) {
	if n < 0 {
		n = 0
	}
	e.Meta.Set(KeyStability, strconv.Itoa(n))
}

// BodyField returns the value of a `- key: value` body line (episodes and intentions keep details there).
func (e *Entry) BodyField(key string) string { return bodyField(e.Body, key) }

// Salience returns an episode's salience (low|mid|high), "" when not recorded.
func (e *Entry) Salience() string { return strings.ToLower(e.BodyField("salience")) }

// Clone returns a deep copy safe to modify.
func (e *Entry) Clone() *Entry {
	c := *e
	c.Meta = e.Meta.Clone()
	return &c
}

func bodyField(body, key string) string {
	prefix := "- " + key + ":"
	for len(body) > 0 {
		line, rest, _ := strings.Cut(body, "\n")
		body = rest
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, prefix) {
			return strings.TrimSpace(t[len(prefix):])
		}
	}
	return ""
}

// FormatScore renders a score the way the original writer does: clamped, rounded to 3 dp, `1.0` not `1`.
func FormatScore(score float64) string {
	if math.IsNaN(score) {
		score = 0
	}
	score = math.Max(0, math.Min(1, score))
	score = math.Round(score*1000) / 1000
	s := strconv.FormatFloat(score, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 10 {
		return time.Time{}, false
	}
	t, err := time.Parse(dateLayout, s[:10])
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// dayOf truncates t to its local calendar day, expressed as a UTC midnight so day arithmetic is exact.
func dayOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
