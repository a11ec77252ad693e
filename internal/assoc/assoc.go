// Package assoc turns the latest user message or tool call into at most a
// couple of associative memory hints, gated for precision and habituated
// per session so the same memory is not pushed twice.
//
//	assoc.go  Gate: the threshold, gap and habituation rules, the hint text, why a cue got none
//	cue.go    ActionCue, PathWordsCue: what of a tool call is a cue (the harness's built-in tools' arguments)
package assoc

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/present"
	"github.com/somni-dev/somni/internal/textcut"
)

// The gate's numbers when nothing sets them. These constants are the only
// copy: the sidecar's --assoc-threshold, --assoc-gap and --assoc-max-items
// and somni-eval read them from here. They are the Python sidecar's values,
// measured on testdata/recall (`make eval`, local embedder, all queries):
//
//   - DefaultThreshold 0.52: at 0.45 ordinary tool calls get 5 false hints
//     in 127 and paraphrases get a right hint 0.65 of the time; at 0.52, 1
//     in 127 and 0.59; at 0.60, 0 in 127 but paraphrases fall to 0.26.
//   - DefaultGap 0.04: 0.02 gives the same numbers; 0.08 lets more pairs
//     through and conversation hint precision falls from 0.56 to 0.50.
//   - DefaultMaxItems 2: the eval has no cue with two close leaders above
//     the threshold, so 1 and 2 score the same; 2 keeps the original
//     host's behaviour (both of two near-equal memories are shown).
const (
	DefaultThreshold = 0.52
	DefaultGap       = 0.04
	DefaultMaxItems  = 2
)

const (
	minCueRunes   = 8
	maxCueRunes   = 600
	candidatePool = 8   // hits the gate looks at
	maxSessions   = 512 // habituation state kept for this many sessions (LRU)
	// maxCachedCues bounds the cue vectors cached for the whole gate
	// (LRU): a vector depends on the cue text only, so sessions share
	// them, and the bound is on memory, not per session (512 sessions ×
	// 64 cues of a 1024-dim model would hold 128 MiB).
	maxCachedCues = 256
)

// Config holds the gate's numbers.
type Config struct {
	// Threshold is the minimum hybrid score for a hint; ≤ 0 ⇒ DefaultThreshold.
	Threshold float64
	// Gap is how far top-1 must lead top-2 to stand alone; ≤ 0 ⇒ DefaultGap.
	Gap float64
	// MaxItems is 1 or 2 hints per cue; 0 ⇒ DefaultMaxItems (ResolveMaxItems).
	MaxItems int
	// Kinds limits what may be hinted; empty ⇒ knowledge, skills, episodes.
	Kinds []string
	// AllowNoisy lets hints through with an embedder that says it is too noisy
	// (see Quiet); for evals only.
	AllowNoisy bool
	// ShowPath names a hinted file in the hint text the model reads
	// (relative to the data directory); nil ⇒ as stored. Items keep the
	// stored path: they are the compat shape a program reads.
	ShowPath func(string) string
}

func (c Config) withDefaults() Config {
	if c.Threshold <= 0 {
		c.Threshold = DefaultThreshold
	}
	if c.Gap <= 0 {
		c.Gap = DefaultGap
	}
	// Zero is the unset value of a Config; a negative one was set.
	c.MaxItems = ResolveMaxItems(c.MaxItems, c.MaxItems != 0)
	if len(c.Kinds) == 0 {
		c.Kinds = []string{rank.KindKnowledge, rank.KindSkill, rank.KindEpisode}
	}
	return c
}

// ResolveMaxItems is the one rule for how many hints a cue may get, for
// the gate and for --assoc-max-items alike. Unset (a Config nobody filled
// in) is DefaultMaxItems. A value someone set that is below 1 is 1: the
// flag is "min 1", and the original host's launch line, which the sidecar
// accepts as is, passes 0. Above 2 is kept but behaves as 2: three close
// leaders mean the cue is ambiguous and nothing is hinted (see Pick).
func ResolveMaxItems(n int, set bool) int {
	switch {
	case !set:
		return DefaultMaxItems
	case n < 1:
		return 1
	}
	return n
}

// Searcher is the part of *index.Index the gate uses.
type Searcher interface {
	Search(ctx context.Context, q rank.Query) ([]rank.Hit, error)
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
	Embedder() embed.Embedder
}

// Item is one hinted memory, in the compat result shape.
type Item struct {
	Name           string  `json:"name"`
	Description    string  `json:"description"`
	Path           string  `json:"path"`
	Type           string  `json:"type"`
	Score          float64 `json:"score"`
	AppliesWhen    string  `json:"applies_when"`
	NotAppliesWhen string  `json:"not_applies_when"`
	// Why is the gate's reason for the item in words (present.Hit.Why),
	// for the Memory tab; not part of the compat result.
	Why string `json:"-"`
}

// Result is what assoc.thought and assoc.action return.
type Result struct {
	Items []Item `json:"items"`
	Hint  string `json:"hint"`
}

// empty is the no-hint result; Items is non-nil so it encodes as [].
func empty() Result { return Result{Items: []Item{}} }

