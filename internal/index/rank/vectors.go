package rank

import (
	"context"
	"fmt"
	"unsafe"
)

// A corpus keeps its entries' vectors packed side by side in a few large
// chunks (vecArena), not one allocation each. A vector search reads every
// stored vector; allocated one by one as the embedder's batches and the
// cache's rows arrive, they lay scattered over the heap and the scan paid
// a cache and TLB miss for each (100k vectors of 256 floats, one core:
// 38–56 ms scattered, 14 ms allocated in order, 8 ms packed). The scan
// reads the rows through a table by slot (vecArena.bySlot), not through
// the entries: an entry is swapped for a copy at every change, so entries
// lie scattered too, and loading each one's vector field was a third of a
// 100k scan.
//
// A row is written once, when its entry is put, and never again: entries
// stay immutable once published, so a reader holding an old entry never
// sees another's vector. A removed entry's row is dead space in its chunk
// until the chunk has no live row left. Rows are cut in the order vectors
// arrive, which is not the slots' (the background embedder takes its
// queue in no order); a row that does not follow the row of the slot
// before it is astray. Once dead and astray rows outnumber a quarter of the live
// ones (RepackWanted), package index packs the live vectors anew in slot
// order, apart from searches (Entries, BuildRepack, SetRepack): over a
// first embedding of 6,000 entries in random order that copied 1.5 rows
// an entry, and at its end 78 % of the rows follow the row of the slot
// before (TestVectorsArrivingOutOfOrderEndInSlotOrder).

// arenaChunk is the floats one chunk holds: 512 vectors at 256 dimensions
// (the hash embedder's; the local model's 512 make it 256), so a corpus of
// a few entries costs one 512 KB chunk and 100k entries 200 of them.
// arenaSlack is how many rows out of place RepackWanted lets stand before
// it compares them with the live ones, so a small memory is not packed
// anew at every few edits.
const (
	arenaChunk = 1 << 17
	arenaSlack = 1024
)

// vecArena hands out rows for a corpus' vectors.
type vecArena struct {
	chunk  []float32   // the chunk rows are cut from; its length is what was handed out
	issued int         // rows handed out since the last SetRepack
	live   int         // live entries holding a row (twins sharing one count once each)
	astray int         // live rows that do not follow the row of the slot before (about: counted when cut)
	bySlot [][]float32 // every slot's vector, nil for none; may be shorter than the slots
}

// at is slot s's vector, nil for none (or no such slot).
func (a *vecArena) at(s int) []float32 {
	if s >= 0 && s < len(a.bySlot) {
		return a.bySlot[s]
	}
	return nil
}

// set files v as slot s's vector.
func (a *vecArena) set(s int32, v []float32) {
	if int(s) >= len(a.bySlot) {
		if v == nil {
			return
		}
		a.bySlot = append(a.bySlot, make([][]float32, int(s)+1-len(a.bySlot))...)
	}
	a.bySlot[s] = v
}

// row is a fresh row of n floats; a vector wider than a quarter chunk gets
// one of its own.
func (a *vecArena) row(n int) []float32 {
	a.issued++
	if n > arenaChunk/4 {
		return make([]float32, n)
	}
	if cap(a.chunk)-len(a.chunk) < n {
		a.chunk = make([]float32, 0, arenaChunk)
	}
	l := len(a.chunk)
	a.chunk = a.chunk[:l+n]
	return a.chunk[l : l+n : l+n]
}

// Vec is the entry's embedding, nil until embedded; it must not be
// written through.
func (e *Entry) Vec() []float32 { return e.vec }

// SetVec gives an entry not yet put its vector (nil drops it) and the ID
// of the embedder that produced it.
func (e *Entry) SetVec(v []float32, embedder string) {
	e.vec, e.Embedder, e.packed = v, embedder, false
}

// ShareVec gives an entry not yet put from's vector and embedder, as they
// are: an entry whose embedded text did not change keeps its row.
func (e *Entry) ShareVec(from *Entry) {
	e.vec, e.Embedder, e.packed = from.vec, from.Embedder, from.packed
}

// pack moves the vector of e, filed at slot s, into the corpus' arena
// unless it is in one, and counts it live; Put and Swap call it.
func (c *Corpus) pack(s int32, e *Entry) {
	if e.vec != nil && !e.packed {
		v := c.vecs.row(len(e.vec))
		copy(v, e.vec)
		e.vec, e.packed = v, true
		if c.vecs.strays(int(s), v) {
			c.vecs.astray++
		}
	}
	if e.vec != nil {
		c.vecs.live++
	}
	c.vecs.set(s, e.vec)
}

// unpack counts the row of e, leaving slot s, dead.
func (c *Corpus) unpack(s int32, e *Entry) {
	if e.vec != nil {
		c.vecs.live--
	}
	c.vecs.set(s, nil)
}

// setVec gives the entry at slot s of a throwaway corpus (ScoreDocs) its
// vector, embedded after it was put.
func (c *Corpus) setVec(s int32, v []float32) {
	e := c.slots[s]
	c.unpack(s, e)
	e.vec, e.packed = v, false
	c.pack(s, e)
}

// strays reports whether row v, slot s's, is astray: the slot before
// holds a row that v does not follow.
func (a *vecArena) strays(s int, v []float32) bool {
	prev := a.at(s - 1)
	return prev != nil && !follows(prev, v)
}

// follows reports whether row v lies right after row prev in memory.
func follows(prev, v []float32) bool {
	// compared as numbers: a pointer one past prev's end would point
	// outside its allocation
	return len(prev) > 0 && len(v) > 0 &&
		uintptr(unsafe.Pointer(&prev[0]))+uintptr(4*len(prev)) == uintptr(unsafe.Pointer(&v[0]))
}

// RepackWanted reports whether the rows out of place (dead or astray)
// outnumber a quarter of the live ones and arenaSlack, so the index
// should pack the vectors anew: Entries, BuildRepack, then SetRepack.
// Call it under the index's read lock.
func (c *Corpus) RepackWanted() bool {
	a := &c.vecs
	return a.issued-a.live+a.astray > max(a.live/4, arenaSlack)
}

// Repack is a corpus' vectors packed anew in slot order, built apart from
// searches (BuildRepack) and installed by SetRepack.
type Repack struct {
	from, to []*Entry // by slot: the entry copied, and its copy holding the new row
	arena    vecArena
}

// BuildRepack copies every entry of entries (by slot, as Entries gives
// them) that holds a vector, with the vector in a fresh row in slot
// order. It holds no lock: published entries and their rows are
// immutable. At 100k vectors of 256 floats it takes about 0.1 s
// (BenchmarkRepack), which is why it is not done under the lock searches
// wait on.
func BuildRepack(ctx context.Context, entries []*Entry) (*Repack, error) {
	r := &Repack{from: entries, to: make([]*Entry, len(entries))}
	for s, e := range entries {
		if s%4096 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("rank: repack vectors: %w", ctx.Err())
		}
		if e == nil || e.vec == nil {
			continue
		}
		t := *e
		t.vec, t.packed = r.arena.row(len(e.vec)), true
		copy(t.vec, e.vec)
		r.to[s] = &t
	}
	return r, nil
}

// SetRepack installs r: each slot that still holds the entry r copied
// takes the copy; a slot put, swapped or removed meanwhile keeps what it
// has. It returns how many slots took their copy. Call it under the
// index's write lock.
func (c *Corpus) SetRepack(r *Repack) int {
	n := 0
	for s, t := range r.to {
		if t != nil && s < len(c.slots) && c.slots[s] == r.from[s] {
			c.slots[s] = t
			c.vecs.set(int32(s), t.vec)
			n++
		}
	}
	// rows are cut from the new chunks from now on; what stayed behind
	// counts out of place until the next repack
	c.vecs.chunk, c.vecs.issued, c.vecs.astray = r.arena.chunk, c.vecs.live, 0
	for s, v := range c.vecs.bySlot {
		if v != nil && c.vecs.strays(s, v) {
			c.vecs.astray++
		}
	}
	return n
}
