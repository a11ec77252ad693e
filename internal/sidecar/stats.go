package sidecar

import (
	"context"
	"fmt"
	"time"

	"github.com/somni-dev/somni/internal/memory"
)

// Stats is what `somni-sidecar stats` prints.
type Stats struct {
	DataDir        string         `json:"dataDir"`
	Entries        map[string]int `json:"entries"` // by kind
	Unparsable     int            `json:"unparsable"`
	OpenIntentions int            `json:"openIntentions"`
	PendingLogs    int            `json:"pendingLogs"`
	SessionLogs    int            `json:"sessionLogs"`
	Index          *IndexStats    `json:"index,omitempty"`
}

// IndexStats summarises the recall index.
type IndexStats struct {
	Embedder      string    `json:"embedder"`      // the id vectors are stored under
	EmbedderLabel string    `json:"embedderLabel"` // the same in words, and whether it is live
	SemanticReady bool      `json:"semanticReady"`
	Entries       int       `json:"entries"`
	Embedded      int       `json:"embedded"`
	Pending       int       `json:"pending"`
	LastSync      time.Time `json:"lastSync"`
}

// CollectStats counts entries by kind and reports the index after a sync.
func (s *Server) CollectStats(ctx context.Context) (Stats, error) {
	st := Stats{DataDir: s.store.DataDir(), Entries: map[string]int{}}
	entries, problems, err := s.store.List(ctx, memory.KindKnowledge, memory.KindSkill, memory.KindEpisode, memory.KindIntention)
	if err != nil {
		return st, fmt.Errorf("stats: %w", err)
	}
	for _, e := range entries {
		st.Entries[string(e.Kind)]++
	}
	st.Unparsable = len(problems)
	st.OpenIntentions = st.Entries[string(memory.KindIntention)]
	if logs, err := s.logs.Pending(); err == nil {
		st.PendingLogs = len(logs)
	}
	if all, err := s.logs.Files(ctx, true); err == nil {
		st.SessionLogs = len(all)
	}
	ix, err := s.Index(ctx)
	if err != nil {
		return st, err
	}
	if _, err := ix.Sync(ctx); err != nil {
		return st, fmt.Errorf("stats: sync index: %w", err)
	}
	is := ix.Status()
	st.Index = &IndexStats{Embedder: is.Embedder, EmbedderLabel: s.embedInfo().Label, SemanticReady: is.SemanticReady, Entries: is.Entries,
		Embedded: is.Embedded, Pending: is.Pending, LastSync: is.LastSync}
	return st, nil
}
