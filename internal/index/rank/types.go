package rank

import (
	"strings"
	"time"
)

// Entry kinds. The index treats Kind as an opaque filter label; these are
// the words memory names its kinds with (memory.Kind spells the same, and
// the sidecar's Source passes a memory kind through as it is), plus the
// conversation turns the index ranks itself. ParseKind is the one reader
// of a kind a person or a model names.
const (
	KindKnowledge    = "knowledge"
	KindSkill        = "skill"
	KindEpisode      = "episode"
	KindIntention    = "intention"
	KindConversation = "conversation"
)

// ParseKind reads a recall kind as a types list names it: knowledge,
// skill or episode, singular or plural, any case. Any other word is not a
// kind (a recall list reads it as an entry type).
func ParseKind(word string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(word)) {
	case "knowledge":
		return KindKnowledge, true
	case "skill", "skills":
		return KindSkill, true
	case "episode", "episodes":
		return KindEpisode, true
	}
	return "", false
}

// Doc is one memory entry as the index sees it, loaded from an
// index.FileRef.
type Doc struct {
	Path        string
	Kind        string
	Name        string
	Description string
	Body        string
	Type        string   // front-matter type: experience, pitfall, episode, …
	Score       float64  // memory strength; breaks ranking ties only
	Related     []string // names or directory names this entry links to
	// Supersedes names the entries this one replaces (a fact that changed);
	// SupersededBy the entry that replaced this one. Both come from the
	// front-matter a dream writes (supersedes:, superseded_by:); recall
	// infers the same link between turns (see supersede.go).
	Supersedes     []string
	SupersededBy   string
	Tags           []string
	When           time.Time // episodes: when it happened
	AppliesWhen    string
	NotAppliesWhen string
	// Context is neighbouring text that helps find the entry without being
	// its content, e.g. the turn a conversation turn replies to. It is a
	// keyword field of low weight, and is neither embedded nor rendered;
	// when another entry's embedded text equals it and is a question, that
	// entry's cosine counts for this one too (contextCos).
	Context string
}

// Query is one search request against the index or an ad-hoc doc set. An
// empty Text lists the entries passing the filters, newest When first.
type Query struct {
	Text      string
	Kinds     []string  // empty ⇒ every kind
	EntryType string    // Doc.Type must equal it (case-insensitive) when set
	Since     time.Time // Doc.When lower bound (inclusive) when non-zero
	Until     time.Time // Doc.When upper bound (inclusive) when non-zero
	Tags      []string  // Doc.Tags must contain one of them when set
	Limit     int       // ≤ 0 ⇒ 10
	// Vector is a precomputed embedding of Text (assoc caches it per cue);
	// nil ⇒ the scorer embeds Text itself.
	Vector []float32
	// NoSpread turns off one-hop link spreading.
	NoSpread bool
}

// Hit is one ranked result with the evidence that put it there.
type Hit struct {
	Doc        Doc
	Hybrid     float64  // 0.6·cos part + 0.4·keyword + 0.2·literal (spread: seed·0.6)
	Cos        float64  // raw cosine; 0 when no vectors
	ContextCos float64  // the context's cosine with the query, discounted; 0 without one
	Keyword    float64  // normalised BM25 in [0,1)
	Literal    bool     // the whole query occurs in the entry
	Pinned     bool     // an exact symbol from the query occurs verbatim
	PinnedBy   string   // the symbol that pinned it
	Terms      []string // query terms that matched lexically (stems, CJK windows)
	Words      []string // the query's own words behind Terms, for people to read
	SpreadFrom string   // name of the seed when reached by link spreading
	// SupersededBy names the newer entry that states what this one said
	// before it changed (a link the front-matter gives or recall inferred).
	SupersededBy string
}
