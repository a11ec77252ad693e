package rank

import (
	"cmp"
	"hash/maphash"
	"iter"
	"maps"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/somni-dev/somni/internal/bm25"
	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/index/cache"
	"github.com/somni-dev/somni/internal/textcut"
	"github.com/somni-dev/somni/internal/textseg"
)

// Field weights follow the compat scorer (name 3, description 2, body 1)
// and are folded into one weighted term frequency, which package bm25's
// Weighted scores.
const (
	weightName = 3
	weightDesc = 2
	weightBody = 1
	// weightContext is for Doc.Context: text around an entry (the turn a
	// reply answers) is weaker evidence than the entry's own words. 0.5
	// and 0.75 tied on the tuning half of the conversation eval (0.25
	// lost hit@1, 1.0 lost hit@5); the lower one is the safer prior.
	weightContext  = 0.5
	embedHeadRunes = 600 // body prefix that goes into the embedded text
)

// Entry is one indexed doc plus everything derived from it. It is
// exported for the index, which loads, persists and publishes entries
// (package index): Doc and the persistence facts are its fields to set,
// its vector it gives through SetVec or ShareVec (vectors.go); the rest
// is the ranking's own, derived as the corpus files it.
type Entry struct {
	Doc Doc
	// newTF is the weighted term frequency NewEntry counts; Corpus.Put
	// posts it to the keyword index and drops it. Entries keep no term
	// table of their own: a map per entry was the largest part of the
	// index's memory (33 of 81 MB live heap at 10k entries), and what
	// needs an entry's terms (removal, a hit's matched words) re-reads its
	// text (docTerms), which costs microseconds for a few entries.
	newTF map[string]float32
	dl    float32 // weighted length
	// lowerOK: the text has nothing to lower (holds reads it as it is)
	lowerOK bool
	vec     []float32 // nil until embedded (Vec)
	packed  bool      // vec is a row of a corpus' arena (vectors.go)
	// textKey identifies EmbedText(doc); ctxKey identifies the embedded
	// form of doc.Context (0 without one). An entry whose ctxKey is
	// another entry's textKey borrows that entry's vector as its context
	// vector (see contextCos), so a context costs no second embedding.
	textKey, ctxKey uint64
	asks            bool         // the body ends with a question mark
	cjk             bool         // its text is mostly CJK (textseg.MostlyCJK; ranking.semWeight)
	shared          bool         // a team pool's, not the user's own (Corpus.shared; sharedPrior)
	days            []dates.Days // the days it is about (entryDays)
	// persistence facts (package index's only); the scan facts as two
	// numbers (path and kind are the doc's): with a whole index.FileRef an
	// entry took 448 bytes, now 384
	MTime, Size int64
	DocHash     digest // of every Doc field: a change rewrites the row
	EmbedHash   digest // of EmbedText: a change re-embeds
	Embedder    string // ID of the embedder that produced vec
}

// digest identifies a text: the first 16 bytes of its SHA-256, kept raw
// (as hex strings, a doc's and an embedded text's digests cost 1 MB at 10k
// entries); the cache stores its hex form. The zero digest matches no text.
type digest = cache.Digest

// NewEntry derives the lexical view of d.
func NewEntry(d Doc) *Entry {
	e := &Entry{Doc: d, newTF: map[string]float32{}}
	for _, f := range weightedFields(d) {
		for _, t := range textseg.IndexTerms(f.text) {
			e.newTF[t] += f.w
			e.dl += f.w
		}
	}
	e.setKeys()
	body := strings.TrimSpace(d.Body)
	e.asks = strings.HasSuffix(body, "?") || strings.HasSuffix(body, "？")
	// the body is the content; name and description may be labels (a
	// turn's "session 3, 2023-11-04 19:30") in another script
	e.cjk = textseg.MostlyCJK(cmp.Or(body, d.Description+"\n"+d.Name))
	e.days = entryDays(d)
	e.lowerOK = textseg.IsLower(d.Name) && textseg.IsLower(d.Description) && textseg.IsLower(d.Body)
	return e
}

