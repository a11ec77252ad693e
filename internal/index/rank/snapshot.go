package rank

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime/debug"
	"time"
	"unsafe"

	"github.com/somni-dev/somni/internal/bm25"
	"github.com/somni-dev/somni/internal/dates"
)

// The snapshot is the corpus written whole to bytes and read back: every
// entry with its lexical view and vector, and the keyword index's posting
// lists. A start reads it in one pass instead of reading the cache's rows
// and posting each entry's terms again (what that saves a restart:
// docs/ARCHITECTURE.md, Measurements; BenchmarkOpenCache in package index
// times the two reads alone).
//
// It is a copy of the cache file, never a source of truth: package index
// decides when one is written and read (the cache file's identity and
// write generation, SnapshotKey), and ReadSnapshot takes one only when it
// names that key, the counting NewEntry does now (lexStamp) and holds its
// checksum. What a snapshot does not keep is derived again as it is read:
// the embedded texts' keys (per process, keySeed), whether an entry is a
// team pool's (the corpus' shared, an option of this run). The floor's
// index (plain.go) is kept when the corpus had one: built again, it cost
// a start 40 µs of CPU a note.

const (
	snapMagic   = "SOMNISN\x01"
	snapVersion = 4
	// magic, version, crc32c of the rest, lexStamp, generation, the
	// lengths of the strings region and of what follows it; the entries'
	// text keys are not kept (keySeed is per process)
	snapHeader = 8 + 4 + 4 + 8 + 8 + 8 + 8
	// maxSnapshot bounds what ReadSnapshot reads into memory: a file
	// larger is passed over (the rows are read). 100k notes with 512-dim
	// vectors make about 300 MB; 2 GiB is room for several times that.
	maxSnapshot = 2 << 30
)

var snapCRC = crc32.MakeTable(crc32.Castagnoli)

// snapWriter appends the snapshot's body: its strings go to one region
// (short ones once), the rest refers to them by offset and length.
type snapWriter struct {
	b     []byte            // everything but the strings
	strs  []byte            // the strings region
	short map[string]uint64 // short strings already in strs → offset
}

func (w *snapWriter) uv(v uint64)   { w.b = binary.AppendUvarint(w.b, v) }
func (w *snapWriter) vi(v int64)    { w.b = binary.AppendVarint(w.b, v) }
func (w *snapWriter) u64(v uint64)  { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *snapWriter) f32(v float32) { w.b = binary.LittleEndian.AppendUint32(w.b, math.Float32bits(v)) }

func (w *snapWriter) str(s string) {
	if s == "" {
		w.uv(0)
		w.uv(0)
		return
	}
	w.uv(uint64(len(w.strs)))
	w.uv(uint64(len(s)))
	w.strs = append(w.strs, s...)
}

// shared is str for a string many entries repeat (a kind, a type, the
// embedder, a tag): stored once.
func (w *snapWriter) shared(s string) {
	off, ok := w.short[s]
	if !ok {
		off = uint64(len(w.strs))
		w.strs = append(w.strs, s...)
		w.short[s] = off
	}
	w.uv(off)
	w.uv(uint64(len(s)))
}

func (w *snapWriter) strList(ss []string) {
	w.uv(uint64(len(ss)))
	for _, s := range ss {
		w.shared(s)
	}
}

// SnapshotKey names what a snapshot is a copy of: the cache file (its
// identity and write generation, package cache's Generation) and the
// embedder whose vectors it holds.
type SnapshotKey struct {
	ID       string
	Gen      uint64
	Embedder string
}

