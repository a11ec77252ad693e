package index

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/embed"
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

// FileRef is the cheap per-file facts a Source reports on every scan; a
// changed ModTime or Size is what makes the index load the file again.
type FileRef struct {
	Path    string
	Kind    string
	ModTime time.Time
	Size    int64
}

// Doc is one memory entry as the index sees it, loaded from a FileRef.
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

// Source is how the index reads memory: a cheap scan of file facts and a
// load of one file. The sidecar adapts memory.Store to it.
type Source interface {
	// Scan lists every indexable file with its mtime and size; it must not
	// read file contents, since it runs before searches.
	Scan(ctx context.Context) ([]FileRef, error)
	// Load reads and parses one file.
	Load(ctx context.Context, ref FileRef) (Doc, error)
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

// Status is what ping.vector and stats report about the index.
type Status struct {
	Embedder      string // live embedder ID ("off" when disabled)
	SemanticReady bool   // a sync ran and every entry carries a vector from the live embedder
	Entries       int
	Embedded      int  // entries carrying a vector from the live embedder (0 when off)
	Pending       int  // entries waiting for one: queued or being embedded
	BackingOff    bool // embedding failed recently; pending entries wait for the retry
	// Vectors: a query now ranks by cosine (not off, not backing off,
	// at least one entry embedded, or none indexed yet); not-yet-embedded
	// entries score by keyword beside the embedded ones.
	Vectors  bool
	LastSync time.Time
	Syncing  bool
}

// SyncStats says what one Sync did.
type SyncStats struct {
	Scanned int
	Loaded  int // files re-read because mtime/size changed
	// Queued is how many entries this sync left for the background
	// embedder (new or changed embedded text, or no current vector); the
	// sync returns without waiting for them (see Index.WaitEmbedded).
	Queued   int
	Removed  int
	Failed   int // files that could not be loaded (skipped until they change)
	Rebuilt  bool
	Duration time.Duration
}

// Options configures Open.
type Options struct {
	Path     string // sqlite file, usually <dataDir>/index.sqlite
	Source   Source
	Embedder embed.Embedder // nil ⇒ off
	Logger   *slog.Logger
	Now      func() time.Time
	// Calibration overrides the embedder's own floor/span (SOMNI_COS_FLOOR/SPAN).
	Calibration *embed.Calibration
	// Shared says whether the entry at a path is shared with the user (a
	// team pool's) rather than the user's own; nil ⇒ every entry is the
	// user's. A shared entry ranks beside the user's own at a prior
	// (sharedPrior) and is never the BM25 floor's entry (floor.go).
	Shared func(path string) bool
	// LinkSpread > 0 enables one hop of link spreading (the default; values
	// above 1 still mean one hop), < 0 disables it; 0 means the default.
	LinkSpread int
	// WatchDirs are watched recursively (inotify): a Search reloads only
	// the paths an event named (a folder event: that subtree, through
	// SubtreeScanner when the Source has it), instead of scanning every
	// file. Folders missing at Open are not watched.
	WatchDirs []string
	// Roots are the folders the Source's files live in: the data-dir
	// boundary (package safefs) through which the index stats the paths
	// a change names. Empty ⇒ WatchDirs; neither ⇒ the Source keeps no
	// files on disk. SyncPaths refuses a path outside every root.
	Roots []string
	// ScanInterval bounds how stale a Search may be without a working
	// watcher: a Search runs the mtime scan first when the last one is
	// older than this; 0 ⇒ every search scans. With a watcher, searches
	// rescan when it saw a change, and at the latest after
	// WatchSafetyInterval. <0 ⇒ searches never scan (callers Sync).
	ScanInterval time.Duration
}

// WatchSafetyInterval is how long a watched index trusts silence before a
// search rescans anyway (events can be lost: queue overflow, network
// file systems, edits racing a new directory's watch).
const WatchSafetyInterval = 5 * time.Minute
