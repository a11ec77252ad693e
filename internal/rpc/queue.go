package rpc

import (
	"sync"
)

// laneBatch bounds how many replies of one lane may wait for one write, so
// the first reply of a burst is not held back long.
const laneBatch = 64

// orderQueue runs keyed work in arrival order per key, different keys side
// by side, and barrier work alone between everything pushed before it and
// everything pushed after it. Pushing never blocks (it runs on the read
// loop). Each key with queued work has one lane goroutine; a barrier runs on
// its own goroutine once every lane has drained.
//
// While a barrier waits or runs, later pushes queue in backlog (arrival
// order kept) and are released to their lanes when it is done, up to the
// next barrier.
type orderQueue struct {
	flush func(*replyBatch)

	mu             sync.Mutex
	lanes          map[string]*lane // keys with work queued or running
	running        int              // keyed items in lanes, queued or running
	backlog        []ordered        // pushed behind a barrier; nonempty ⇒ starts with one
	barrierRunning bool
}

type ordered struct {
	key     string
	barrier bool
	f       func(*replyBatch)
}

// lane is one key's FIFO, drained by its own goroutine; it leaves the map
// (under mu) only when empty, so a lane in the map always has a drainer.
type lane struct{ items []func(*replyBatch) }

func newOrderQueue(flush func(*replyBatch)) *orderQueue {
	return &orderQueue{flush: flush, lanes: map[string]*lane{}}
}

// push queues f behind earlier work with the same key and any earlier barrier.
func (q *orderQueue) push(key string, f func(*replyBatch)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.barrierRunning || len(q.backlog) > 0 {
		q.backlog = append(q.backlog, ordered{key: key, f: f})
		return
	}
	q.enqueueLocked(key, f)
}

// pushBarrier queues f behind everything pushed so far.
func (q *orderQueue) pushBarrier(f func(*replyBatch)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.backlog = append(q.backlog, ordered{barrier: true, f: f})
	q.advanceLocked()
}

func (q *orderQueue) enqueueLocked(key string, f func(*replyBatch)) {
	q.running++
	l := q.lanes[key]
	if l == nil {
		l = &lane{}
		q.lanes[key] = l
		go q.drain(key, l)
	}
	l.items = append(l.items, f)
}

// advanceLocked starts the barrier at the head of the backlog once the
// lanes are empty, or releases backlog items to their lanes when no barrier
// is ahead of them.
func (q *orderQueue) advanceLocked() {
	for !q.barrierRunning && len(q.backlog) > 0 {
		head := q.backlog[0]
		if head.barrier {
			if q.running > 0 {
				return // the lanes' last item calls advance again
			}
			q.backlog = q.backlog[1:]
			q.barrierRunning = true
			go func() {
				head.f(nil)
				q.mu.Lock()
				q.barrierRunning = false
				q.advanceLocked()
				q.mu.Unlock()
			}()
			return
		}
		q.backlog = q.backlog[1:]
		q.enqueueLocked(head.key, head.f)
	}
	if len(q.backlog) == 0 {
		q.backlog = nil // let a long backlog's array go
	}
}

// drain runs l's items in order until the lane is empty. A burst shares
// one reply write per chunk; a lone request is written at once.
func (q *orderQueue) drain(key string, l *lane) {
	for {
		q.mu.Lock()
		items := l.items
		l.items = nil
		if len(items) == 0 {
			delete(q.lanes, key)
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		for len(items) > 0 {
			chunk := items[:min(len(items), laneBatch)]
			items = items[len(chunk):]
			var b *replyBatch
			if len(chunk) > 1 {
				b = &replyBatch{}
			}
			for _, f := range chunk {
				f(b)
			}
			if b != nil {
				q.flush(b)
			}
			q.mu.Lock()
			q.running -= len(chunk)
			if q.running == 0 {
				q.advanceLocked()
			}
			q.mu.Unlock()
		}
	}
}