// Snapshot is c written to bytes under key k, in parts to write one after
// the other: live entries renumbered densely in slot order, so the
// postings' documents follow them. Callers hold the lock that keeps c
// from changing.
func (c *Corpus) Snapshot(k SnapshotKey) [][]byte {
	lexStamp, gen, dbID, embID := lexStamp(), k.Gen, k.ID, k.Embedder
	renum := make([]int32, len(c.slots))
	n := int32(0)
	for s, e := range c.slots {
		renum[s] = -1
		if e != nil {
			renum[s] = n
			n++
		}
	}
	// sized first: grown by append, the copies were most of the write
	strLen, postings, terms := 0, 0, 0
	for _, e := range c.slots {
		if e != nil {
			d := &e.Doc
			strLen += len(d.Path) + len(d.Name) + len(d.Description) + len(d.Body) + len(d.AppliesWhen) +
				len(d.NotAppliesWhen) + len(d.Context) + len(d.SupersededBy)
			for _, l := range [...][]string{d.Related, d.Tags, d.Supersedes} {
				for _, x := range l {
					strLen += len(x)
				}
			}
		}
	}
	c.words.Each(func(t string, list []bm25.Posting) {
		terms++
		strLen += len(t)
		postings += len(list)
	})
	w := &snapWriter{b: make([]byte, 0, int(n)*(160+4*len(ixVecLen(c)))+postings*8+terms*8+64),
		strs: make([]byte, 0, strLen+4096), short: map[string]uint64{}}
	w.str(dbID)
	w.str(embID)
	w.uv(uint64(n))
	for s, e := range c.slots {
		if e == nil {
			continue
		}
		d := &e.Doc
		w.str(d.Path)
		w.shared(d.Kind)
		for _, f := range [...]string{d.Name, d.Description, d.Body} {
			w.str(f)
		}
		w.shared(d.Type)
		for _, f := range [...]string{d.AppliesWhen, d.NotAppliesWhen, d.Context, d.SupersededBy} {
			w.str(f)
		}
		w.shared(e.Embedder)
		w.strList(d.Related)
		w.strList(d.Tags)
		w.strList(d.Supersedes)
		w.u64(math.Float64bits(d.Score))
		var when int64
		if !d.When.IsZero() {
			when = d.When.UnixNano()
		}
		w.vi(when)
		w.vi(e.MTime)
		w.vi(e.Size)
		w.b = append(w.b, e.DocHash[:]...)
		w.b = append(w.b, e.EmbedHash[:]...)
		w.f32(c.words.Len(int32(s)))
		var flags byte
		for i, f := range [...]bool{e.asks, e.cjk, e.lowerOK} {
			if f {
				flags |= 1 << i
			}
		}
		w.b = append(w.b, flags)
		w.uv(uint64(len(e.days)))
		for _, dd := range e.days {
			w.vi(int64(dd.From))
			w.vi(int64(dd.To))
		}
		w.uv(uint64(len(e.vec)))
		for _, x := range e.vec {
			w.f32(x)
		}
	}
	// the posting lists: how many terms and postings, then each list
	w.uv(uint64(terms))
	w.uv(uint64(postings))
	c.words.Each(func(t string, list []bm25.Posting) {
		w.str(t)
		w.uv(uint64(len(list)))
		for _, p := range list {
			w.uv(uint64(renum[p.Doc]))
			w.f32(p.TF)
		}
	})
	c.writePlain(w, renum)
	// the file: header, the strings region (a reader keeps it as it
	// comes), the rest
	h := make([]byte, snapHeader)
	copy(h, snapMagic)
	binary.LittleEndian.PutUint32(h[8:], snapVersion)
	binary.LittleEndian.PutUint32(h[12:], crc32.Update(crc32.Checksum(w.strs, snapCRC), snapCRC, w.b))
	binary.LittleEndian.PutUint64(h[16:], lexStamp)
	binary.LittleEndian.PutUint64(h[24:], gen)
	binary.LittleEndian.PutUint64(h[32:], uint64(len(w.strs)))
	binary.LittleEndian.PutUint64(h[40:], uint64(len(w.b)))
	return [][]byte{h, w.strs, w.b}
}

// ixVecLen is a vector of the corpus' width, for sizing (nil without one).
func ixVecLen(c *Corpus) []float32 {
	for _, e := range c.slots {
		if e != nil && e.vec != nil {
			return e.vec
		}
	}
	return nil
}

// ErrSnapshot is any snapshot that cannot be used: of another cache file,
// generation, counting or embedder, or damaged.
var ErrSnapshot = errors.New("rank: snapshot unusable")