// setKeys sets textKey and ctxKey, which live in memory only (keySeed).
func (e *Entry) setKeys() {
	e.textKey = embedKey(e.Doc)
	if strings.TrimSpace(e.Doc.Context) != "" {
		e.ctxKey = embedKey(Doc{Body: e.Doc.Context})
	}
}

// lexVersion numbers the counting NewEntry does (textseg, entryDays, the
// field weights): a change must bump it, or restarts would read views
// counted the old way from the cache (TestLexViewGolden tells when).
const lexVersion = 2

var lexStamp = sync.OnceValue(func() uint64 { return cache.LexStamp(lexVersion) })

// Lex is e's lexical view for the cache (package index stores it, so a
// restart re-tokenizes nothing); nil once Put consumed its terms.
func (e *Entry) Lex() []byte {
	if e.newTF == nil {
		return nil
	}
	days := make([][2]int32, len(e.days))
	for i, d := range e.days {
		days[i] = [2]int32{d.From, d.To}
	}
	return cache.EncodeLex(lexStamp(), e.dl, [3]bool{e.asks, e.cjk, e.lowerOK}, days, e.newTF)
}

// putLex posts e's terms at slot s from its cached lexical view, if it
// has one counted the way NewEntry counts now, and fills in the rest.
func (c *Corpus) putLex(e *Entry, s int32, lex []byte) bool {
	var days []dates.Days
	dl, flags, ok := cache.DecodeLex(lex, lexStamp(), func(from, to int32) { days = append(days, dates.Days{From: from, To: to}) },
		func(t []byte, tf float32) { c.words.PostBytes(s, t, tf) })
	if ok {
		e.dl, e.days, e.asks, e.cjk, e.lowerOK = dl, days, flags[0], flags[1], flags[2]
		e.setKeys()
	}
	return ok
}

// LexCurrent reports whether a cached lexical view was counted the way
// NewEntry counts now; package index counts the others again at Open.
func LexCurrent(lex []byte) bool { return cache.LexValid(lex, lexStamp()) }

// keySeed seeds textKey; keys live in memory only, so a per-process seed is fine.
var keySeed = maphash.MakeSeed()

// textKey is a 64-bit identity of an embedded text, never 0.
func textKey(s string) uint64 {
	return maphash.String(keySeed, s) | 1
}

// embedKey is textKey(EmbedText(d)) without building the text: its pieces
// hashed in turn, trimmed at the ends as TrimSpace trims the whole (they
// meet at "\n", so no character spans two). Reading a snapshot keys every
// entry, and the texts were garbage the size of the descriptions
// (docs/ARCHITECTURE.md, Measurements).
func embedKey(d Doc) uint64 {
	body, _ := textcut.Prefix(d.Body, embedHeadRunes)
	parts := [...]string{d.Name, "\n", d.Description, "\n", body}
	lo, hi := 0, len(parts)-1
	for ; lo <= hi; lo++ {
		if parts[lo] = strings.TrimLeftFunc(parts[lo], unicode.IsSpace); parts[lo] != "" {
			break
		}
	}
	for ; hi >= lo; hi-- {
		if parts[hi] = strings.TrimRightFunc(parts[hi], unicode.IsSpace); parts[hi] != "" {
			break
		}
	}
	var h maphash.Hash
	h.SetSeed(keySeed)
	if lo <= hi {
		for _, p := range parts[lo : hi+1] {
			h.WriteString(p)
		}
	}
	return h.Sum64() | 1
}

// EmbedText is the text an entry is embedded from: name, description and
// the head of the body. Score, last_used and other lifecycle numbers are
// deliberately absent so decay rewrites never cost an embedding.
func EmbedText(d Doc) string {
	body, _ := textcut.Prefix(d.Body, embedHeadRunes)
	return strings.TrimSpace(d.Name + "\n" + d.Description + "\n" + body)
}

