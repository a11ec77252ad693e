package assoc

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// bigVecSearcher embeds every cue as a 1024-dim vector (a BERT-size
// model) and finds nothing, counting embeddings.
type bigVecSearcher struct{ embeds atomic.Int64 }

func (b *bigVecSearcher) Search(context.Context, rank.Query) ([]rank.Hit, error) { return nil, nil }

// Embedder is nil: a stand-in with no capabilities, so never noisy.
func (b *bigVecSearcher) Embedder() embed.Embedder { return nil }
func (b *bigVecSearcher) EmbedQuery(context.Context, string) ([]float32, error) {
	b.embeds.Add(1)
	return make([]float32, 1024), nil
}

// TestGateMemoryIsBounded drives many sessions with many distinct cues:
// habituation state is an LRU of sessions, the cached cue vectors have one
// bound for the whole gate (not per session: 512 sessions × 64 cues of a
// 1024-dim model would pin 128 MiB), Reset of an unknown session is a
// no-op, and one cue embeds once even across sessions.
func TestGateMemoryIsBounded(t *testing.T) {
	ctx := context.Background()
	ix := &bigVecSearcher{}
	g := New(ix, Config{}, nil)
	g.Reset("never-seen") // no panic, no state
	for s := range maxSessions + 50 {
		for c := range 70 {
			if _, err := g.Thought(ctx, fmt.Sprint("session-", s), fmt.Sprintf("distinct cue %d of %d", c, s)); err != nil {
				t.Fatal(err)
			}
		}
	}
	g.mu.Lock()
	sessions, cues := len(g.sessions), g.cachedCues()
	g.mu.Unlock()
	if sessions > maxSessions {
		t.Errorf("%d sessions kept, bound %d", sessions, maxSessions)
	}
	if cues > maxCachedCues {
		t.Errorf("%d cue vectors cached, bound %d for the whole gate", cues, maxCachedCues)
	}
	before := ix.embeds.Load()
	g.Thought(ctx, "a", "the same cue in two sessions")
	g.Thought(ctx, "b", "the same cue in two sessions")
	if got := ix.embeds.Load() - before; got != 1 {
		t.Errorf("one cue in two sessions embedded %d times, want 1", got)
	}
	g.Reset("a")
	g.Reset("a")
}