// ReadSnapshot reads the corpus a snapshot of size bytes from f holds, if
// it was written under key k with the counting NewEntry does now, and is
// whole; else an error wrapping ErrSnapshot. shared is NewCorpus's.
func ReadSnapshot(f io.Reader, size int64, k SnapshotKey, shared func(path string) bool) (*Corpus, error) {
	lexStamp, gen, dbID, embID := lexStamp(), k.Gen, k.ID, k.Embedder
	errSnap := ErrSnapshot
	var h [snapHeader]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return nil, fmt.Errorf("%w: header: %v", errSnap, err)
	}
	switch {
	case string(h[:8]) != snapMagic || binary.LittleEndian.Uint32(h[8:]) != snapVersion:
		return nil, fmt.Errorf("%w: another format", errSnap)
	case binary.LittleEndian.Uint64(h[16:]) != lexStamp:
		return nil, fmt.Errorf("%w: another counting", errSnap)
	case binary.LittleEndian.Uint64(h[24:]) != gen:
		return nil, fmt.Errorf("%w: generation %d, the cache is at %d", errSnap, binary.LittleEndian.Uint64(h[24:]), gen)
	}
	ns, nb := binary.LittleEndian.Uint64(h[32:]), binary.LittleEndian.Uint64(h[40:])
	if size < 0 || ns > uint64(size) || nb > uint64(size) || uint64(size) != snapHeader+ns+nb {
		return nil, fmt.Errorf("%w: truncated", errSnap)
	}
	if size > maxSnapshot {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", errSnap, size, maxSnapshot)
	}
	// the strings region is read into its own buffer, which becomes the
	// one string every entry's text is a piece of: never written again;
	// the rest is read through a small window (it is garbage once parsed)
	strs := make([]byte, ns)
	if ns > 0 {
		hugePages(unsafe.Pointer(&strs[0]), uintptr(ns))
	}
	if _, err := io.ReadFull(f, strs); err != nil {
		return nil, fmt.Errorf("%w: %v", errSnap, err)
	}
	var str string
	if len(strs) > 0 {
		str = unsafe.String(&strs[0], len(strs))
	}
	r := &snapReader{src: f, buf: make([]byte, 256<<10), left: int64(nb), strs: str,
		crc: crc32.Checksum(strs, snapCRC)}
	// what the parse allocates is the index itself, live from the start:
	// a collection meanwhile would only scan it again and again (the
	// sidecar runs with GOGC 50), so it waits for the parse
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	c, err := parseSnapshot(r, dbID, embID, shared)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSnap, err)
	}
	if r.crc != binary.LittleEndian.Uint32(h[12:]) {
		return nil, fmt.Errorf("%w: checksum", errSnap)
	}
	return c, nil
}

// snapReader reads a body through a window it refills from src,
// checksumming what it reads; any read past the body's end, or of a count
// more than what is left could hold, sets bad, and the parse is thrown away.
type snapReader struct {
	src  io.Reader
	buf  []byte // the window's storage
	b    []byte // the window: buf[:filled]
	p    int    // next unread byte of b
	left int64  // body bytes not yet consumed, in b or still in src
	crc  uint32
	strs string
	bad  bool
}

// ensure makes k bytes readable at b[p:] if the body has them.
func (r *snapReader) ensure(k int) bool {
	if len(r.b)-r.p >= k {
		return true
	}
	if r.src == nil || int64(k) > r.left {
		return false
	}
	n := copy(r.buf, r.b[r.p:])
	r.b, r.p = r.buf[:n], 0
	for len(r.b) < k {
		want := min(int64(len(r.buf)), r.left) // never past the body
		m, err := r.src.Read(r.buf[len(r.b):want])
		if m > 0 {
			r.crc = crc32.Update(r.crc, snapCRC, r.buf[len(r.b):len(r.b)+m])
			r.b = r.buf[:len(r.b)+m]
		}
		if err != nil || m == 0 && len(r.b) < k {
			return false
		}
	}
	return true
}

func (r *snapReader) fail() {
	r.bad, r.b, r.p, r.left = true, nil, 0, 0
}

