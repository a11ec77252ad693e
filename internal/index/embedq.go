package index

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/cache"
	"github.com/somni-dev/somni/internal/index/rank"
)

// Background embedding. A sync publishes what it loaded at once, keyword
// searchable, and leaves the vectors to one goroutine per Index: before
// this, applyLocked embedded under syncMu and a search's refresh could run
// that sync inline, so the first recall after 500 new files waited 24 s
// for the local model. Now a search never waits for an embedding it did
// not ask for (its own query's, at most).
const (
	// embedBatch is how many texts one Embed call gets. The local model
	// runs ≈ 368 texts/s (10k entries in 27 s), so a batch holds the
	// corpus lock for one publication roughly every 0.7 s.
	embedBatch = 256
	// embedProgressEvery spaces the Info progress lines of a long run
	// (a first start embeds 10k entries for about half a minute): one
	// every few seconds says it is moving without a line per batch.
	embedProgressEvery = 5 * time.Second
	// embedPersistTimeout bounds writing one computed batch once Close
	// has cancelled the embedder: the vectors are paid for, so they are
	// kept, but a stuck database must not hold Close forever (SQLite's
	// own busy_timeout is 5 s).
	embedPersistTimeout = 10 * time.Second
)

// ErrEmbedBackoff is what WaitEmbedded returns while embedding is backing
// off after a failure: the entries still waiting stay keyword-only until
// the retry, embed.Backoff later.
var ErrEmbedBackoff = errors.New("index: embedder failing; waiting entries stay keyword-only until the retry")

// embedQueue is the work of the background embedder: entries published
// without the vector the live embedder would give them. Keyed by path, so
// a file that changes again before its turn is embedded once, in its
// newest form.
type embedQueue struct {
	mu       sync.Mutex
	pending  map[string]*rank.Entry  // path → the published entry awaiting a vector
	inflight map[string]cache.Digest // path → embedHash taken by the embedder, not yet published
	backoff  time.Time               // no Embed call before this (ix.now clock)
	wake     chan struct{}           // capacity 1: there is work, or the backoff may be over
	changed  chan struct{}           // closed and replaced on every change WaitEmbedded cares about
	stopped  bool                    // the embedder goroutine has returned

	// the current run (from the queue filling to its emptying), for the
	// progress lines
	runStart time.Time
	runDone  int
	logged   time.Time // last progress line; zero ⇒ none this run
}

func (q *embedQueue) init() {
	q.pending = map[string]*rank.Entry{}
	q.inflight = map[string]cache.Digest{}
	q.wake = make(chan struct{}, 1)
	q.changed = make(chan struct{})
}

// notifyLocked wakes WaitEmbedded callers; q.mu held.
func (q *embedQueue) notifyLocked() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// poke wakes the embedder without blocking.
func (q *embedQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// startEmbedder runs the background embedder until Close.
func (ix *Index) startEmbedder() {
	ix.eq.init()
	ix.embCtx, ix.embCancel = context.WithCancel(context.Background())
	ix.embDone = make(chan struct{})
	go ix.runEmbedder(ix.embCtx)
}

// stopEmbedder cancels the embedder and waits for it; a batch it already
// computed is still written (see embedBatchOnce).
func (ix *Index) stopEmbedder() {
	ix.embCancel()
	<-ix.embDone
}

// runEmbedder takes batches off the queue until ctx ends.
func (ix *Index) runEmbedder(ctx context.Context) {
	defer close(ix.embDone)
	defer func() {
		q := &ix.eq
		q.mu.Lock()
		q.stopped = true
		q.notifyLocked()
		q.mu.Unlock()
	}()
	for {
		batch, wait := ix.takeBatch()
		if len(batch) == 0 {
			var timer *time.Timer
			var expired <-chan time.Time
			if wait > 0 {
				timer = time.NewTimer(wait)
				expired = timer.C
			}
			select {
			case <-ctx.Done():
			case <-ix.eq.wake:
			case <-expired:
			}
			if timer != nil {
				timer.Stop()
			}
			if ctx.Err() != nil {
				return
			}
			continue
		}
		ix.embedBatchOnce(ctx, batch)
		if ctx.Err() != nil {
			return
		}
	}
}

// takeBatch moves up to embedBatch entries from pending to in flight.
// With nothing to do it returns how long to sleep: until the backoff
// ends, or 0 for "until woken".
func (ix *Index) takeBatch() ([]*rank.Entry, time.Duration) {
	q := &ix.eq
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		return nil, 0
	}
	if now := ix.now(); now.Before(q.backoff) {
		return nil, q.backoff.Sub(now)
	}
	batch := make([]*rank.Entry, 0, min(embedBatch, len(q.pending)))
	for p, e := range q.pending {
		batch = append(batch, e)
		delete(q.pending, p)
		if len(batch) == embedBatch {
			break
		}
	}
	if q.runStart.IsZero() {
		q.runStart, q.runDone, q.logged = time.Now(), 0, time.Time{}
	}
	for _, e := range batch {
		q.inflight[e.Doc.Path] = e.EmbedHash
	}
	return batch, 0
}