// field is one text an entry's terms come from, with its weight.
type field struct {
	text string
	w    float32
}

// weightedFields are the texts an entry's terms come from.
func weightedFields(d Doc) [4]field {
	return [4]field{{d.Name, weightName}, {d.Description, weightDesc}, {d.Body, weightBody}, {d.Context, weightContext}}
}

// docTerms are the distinct terms of an entry's text, as NewEntry counted them.
func docTerms(d Doc) map[string]bool {
	out := map[string]bool{}
	for _, f := range weightedFields(d) {
		for _, t := range textseg.IndexTerms(f.text) {
			out[t] = true
		}
	}
	return out
}

// holds reports whether e's name, description or body contains sub,
// ignoring case; sub must be lowercase. The index keeps no lowercased
// copy of every text (8 MB at 10k entries), so the few candidates a
// literal or symbol check reaches are folded on demand.
func (e *Entry) holds(sub string, match func(hay, sub string) bool) bool {
	for _, f := range [...]string{e.Doc.Name, e.Doc.Description, e.Doc.Body} {
		if !e.lowerOK {
			f = textseg.LowerIfNeeded(f)
		}
		if match(f, sub) {
			return true
		}
	}
	return false
}

// Corpus is a slot-addressed doc set with its keyword indexes and link
// maps; the index mutates one under its write lock, ScoreDocs builds a
// throwaway one.
type Corpus struct {
	slots   []*Entry
	free    []int32
	bySlot  map[string]int32   // path → slot
	byName  map[string][]int32 // lowercased name and directory name → slots
	refBy   map[string][]int32 // lowercased related target → referring slots
	byText  map[uint64][]int32 // textKey → slots with that embedded text
	ctxRefs map[uint64]int32   // ctxKey → number of live entries whose context it is
	live    int
	words   *bm25.Weighted // the hybrid's keyword evidence, by slot
	vecs    vecArena       // the entries' vectors, packed (vectors.go)
	// the floor's index (plain.go)
	plain      *bm25.Index // by slot, kept by Put and Remove once built
	plainOnce  sync.Once   // a throwaway corpus builds it on first use
	plainApart bool        // the index's: built apart from searches
	plainAsked atomic.Bool // a search wanted it before it was built
	cjkEntries int         // live entries mostly in CJK (Entry.cjk)
	changes    uint64      // Puts and Removes so far (SetPlain's check)
	// shared is index.Options.Shared (nil: every entry is the user's own), asked
	// once per entry as put files it, not once per candidate of a search
	shared func(path string) bool
}

// NewCorpus is the index's corpus; shared is index.Options.Shared (nil: every
// entry is the user's own). Its floor's index is built apart from searches
// (plain.go).
func NewCorpus(shared func(path string) bool) *Corpus {
	c := newCorpus()
	c.shared, c.plainApart = shared, true
	return c
}

func newCorpus() *Corpus {
	return &Corpus{words: bm25.NewWeighted(), bySlot: map[string]int32{},
		byName: map[string][]int32{}, refBy: map[string][]int32{},
		byText: map[uint64][]int32{}, ctxRefs: map[uint64]int32{}}
}

// linkKeys are the names an entry answers to in related: lists.
func linkKeys(d Doc) []string {
	keys := []string{strings.ToLower(strings.TrimSpace(d.Name))}
	dir := path.Base(path.Dir(strings.ReplaceAll(d.Path, "\\", "/")))
	if dir != "." && dir != "/" && !strings.EqualFold(dir, d.Name) {
		keys = append(keys, strings.ToLower(dir))
	}
	if base := strings.TrimSuffix(path.Base(d.Path), ".md"); base != "SKILL" && base != "INTENT" &&
		!strings.EqualFold(base, d.Name) && !strings.EqualFold(base, dir) {
		keys = append(keys, strings.ToLower(base))
	}
	return keys
}

