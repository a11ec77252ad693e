package browse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/memory"
)

// Bounds on what a caller may ask for, and on what a reply carries.
const (
	// MaxPathBytes bounds a wire path: the deepest entry path somni writes is
	// well under 300 bytes; a longer one is a mistake, not a file.
	MaxPathBytes = 1024
	// MaxQueryBytes bounds a list query, as recall's own queries are bounded by the prompt.
	MaxQueryBytes = 2048
	// MaxTagBytes bounds a tag filter (tags are words).
	MaxTagBytes = 128
	// MaxListLimit is the most entries one page holds (the tab pages; 200
	// rows is more than a screen shows).
	MaxListLimit = 200
	// DefaultListLimit is a page when the caller names none.
	DefaultListLimit = 50
	// MaxRankedHits is how many of recall's ranked hits a query pages over:
	// past that, ranking says little and a person refines the query.
	MaxRankedHits = 200
	// MaxOffset bounds paging: the store caps active semantic entries at 300,
	// episodes run to a few thousand.
	MaxOffset = 100000
	// MaxRawBytes is the most a hand edit may write: the store's read bound,
	// so what is written can be read back.
	MaxRawBytes = memory.MaxEntryBytes

	// StrengthHorizonDays is how far ahead a strength series projects decay:
	// a quarter shows whether an entry will still be there next season.
	StrengthHorizonDays = 90
	// StrengthStepDays is the spacing of projected points (weekly: enough for a curve).
	StrengthStepDays = 7
	// MaxRecallPoints bounds the recall days a series shows (the newest);
	// the journal holds up to 40k hits until a dream folds it.
	MaxRecallPoints = 60
	// MaxDreams is the most dreams memory.dreams returns (each carries up to
	// a 64 KiB diff and its diary).
	MaxDreams = 50
)

// ErrBadPath is a path the tab may not use (outside the data directory, not
// an entry, refused by the boundary); it wraps memory.ErrInvalid so the
// sidecar answers -32602.
var ErrBadPath = fmt.Errorf("%w: bad path", memory.ErrInvalid)

// Conflict is a compare-and-swap that found the file changed since the
// caller's version: the caller gets what the file says now.
type Conflict struct {
	Path    string // relative to the data directory
	Current string // the file's text now ("" when it is gone)
	Version string // its version token now ("" when it is gone)
}

func (c *Conflict) Error() string {
	return fmt.Sprintf("conflict: %s changed on disk since it was read", c.Path)
}

// IsConflict returns the conflict err carries, if any.
func IsConflict(err error) (*Conflict, bool) {
	var c *Conflict
	ok := errors.As(err, &c)
	return c, ok
}

// SearchFunc is recall's search (the sidecar's, as recall_memories runs it).
type SearchFunc func(ctx context.Context, q rank.Query) ([]rank.Hit, error)

// Browser is the tab's view of one store.
type Browser struct {
	store  *memory.Store
	ed     memory.Editor
	search SearchFunc
	pools  []Pool // mounted team pools, read-only (WithPools)
}

// New returns a browser over st; search ranks list queries (nil: listing only).
func New(st *memory.Store, search SearchFunc) *Browser {
	return &Browser{store: st, ed: memory.EditorOf(st), search: search}
}

// Token is the version token of a file's bytes: the compare-and-swap the
// store does (safefs.Version) compares these bytes, and the token names them.
func Token(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{memory.ErrInvalid}, args...)...)
}