// embedBatchOnce embeds one batch, writes the vectors to SQLite and
// publishes them. An entry that a sync replaced meanwhile (another
// embedded text, or gone) gets nothing: its vector would be stale.
func (ix *Index) embedBatchOnce(ctx context.Context, batch []*rank.Entry) {
	texts := make([]string, len(batch))
	for i, e := range batch {
		texts[i] = rank.EmbedText(e.Doc)
	}
	vecs, err := ix.scorer.Guard().Texts(ctx, texts)
	if err != nil {
		closing := ctx.Err() != nil
		if !closing {
			ix.scorer.Guard().MarkDown()
			ix.log.Warn("embedding failed; entries stay keyword-only, retrying later",
				"embedder", ix.embID, "err", err, "retry_in", embed.Backoff, "waiting", len(batch))
		}
		ix.requeue(batch, closing)
		return
	}
	done := make([]*rank.Entry, len(batch))
	for i, e := range batch {
		ne := *e
		ne.SetVec(vecs[i], ix.embID)
		done[i] = &ne
	}

	ix.pubMu.Lock()
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), embedPersistTimeout)
	if err := ix.writeVectors(wctx, done); err != nil {
		// the corpus still gets them; the next start re-embeds these
		ix.log.Warn("index: vectors not saved; the next start embeds these entries again", "n", len(done), "err", err)
	}
	cancel()
	published := 0
	ix.mu.Lock()
	for _, ne := range done {
		cur := ix.c.Get(ne.Doc.Path)
		if cur == nil {
			continue
		}
		if cur.EmbedHash != ne.EmbedHash || ix.current(cur) {
			continue // changed again (it is queued in its new form), or already has one
		}
		t := *cur // entries are immutable once published: swap in a copy
		t.ShareVec(ne)
		ix.c.Swap(&t)
		published++
	}
	ix.mu.Unlock()
	q := &ix.eq
	q.mu.Lock()
	for _, ne := range done {
		// a sync that re-published the same text before we did queued it
		// again; it holds this vector now
		if p := q.pending[ne.Doc.Path]; p != nil && p.EmbedHash == ne.EmbedHash && ix.current(ix.c.Get(ne.Doc.Path)) {
			delete(q.pending, ne.Doc.Path)
		}
	}
	q.doneLocked(batch)
	q.runDone += len(batch)
	ix.logProgressLocked()
	q.notifyLocked()
	q.mu.Unlock()
	ix.pubMu.Unlock()
	ix.counters.embedded.Add(int64(published))
	ix.apartLater() // the rows came in the queue's order: pack them anew once enough are astray
}

// requeue puts a batch that was not embedded back, unless a sync replaced
// or removed the entry meanwhile. A failure (not a Close) starts the
// backoff.
func (ix *Index) requeue(batch []*rank.Entry, closing bool) {
	ix.pubMu.Lock()
	defer ix.pubMu.Unlock()
	q := &ix.eq
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, e := range batch {
		if _, newer := q.pending[e.Doc.Path]; newer {
			continue
		}
		if cur := ix.c.Get(e.Doc.Path); cur != nil && cur.EmbedHash == e.EmbedHash && !ix.current(cur) {
			q.pending[e.Doc.Path] = cur
		}
	}
	q.doneLocked(batch)
	if !closing {
		q.backoff = ix.now().Add(embed.Backoff)
	}
	q.notifyLocked()
}