// put inserts or replaces the entry for e.Doc.Path; lex is its cached
// lexical view, if any (Entry.Lex).
func (c *Corpus) Put(e *Entry, lex []byte) {
	c.Remove(e.Doc.Path)
	var s int32
	if n := len(c.free); n > 0 {
		s = c.free[n-1]
		c.free = c.free[:n-1]
		c.slots[s] = e
	} else {
		s = int32(len(c.slots))
		c.slots = append(c.slots, e)
	}
	c.bySlot[e.Doc.Path] = s
	e.shared = c.shared != nil && c.shared(e.Doc.Path)
	tfs := e.newTF
	if tfs == nil && !c.putLex(e, s, lex) {
		// counted here, not when it was made (rows read from the cache,
		// files loaded by a sync, a copy of an entry put before): a
		// load of 10k entries then holds one term map at a time instead
		// of all of them until they are published
		f := NewEntry(e.Doc)
		tfs = f.newTF
		e.dl, e.textKey, e.ctxKey, e.asks, e.days, e.lowerOK = f.dl, f.textKey, f.ctxKey, f.asks, f.days, f.lowerOK
	}
	for t, tf := range tfs {
		c.words.Post(s, t, tf)
	}
	e.newTF = nil
	c.putPlain(s, e)
	c.link(e, s)
	c.words.Add(s, e.dl)
	c.pack(s, e)
}

// link files the entry at slot s under its links and its embedded text,
// and counts it live; its path, shared flag and terms are filed apart
// (Put, or a snapshot's postings: ReadSnapshot).
func (c *Corpus) link(e *Entry, s int32) {
	for _, k := range linkKeys(e.Doc) {
		c.byName[k] = append(c.byName[k], s)
	}
	for _, r := range e.Doc.Related {
		k := strings.ToLower(strings.TrimSpace(r))
		if k != "" {
			c.refBy[k] = append(c.refBy[k], s)
		}
	}
	c.byText[e.textKey] = append(c.byText[e.textKey], s)
	if e.ctxKey != 0 {
		c.ctxRefs[e.ctxKey]++
	}
	c.live++
}

// remove deletes the entry at path p, if any.
func (c *Corpus) Remove(p string) *Entry {
	s, ok := c.bySlot[p]
	if !ok {
		return nil
	}
	e := c.slots[s]
	c.words.Remove(s, maps.Keys(docTerms(e.Doc)))
	for _, k := range linkKeys(e.Doc) {
		if c.byName[k] = dropSlot(c.byName[k], s); len(c.byName[k]) == 0 {
			delete(c.byName, k)
		}
	}
	for _, r := range e.Doc.Related {
		k := strings.ToLower(strings.TrimSpace(r))
		if c.refBy[k] = dropSlot(c.refBy[k], s); len(c.refBy[k]) == 0 {
			delete(c.refBy, k)
		}
	}
	if c.byText[e.textKey] = dropSlot(c.byText[e.textKey], s); len(c.byText[e.textKey]) == 0 {
		delete(c.byText, e.textKey)
	}
	if e.ctxKey != 0 {
		if c.ctxRefs[e.ctxKey]--; c.ctxRefs[e.ctxKey] <= 0 {
			delete(c.ctxRefs, e.ctxKey)
		}
	}
	delete(c.bySlot, p)
	c.removePlain(s, e)
	c.unpack(s, e)
	c.slots[s] = nil
	c.free = append(c.free, s)
	c.live--
	return e
}

func dropSlot(list []int32, s int32) []int32 {
	for i, v := range list {
		if v == s {
			list[i] = list[len(list)-1]
			return list[:len(list)-1]
		}
	}
	return list
}

// get returns the entry at path p.
func (c *Corpus) Get(p string) *Entry {
	_, e := c.Find(p)
	return e
}

