package sidecar

import (
	"context"
	"fmt"
	"time"

	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/memory"
)

// storeSource adapts memory.Store to index.Source: the index never parses
// Markdown itself, so the memory package stays the one reader of the format.
type storeSource struct{ st *memory.Store }

var _ index.Source = storeSource{}

// indexKinds are the entry kinds recall searches. A memory kind's name is
// its index kind (index.Kind* spell memory's words; TestKindsOneSpelling
// holds them together), so refs and docs carry it through unchanged.
var indexKinds = []memory.Kind{memory.KindKnowledge, memory.KindSkill, memory.KindEpisode}

var _ index.SubtreeScanner = storeSource{}

// Scan implements index.Source.
func (s storeSource) Scan(ctx context.Context) ([]index.FileRef, error) {
	refs, err := s.st.Scan(ctx, indexKinds...)
	if err != nil {
		return nil, fmt.Errorf("sidecar: scan memory: %w", err)
	}
	return fileRefs(refs), nil
}

// ScanUnder implements index.SubtreeScanner, so a watcher event on a new
// or moved folder costs a walk of that folder, not of the whole store.
func (s storeSource) ScanUnder(ctx context.Context, p string) ([]index.FileRef, error) {
	refs, err := s.st.ScanUnder(ctx, p, indexKinds...)
	if err != nil {
		return nil, fmt.Errorf("sidecar: scan memory under %s: %w", p, err)
	}
	return fileRefs(refs), nil
}

func fileRefs(refs []memory.Ref) []index.FileRef {
	out := make([]index.FileRef, len(refs))
	for i, r := range refs {
		out[i] = index.FileRef{Path: r.Path, Kind: string(r.Kind), ModTime: r.ModTime, Size: r.Size}
	}
	return out
}

// Load implements index.Source.
func (s storeSource) Load(_ context.Context, ref index.FileRef) (rank.Doc, error) {
	e, err := s.st.Load(ref.Path)
	if err != nil {
		return rank.Doc{}, err
	}
	return docOf(e), nil
}

// docOf maps one entry to what the index ranks; memory's accessors say
// where each field lives, so the index never reads the file format.
func docOf(e *memory.Entry) rank.Doc {
	return rank.Doc{
		Path:           e.Path,
		Kind:           string(e.Kind),
		Name:           e.Name,
		Description:    e.Description(),
		Body:           e.Body,
		Type:           e.Type(),
		Score:          e.Score(),
		Related:        e.Related(),
		Supersedes:     e.Supersedes(),
		SupersededBy:   e.SupersededBy(),
		AppliesWhen:    e.AppliesWhen(),
		NotAppliesWhen: e.NotAppliesWhen(),
		Tags:           e.Tags(),
		When:           e.When(),
	}
}

// splitList reads a list argument of a tool call the way memory reads list
// fields, so `tags: a，b` means the same in a file and in a request.
func splitList(v string) []string { return memory.SplitList(v) }

// scanInterval bounds how stale recall may be after a hand edit when the
// file watcher cannot run (no inotify, or the watch limit is reached): a
// search rescans by mtime when the last scan is older than this. With the
// watcher, a search reloads only the paths an event named (a recall's own
// reinforcement rewrites cost one read each, no embed).
const scanInterval = 2 * time.Second