// logProgressLocked writes the run's progress: "embedded 1200/5882" at
// most every embedProgressEvery, and one line with the duration when the
// queue empties (Info for a run that took more than a batch or already
// logged progress, Debug for the one-file edits a watcher feeds). q.mu held.
func (ix *Index) logProgressLocked() {
	q := &ix.eq
	total := q.runDone + len(q.inflight) + len(q.pending)
	if len(q.inflight)+len(q.pending) == 0 {
		took := time.Since(q.runStart).Round(time.Millisecond)
		lvl := slog.LevelDebug
		if total > embedBatch || !q.logged.IsZero() {
			lvl = slog.LevelInfo
		}
		ix.log.Log(context.Background(), lvl, fmt.Sprintf("embedded %d/%d", q.runDone, total),
			"embedder", ix.embID, "took", took)
		q.runStart = time.Time{}
		return
	}
	last := q.logged
	if last.IsZero() {
		last = q.runStart
	}
	if time.Since(last) >= embedProgressEvery {
		ix.log.Info(fmt.Sprintf("embedded %d/%d", q.runDone, total), "embedder", ix.embID,
			"elapsed", time.Since(q.runStart).Round(time.Millisecond))
		q.logged = time.Now()
	}
}

// enqueueLocked records what a sync just published: paths whose entry
// lacks a current vector wait for the embedder, the others (reused
// vectors, removals) leave the queue. Callers hold pubMu; the entries
// are the published ones. It returns how many entries wait now that did
// not before.
func (ix *Index) enqueueLocked(paths []string) int {
	if ix.off {
		return 0
	}
	q := &ix.eq
	q.mu.Lock()
	defer q.mu.Unlock()
	added := 0
	for _, p := range paths {
		cur := ix.c.Get(p)
		if cur == nil || ix.current(cur) {
			delete(q.pending, p)
			continue
		}
		if h, ok := q.inflight[p]; ok && h == cur.EmbedHash {
			delete(q.pending, p) // being embedded: the vector will fit this entry
			continue
		}
		if old, ok := q.pending[p]; !ok || old.EmbedHash != cur.EmbedHash {
			added++
		}
		q.pending[p] = cur
	}
	if len(q.pending) > 0 {
		q.poke() // also after the clock passed a backoff without a timer firing
	}
	q.notifyLocked()
	return added
}

// current reports whether e carries what the live embedder gives it: its
// vector, or with the embedder off the "off" mark alone.
func (ix *Index) current(e *rank.Entry) bool {
	return e != nil && e.Embedder == ix.embID && (e.Vec() != nil || ix.off)
}

// WaitEmbedded returns once every published entry has its vector: nothing
// waits and nothing is being embedded. It does not wait out a failure:
// while the embedder backs off it returns ErrEmbedBackoff at once, since
// the retry is embed.Backoff away. It returns ctx's error when ctx ends
// first, and an error after Close.
func (ix *Index) WaitEmbedded(ctx context.Context) error {
	q := &ix.eq
	for {
		q.mu.Lock()
		n, ch, stopped := len(q.pending)+len(q.inflight), q.changed, q.stopped
		backingOff := ix.now().Before(q.backoff) && len(q.inflight) == 0
		q.mu.Unlock()
		switch {
		case n == 0:
			return nil
		case backingOff:
			return fmt.Errorf("%w (%d waiting)", ErrEmbedBackoff, n)
		case stopped || ix.closed.Load():
			return fmt.Errorf("index: closed with %d entries not embedded", n)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("index: waiting for %d embeddings: %w", n, ctx.Err())
		case <-ch:
		}
	}
}

// embedState is the queue's side of Status.
func (ix *Index) embedState() (pending int, backingOff bool) {
	q := &ix.eq
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending) + len(q.inflight), ix.now().Before(q.backoff)
}

// doneLocked takes a batch out of flight; q.mu held.
func (q *embedQueue) doneLocked(batch []*rank.Entry) {
	for _, e := range batch {
		if q.inflight[e.Doc.Path] == e.EmbedHash {
			delete(q.inflight, e.Doc.Path)
		}
	}
}