// Find is the entry at path p and its slot (-1 when there is none). A
// full sync marks the slots its listing reported in a slice, not their
// paths in a map: at 100k notes the map cost a restart 10 MB and 30 ms.
func (c *Corpus) Find(p string) (int32, *Entry) {
	if s, ok := c.bySlot[p]; ok {
		return s, c.slots[s]
	}
	return -1, nil
}

// Slots bounds the slots Find and Slotted give: they are below it.
func (c *Corpus) Slots() int { return len(c.slots) }

// Slotted yields the live entries with their slots, in slot order.
func (c *Corpus) Slotted() iter.Seq2[int32, *Entry] {
	return func(yield func(int32, *Entry) bool) {
		for s, e := range c.slots {
			if e != nil && !yield(int32(s), e) {
				return
			}
		}
	}
}

// Entries is every entry by slot (nil where free), copied, and the count
// of puts and removes so far: what the structures the index builds apart
// from searches start from (BuildPlain, BuildRepack). Call it under the
// index's read lock.
func (c *Corpus) Entries() ([]*Entry, uint64) {
	return append([]*Entry(nil), c.slots...), c.changes
}

// Len is how many entries the corpus holds.
func (c *Corpus) Len() int { return c.live }

// All yields the entries in slot order, for the index's passes over
// every entry (its status, a rewrite of the cache, a watched folder).
func (c *Corpus) All() iter.Seq[*Entry] {
	return func(yield func(*Entry) bool) {
		for _, e := range c.Slotted() {
			if !yield(e) {
				return
			}
		}
	}
}

// Swap puts e in the place of the entry at its path, if there is one,
// without posting anything again: e must have that entry's terms, links
// and embedded text (a new vector, score or mtime). Entries are immutable
// once published, so the index swaps in a copy.
func (c *Corpus) Swap(e *Entry) bool {
	s, ok := c.bySlot[e.Doc.Path]
	if ok {
		c.unpack(s, c.slots[s])
		c.pack(s, e)
		c.slots[s] = e
	}
	return ok
}

// Compact compacts the posting lists after a big load
// (bm25.Weighted.Compact).
func (c *Corpus) Compact() { c.words.Compact() }

// TermWeight is how rare word is in the corpus (bm25.Weighted.TermWeight),
// what a query embedded by a feature-sum embedder weighs its words by.
func (c *Corpus) TermWeight(word string) float64 { return c.words.TermWeight(word) }

// scratch is one query's arrays dense over slots, kept for the next query
// (scratchPool): allocated per query they were 0.5 MB of garbage a recall
// at 10k entries and 2.6 MB at 50k, which kept resident memory at the
// collector's goal through a burst of recalls.
type scratch struct {
	lex  bm25.Scores
	idx  []int32
	pool []cand
	own  []float64 // ranking.own's array
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// neighbours returns the slots linked to s in either direction.
func (c *Corpus) neighbours(s int32) []int32 {
	e := c.slots[s]
	var out []int32
	for _, r := range e.Doc.Related {
		out = append(out, c.byName[strings.ToLower(strings.TrimSpace(r))]...)
	}
	for _, k := range linkKeys(e.Doc) {
		out = append(out, c.refBy[k]...)
	}
	return out
}

// contextSlot is a live entry whose embedded text is e's context and
// that carries a vector, or -1. Entries with equal embedded text have
// equal vectors, so any of them serves.
func (c *Corpus) contextSlot(e *Entry) int32 {
	if e.ctxKey == 0 {
		return -1
	}
	for _, s := range c.byText[e.ctxKey] {
		if x := c.slots[s]; x != nil && x.vec != nil && len(x.vec) == len(e.vec) {
			return s
		}
	}
	return -1
}

// answered reports whether some live entry has e's text as its context,
// e.g. a question turn that the next turn replies to.
func (c *Corpus) answered(e *Entry) bool { return c.ctxRefs[e.textKey] > 0 }