func (r *snapReader) uv() uint64 {
	if len(r.b)-r.p < binary.MaxVarintLen64 { // ensure is not inlined: the usual case skips the call
		r.ensure(int(min(binary.MaxVarintLen64, r.left)))
	}
	v, n := binary.Uvarint(r.b[r.p:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.p += n
	r.left -= int64(n)
	return v
}

// vi reads what binary.AppendVarint wrote: the zig-zag form of a signed
// value as an unsigned varint.
func (r *snapReader) vi() int64 {
	u := r.uv()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// take returns the next k (≤ the window) bytes, valid until the next read.
func (r *snapReader) take(k int) []byte {
	if k < 0 || len(r.b)-r.p < k && (k > len(r.buf) || !r.ensure(k)) {
		r.fail()
		return make([]byte, max(k, 0))
	}
	r.p += k
	r.left -= int64(k)
	return r.b[r.p-k : r.p]
}

func (r *snapReader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }

func (r *snapReader) f32() float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(r.take(4)))
}

func (r *snapReader) str() string {
	off, n := r.uv(), r.uv()
	if off > uint64(len(r.strs)) || n > uint64(len(r.strs))-off {
		r.fail()
		return ""
	}
	return r.strs[off : off+n]
}

// count reads a length that at least min bytes each must follow.
func (r *snapReader) count(min int) int {
	v := r.uv()
	if v > uint64(r.left)/uint64(max(min, 1)) {
		r.fail()
		return 0
	}
	return int(v)
}

// parseSnapshot builds the corpus a body describes, every entry's text a
// piece of strs: one allocation for the entries, one for the postings.
func parseSnapshot(r *snapReader, dbID, embID string, shared func(string) bool) (*Corpus, error) {
	if id, emb := r.str(), r.str(); id != dbID || emb != embID {
		return nil, errors.New("another cache file or embedder")
	}
	n := r.count(1)
	ents := make([]Entry, n)
	if n > 0 {
		hugePages(unsafe.Pointer(&ents[0]), uintptr(n)*unsafe.Sizeof(ents[0]))
	}
	c := &Corpus{slots: make([]*Entry, n), bySlot: make(map[string]int32, n),
		byName: make(map[string][]int32, n), refBy: map[string][]int32{},
		byText: make(map[uint64][]int32, n), ctxRefs: map[uint64]int32{}, shared: shared, plainApart: true}
	lens := make([]float32, n)
	var strSlab []string
	var daySlab []dates.Days
	list := func(k int) []string {
		if k == 0 {
			return nil
		}
		if len(strSlab) < k {
			strSlab = make([]string, max(k, 4096))
		}
		out := strSlab[:k:k]
		strSlab = strSlab[k:]
		for i := range out {
			out[i] = r.str()
		}
		return out
	}
	for i := range ents {
		e := &ents[i]
		d := &e.Doc
		for _, f := range [...]*string{&d.Path, &d.Kind, &d.Name, &d.Description, &d.Body, &d.Type, &d.AppliesWhen,
			&d.NotAppliesWhen, &d.Context, &d.SupersededBy, &e.Embedder} {
			*f = r.str()
		}
		d.Related = list(r.count(2))
		d.Tags = list(r.count(2))
		d.Supersedes = list(r.count(2))
		d.Score = math.Float64frombits(r.u64())
		if when := r.vi(); when != 0 {
			d.When = time.Unix(0, when).UTC()
		}
		e.MTime, e.Size = r.vi(), r.vi()
		copy(e.DocHash[:], r.take(16))
		copy(e.EmbedHash[:], r.take(16))
		e.dl = r.f32()
		lens[i] = e.dl
		flags := r.take(1)[0]
		e.asks, e.cjk, e.lowerOK = flags&1 != 0, flags&2 != 0, flags&4 != 0
		if k := r.count(2); k > 0 {
			if len(daySlab) < k {
				daySlab = make([]dates.Days, max(k, 1024))
			}
			e.days = daySlab[:k:k]
			daySlab = daySlab[k:]
			for j := range e.days {
				e.days[j] = dates.Days{From: int32(r.vi()), To: int32(r.vi())}
			}
		}
		if k := r.count(4); k > 0 {
			e.vec, e.packed = c.vecs.row(k), true // read in place: rows in slot order
			for j := range e.vec {
				e.vec[j] = r.f32()
			}
			c.pack(int32(i), e)
		}
		if r.bad {
			return nil, errors.New("damaged entry")
		}
		if e.cjk {
			c.cjkEntries++
		}
		c.slots[i] = e
	}
	// the keys and maps are derived from the entries beside the
	// postings' parse
	indexed := make(chan struct{})
	go func() {
		defer close(indexed)
		for i := range ents {
			e := &ents[i]
			e.setKeys()
			c.bySlot[e.Doc.Path] = int32(i)
			e.shared = c.shared != nil && c.shared(e.Doc.Path)
			c.link(e, int32(i))
		}
	}()
	defer func() { <-indexed }()
	c.words = readPostings(r, n, lens)
	if r.bad {
		return nil, errors.New("damaged postings")
	}
	c.readPlain(r, n)
	if r.bad || r.left != 0 {
		return nil, errors.New("damaged floor index")
	}
	return c, nil
}

// readPostings reads the keyword index's posting lists of a corpus of n
// entries of weighted lengths lens, all lists in one allocation.
func readPostings(r *snapReader, n int, lens []float32) *bm25.Weighted {
	nt := r.count(2)
	postings := r.count(5)
	terms := make([]string, nt)
	lists := make([][]bm25.Posting, nt)
	var slab []bm25.Posting
	for t := range terms {
		terms[t] = r.str()
		k := r.count(5)
		if k > postings {
			r.fail()
			break
		}
		if len(slab) < k {
			slab = make([]bm25.Posting, max(k, postings))
			hugePages(unsafe.Pointer(&slab[0]), uintptr(len(slab))*unsafe.Sizeof(slab[0]))
		}
		postings -= k
		l := slab[:k:k]
		slab = slab[k:]
		for j := range l {
			doc := r.uv()
			if doc >= uint64(n) {
				r.bad = true
			}
			l[j] = bm25.Posting{Doc: int32(doc), TF: r.f32()}
		}
		lists[t] = l
	}
	return bm25.RestoreWeighted(terms, lists, lens)
}

// writePlain appends the floor's index, if the corpus has one: whether it
// does, then its terms' postings and its documents' lengths, in the
// snapshot's numbering.
func (c *Corpus) writePlain(w *snapWriter, renum []int32) {
	if c.plain == nil {
		w.uv(0)
		return
	}
	w.uv(1)
	terms := 0
	c.plain.Each(func(string, []bm25.Count) { terms++ })
	w.uv(uint64(terms))
	c.plain.Each(func(t string, list []bm25.Count) {
		w.str(t)
		w.uv(uint64(len(list)))
		for _, p := range list {
			w.uv(uint64(renum[p.Doc]))
			w.uv(uint64(p.TF))
		}
	})
	for s, n := range c.plain.Lens() {
		if s < len(renum) && renum[s] >= 0 {
			w.vi(int64(n))
		}
	}
}

// readPlain reads what writePlain wrote for a corpus of n entries.
func (c *Corpus) readPlain(r *snapReader, n int) {
	if r.uv() == 0 {
		return
	}
	nt := r.count(2)
	post := make(map[string][]bm25.Count, nt)
	for range nt {
		t := r.str()
		l := make([]bm25.Count, r.count(2))
		for j := range l {
			doc, tf := r.uv(), r.uv()
			if doc >= uint64(n) || tf > math.MaxInt32 {
				r.fail()
				return
			}
			l[j] = bm25.Count{Doc: int32(doc), TF: int32(tf)}
		}
		post[t] = l
		if r.bad {
			return
		}
	}
	lens := make([]int32, n)
	for i := range lens {
		lens[i] = int32(r.vi())
	}
	if !r.bad {
		c.plain = bm25.RestoreIndex(post, lens)
	}
}
