package index

import (
	"context"
	"log/slog"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// FileRef is the cheap per-file facts a Source reports on every scan; a
// changed ModTime or Size is what makes the index load the file again.
type FileRef struct {
	Path    string
	Kind    string
	ModTime time.Time
	Size    int64
}

// Source is how the index reads memory: a cheap scan of file facts and a
// load of one file. The sidecar adapts memory.Store to it.
type Source interface {
	// Scan lists every indexable file with its mtime and size; it must not
	// read file contents, since it runs before searches.
	Scan(ctx context.Context) ([]FileRef, error)
	// Load reads and parses one file.
	Load(ctx context.Context, ref FileRef) (rank.Doc, error)
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
	// QuickStart makes Open return once the cache is read, so searches
	// answer from it at once: the Source is listed in the background for
	// the first full sync, searches do not wait for that sync (the caller
	// runs it: SyncSince), and the WatchDirs are watched only after it,
	// in the background, followed by one more full sync that finds what
	// changed between the two (see Watched).
	QuickStart bool
}

// WatchSafetyInterval is how long a watched index trusts silence before a
// search rescans anyway (events can be lost: queue overflow, network
// file systems, edits racing a new directory's watch).
const WatchSafetyInterval = 5 * time.Minute