// Gate decides which memories to hint, remembering per session what it
// already hinted (habituation) and the query vector of recent cues.
type Gate struct {
	ix  Searcher
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	sessions map[string]*list.Element // LRU of *session
	lru      *list.List
	cues     map[string]*list.Element // LRU of *cachedCue
	cueLRU   *list.List
}

type session struct {
	id     string
	hinted map[string]bool // paths already hinted
}

type cachedCue struct {
	cue string
	vec []float32
}

// New builds a gate over an index.
func New(ix Searcher, cfg Config, logger *slog.Logger) *Gate {
	if logger == nil {
		logger = slog.Default()
	}
	return &Gate{ix: ix, cfg: cfg.withDefaults(), log: logger,
		sessions: map[string]*list.Element{}, lru: list.New(),
		cues: map[string]*list.Element{}, cueLRU: list.New()}
}

// Config returns the effective configuration.
func (g *Gate) Config() Config { return g.cfg }

// Quiet reports whether hints are withheld because the live embedder's
// scores are too noisy for unprompted suggestions: the embedder says so
// itself (embed.Noisy), from its eval numbers.
func (g *Gate) Quiet() bool {
	if g.cfg.AllowNoisy {
		return false
	}
	return embed.IsNoisy(g.ix.Embedder())
}

// Reset forgets what was hinted in a session.
func (g *Gate) Reset(sessionID string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if el, ok := g.sessions[sessionID]; ok {
		g.lru.Remove(el)
		delete(g.sessions, sessionID)
	}
}

// Thought gates a hint for the latest user message.
// A message naming a file is searched by that file's words too.
func (g *Gate) Thought(ctx context.Context, sessionID, cue string) (Result, error) {
	return g.gate(ctx, sessionID, cue, TextPathWordsCue(cue))
}

// Action gates a hint for a tool call about to run. A call naming a file,
// folder or page is searched twice, by its cue and by its path's words
// (PathWordsCue); each memory keeps the better of its two scores.
func (g *Gate) Action(ctx context.Context, sessionID, toolName string, args json.RawMessage) (Result, error) {
	cue := ActionCue(toolName, args)
	if cue == "" {
		return empty(), nil
	}
	return g.gate(ctx, sessionID, cue, PathWordsCue(toolName, args))
}

// gate searches each cue ("" skipped), keeps each memory's best score and
// picks what to hint. Every cue that ends with no hint says why in a debug
// line (Suppressed), so "why was there no hint?" is answered by the log.
func (g *Gate) gate(ctx context.Context, sessionID string, cues ...string) (Result, error) {
	var searched []string
	for _, c := range cues {
		if c = strings.TrimSpace(c); utf8.RuneCountInString(c) >= minCueRunes {
			if head, cut := textcut.Prefix(c, maxCueRunes); cut {
				g.log.Debug("assoc: cue too long; gating on its start only", "bytes", len(c), "runes_kept", maxCueRunes)
				c = head
			}
			searched = append(searched, c)
		}
	}
	if len(searched) == 0 {
		g.suppressed(sessionID, cues, SuppressShortCue, nil)
		return empty(), nil
	}
	if g.Quiet() {
		g.suppressed(sessionID, searched, SuppressQuiet, nil)
		return empty(), nil
	}
	var hits []rank.Hit
	for _, cue := range searched {
		h, err := g.search(ctx, cue)
		if err != nil {
			return empty(), err
		}
		hits = mergeHits(hits, h)
	}
	g.mu.Lock()
	s := g.session(sessionID)
	var cands []rank.Hit
	habituated := 0
	for _, h := range hits {
		switch {
		case h.Hybrid < g.cfg.Threshold:
		case s.hinted[h.Doc.Path]:
			habituated++
		default:
			cands = append(cands, h)
		}
	}
	picked := Pick(cands, g.cfg)
	for _, h := range picked {
		s.hinted[h.Doc.Path] = true
	}
	g.mu.Unlock()
	if len(picked) == 0 {
		why := SuppressGate
		switch {
		case len(cands) > 0:
			why = SuppressAmbiguous
		case habituated > 0:
			why = SuppressHabituation
		}
		g.suppressed(sessionID, searched, why, hits)
	}
	return g.render(picked), nil
}

// search is one cue's candidates, best first.
func (g *Gate) search(ctx context.Context, cue string) ([]rank.Hit, error) {
	vec, err := g.queryVector(ctx, cue)
	if err != nil {
		g.log.Warn("assoc: cue embedding failed; keyword only", "err", err)
	}
	hits, err := g.ix.Search(ctx, rank.Query{Text: cue, Vector: vec, Kinds: g.cfg.Kinds,
		Limit: candidatePool, NoSpread: true})
	if err != nil {
		return nil, fmt.Errorf("assoc: search: %w", err)
	}
	return hits, nil
}

