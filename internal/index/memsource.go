package index

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/somni-dev/somni/internal/index/rank"
)

// MemSource is an in-memory Source for tests, evals and benchmarks: Put
// and Delete stand in for file writes, each bumping the ref's mtime.
type MemSource struct {
	mu   sync.Mutex
	docs map[string]rank.Doc
	refs map[string]FileRef
	tick int64
}

// NewMemSource returns a MemSource holding docs (keyed by Path).
func NewMemSource(docs ...rank.Doc) *MemSource {
	m := &MemSource{docs: map[string]rank.Doc{}, refs: map[string]FileRef{}}
	for _, d := range docs {
		m.Put(d)
	}
	return m
}

// Put adds or replaces a doc, as a file write would.
func (m *MemSource) Put(d rank.Doc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tick++
	m.docs[d.Path] = d
	m.refs[d.Path] = FileRef{Path: d.Path, Kind: d.Kind, ModTime: time.Unix(0, m.tick),
		Size: int64(len(d.Name) + len(d.Description) + len(d.Body))}
}

// Delete removes a doc, as deleting its file would.
func (m *MemSource) Delete(path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.docs, path)
	delete(m.refs, path)
}

// Scan lists the refs in path order.
func (m *MemSource) Scan(ctx context.Context) ([]FileRef, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]FileRef, 0, len(m.refs))
	for _, r := range m.refs {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Load returns the doc for ref.
func (m *MemSource) Load(_ context.Context, ref FileRef) (rank.Doc, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.docs[ref.Path]
	if !ok {
		return rank.Doc{}, fmt.Errorf("memsource: %s: not found", ref.Path)
	}
	return d, nil
}
