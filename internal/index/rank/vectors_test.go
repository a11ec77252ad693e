package rank

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// vecOf is a distinct vector for i.
func vecOf(i, dim int) []float32 {
	v := make([]float32, dim)
	for j := range v {
		v[j] = float32(i*dim + j)
	}
	return v
}

// TestArenaPacksAndNeverRewritesARow: a put entry's vector is a copy in
// the corpus' arena (the caller's slice is not kept), rows of one chunk
// lie side by side, no later put, swap, removal or repack changes a row
// an entry already holds, in the corpus or out of it, and repacks keep
// the dead rows bounded.
func TestArenaPacksAndNeverRewritesARow(t *testing.T) {
	const dim = 8
	c := newCorpus()
	var held []*Entry // every entry ever put, with the vector it must keep
	var want [][]float32
	put := func(path string, i int) *Entry {
		e := NewEntry(Doc{Path: path, Body: "body " + path})
		src := vecOf(i, dim)
		e.SetVec(src, "h")
		c.Put(e, nil)
		src[0] = -1 // the caller's slice is its own
		held, want = append(held, e), append(want, vecOf(i, dim))
		return e
	}
	a, b := put("a", 1), put("b", 2)
	if uintptr(unsafe.Pointer(&b.Vec()[0]))-uintptr(unsafe.Pointer(&a.Vec()[0])) != dim*4 {
		t.Fatal("two vectors put in a row are not side by side in one chunk")
	}
	// churn well past arenaSlack: edits that change the vector, edits that
	// keep it (ShareVec), swaps and removals
	for round := 0; round < 3*arenaSlack; round++ {
		p := fmt.Sprintf("n%d", round%50)
		switch round % 4 {
		case 0, 1:
			put(p, round+10)
		case 2:
			if old := c.Get(p); old != nil {
				ne := NewEntry(old.Doc)
				ne.ShareVec(old)
				c.Put(ne, nil)
				held, want = append(held, ne), append(want, slices.Clone(old.Vec()))
			}
		case 3:
			if old := c.Get(p); old != nil {
				sw := *old
				sw.SetVec(vecOf(round+10, dim), "h")
				c.Swap(&sw)
				held, want = append(held, &sw), append(want, vecOf(round+10, dim))
			}
			c.Remove(fmt.Sprintf("n%d", (round+7)%50))
		}
		if c.RepackWanted() { // as package index does after a batch
			repackNow(t, c)
		}
	}
	for i, e := range held {
		if !slices.Equal(e.Vec(), want[i]) {
			t.Fatalf("entry %d (%s) holds %v, want %v", i, e.Doc.Path, e.Vec()[:2], want[i][:2])
		}
	}
	// what the corpus holds now has the vector last given for its path
	for e := range c.All() {
		if !e.packed {
			t.Fatalf("%s: live vector not in the arena", e.Doc.Path)
		}
	}
	if a := c.vecs; c.RepackWanted() || a.issued-a.live > max(a.live, arenaSlack) {
		t.Fatalf("rows out of place past the bound after churn: issued %d, live %d, astray %d", a.issued, a.live, a.astray)
	}
}

// repackNow packs c's vectors anew the way package index does.
func repackNow(t testing.TB, c *Corpus) int {
	entries, _ := c.Entries()
	r, err := BuildRepack(context.Background(), entries)
	if err != nil {
		t.Fatal(err)
	}
	return c.SetRepack(r)
}

// TestRepackKeepsWhatSearchesSee: a repack swaps in copies of the entries
// that hold rows; lookups, vectors and the live count are what they were.
func TestRepackKeepsWhatSearchesSee(t *testing.T) {
	const dim = 4
	c := newCorpus()
	for i := range 10 {
		e := NewEntry(Doc{Path: fmt.Sprint(i), Body: "x"})
		e.SetVec(vecOf(i, dim), "h")
		c.Put(e, nil)
	}
	before := map[string][]float32{}
	for e := range c.All() {
		before[e.Doc.Path] = e.Vec()
	}
	repackNow(t, c)
	if c.vecs.issued != 10 || c.vecs.live != 10 {
		t.Fatalf("after repack: issued %d live %d, want 10 and 10", c.vecs.issued, c.vecs.live)
	}
	for p, v := range before {
		s, e := c.Find(p)
		if e != nil && &c.vecs.at(int(s))[0] != &e.Vec()[0] {
			t.Fatalf("%s: the scan reads the old row after a repack", p)
		}
		if e == nil || !slices.Equal(e.Vec(), v) || &e.Vec()[0] == &v[0] {
			t.Fatalf("%s: after repack %v (same row: %v), want a copy of %v", p, e.Vec(), e != nil && &e.Vec()[0] == &v[0], v)
		}
	}
}

// TestVectorsArrivingOutOfOrderEndInSlotOrder: the background embedder
// swaps vectors in in no order; the rows end up mostly in slot order, so
// a scan reads memory front to back.
func TestVectorsArrivingOutOfOrderEndInSlotOrder(t *testing.T) {
	const n, dim = 6000, 16
	c := newCorpus()
	for i := range n {
		c.Put(NewEntry(Doc{Path: fmt.Sprint(i), Body: "x"}), nil)
	}
	copied := 0
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
		old := c.Get(fmt.Sprint(i))
		t2 := *old
		t2.SetVec(vecOf(i, dim), "h")
		c.Swap(&t2)
		if c.RepackWanted() { // as the embedder's batches set off
			copied += repackNow(t, c)
		}
	}
	inOrder := 0
	for s := 1; s < n; s++ {
		if follows(c.vecs.at(s-1), c.vecs.at(s)) {
			inOrder++
		}
		if !slices.Equal(c.vecs.at(s), vecOf(s, dim)) {
			t.Fatalf("slot %d holds another vector", s)
		}
	}
	t.Logf("%d of %d rows in order, %d copied by repacks", inOrder, n-1, copied)
	if inOrder < n*2/3 {
		t.Fatalf("%d of %d rows follow their slot's predecessor, want at least two thirds", inOrder, n-1)
	}
}

// BenchmarkRepack is BuildRepack of 100k vectors of 256 floats, the part
// of a repack done without the corpus lock.
func BenchmarkRepack(b *testing.B) {
	const n, dim = 100000, 256
	c := newCorpus()
	for i := range n {
		e := NewEntry(Doc{Path: fmt.Sprint(i), Body: "x"})
		e.SetVec(vecOf(i, dim), "h")
		c.Put(e, nil)
	}
	entries, _ := c.Entries()
	for b.Loop() {
		if _, err := BuildRepack(context.Background(), entries); err != nil {
			b.Fatal(err)
		}
	}
}