// mergeHits adds b's hits to a, a memory in both keeping its higher score,
// and orders the result best first. With a empty it is b as ranked.
func mergeHits(a, b []rank.Hit) []rank.Hit {
	if len(a) == 0 {
		return b
	}
	at := map[string]int{}
	for i, h := range a {
		at[h.Doc.Path] = i
	}
	for _, h := range b {
		if i, ok := at[h.Doc.Path]; ok {
			if h.Hybrid > a[i].Hybrid {
				a[i] = h
			}
			continue
		}
		at[h.Doc.Path] = len(a)
		a = append(a, h)
	}
	sort.SliceStable(a, func(i, j int) bool { return a[i].Hybrid > a[j].Hybrid })
	return a
}

// Why a cue got no hint, as the debug line names it.
const (
	SuppressShortCue    = "short-cue"   // under minCueRunes: too little to go on
	SuppressQuiet       = "quiet"       // the embedder is too noisy for unprompted hints
	SuppressGate        = "gate"        // no memory reached the threshold
	SuppressHabituation = "habituation" // what reached it was hinted in this session already
	SuppressAmbiguous   = "ambiguous"   // three or more memories too close to tell apart (gap rule)
)

// suppressed logs at debug level why a cue got no hint, with the best
// score against the threshold: a hint a user expected and did not get is
// otherwise invisible.
func (g *Gate) suppressed(sessionID string, cues []string, why string, hits []rank.Hit) {
	if !g.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	attrs := []any{"why", why, "session", sessionID, "cues", len(cues), "threshold", g.cfg.Threshold}
	if len(hits) > 0 {
		attrs = append(attrs, "best", hits[0].Doc.Name, "score", round3(hits[0].Hybrid))
	}
	g.log.Debug("assoc: no hint", attrs...)
}

// gapEpsilon absorbs float rounding so a gap of exactly Gap counts.
const gapEpsilon = 1e-9

// Pick applies the gap rule to candidates already above threshold and
// not yet hinted, ordered best first: one, or a top-1 leading by ≥ gap →
// the top one; exactly two too close → both (when MaxItems ≥ 2); three or
// more too close → nothing, since the cue is ambiguous.
func Pick(cands []rank.Hit, cfg Config) []rank.Hit {
	cfg = cfg.withDefaults()
	switch {
	case len(cands) == 0:
		return nil
	case len(cands) == 1 || cands[0].Hybrid-cands[1].Hybrid >= cfg.Gap-gapEpsilon:
		return cands[:1]
	case len(cands) == 2 || cands[1].Hybrid-cands[2].Hybrid >= cfg.Gap-gapEpsilon:
		// two close leaders, the rest clearly behind
		if cfg.MaxItems >= 2 {
			return cands[:2]
		}
		return nil
	}
	return nil
}

// session returns (creating) a session's state; g.mu must be held.
func (g *Gate) session(id string) *session {
	if el, ok := g.sessions[id]; ok {
		g.lru.MoveToFront(el)
		return el.Value.(*session)
	}
	s := &session{id: id, hinted: map[string]bool{}}
	g.sessions[id] = g.lru.PushFront(s)
	if g.lru.Len() > maxSessions {
		old := g.lru.Back()
		g.lru.Remove(old)
		delete(g.sessions, old.Value.(*session).id)
	}
	return s
}

// queryVector returns the cue's embedding, cached so a cue repeated
// across iterations or sessions (same command retried) embeds once.
func (g *Gate) queryVector(ctx context.Context, cue string) ([]float32, error) {
	g.mu.Lock()
	if el, ok := g.cues[cue]; ok {
		g.cueLRU.MoveToFront(el)
		v := el.Value.(*cachedCue).vec
		g.mu.Unlock()
		return v, nil
	}
	g.mu.Unlock()
	v, err := g.ix.EmbedQuery(ctx, cue)
	if err != nil || v == nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.cues[cue]; !ok {
		g.cues[cue] = g.cueLRU.PushFront(&cachedCue{cue: cue, vec: v})
		if g.cueLRU.Len() > maxCachedCues {
			old := g.cueLRU.Back()
			g.cueLRU.Remove(old)
			delete(g.cues, old.Value.(*cachedCue).cue)
		}
	}
	return v, nil
}

// cachedCues is how many cue vectors are cached; g.mu must be held.
func (g *Gate) cachedCues() int { return len(g.cues) }

// render builds the compat result: items plus one hint line each
// (present.HintLine), naming files through cfg.ShowPath.
func (g *Gate) render(hits []rank.Hit) Result {
	res := empty()
	var lines []string
	shown := rank.Shown(hits)
	for i, h := range hits {
		d := h.Doc
		res.Items = append(res.Items, Item{Name: d.Name, Description: d.Description, Path: d.Path,
			Type: d.Type, Score: round3(h.Hybrid), AppliesWhen: d.AppliesWhen, NotAppliesWhen: d.NotAppliesWhen, Why: shown[i].Why()})
		path := d.Path
		if g.cfg.ShowPath != nil {
			path = g.cfg.ShowPath(path)
		}
		lines = append(lines, present.HintLine(present.Note{Name: d.Name, Description: d.Description,
			AppliesWhen: d.AppliesWhen, NotAppliesWhen: d.NotAppliesWhen, Path: path}))
	}
	res.Hint = strings.Join(lines, "\n")
	return res
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }
