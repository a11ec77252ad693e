package index

import (
	"cmp"
	"hash/maphash"
	"math"
	"path"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/bm25"
	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/index/cache"
	"github.com/somni-dev/somni/internal/textcut"
	"github.com/somni-dev/somni/internal/textseg"
)

// BM25 parameters; field weights follow the compat scorer (name 3,
// description 2, body 1) and are folded into one weighted term frequency.
const (
	bm25K1 = 1.2
	// cjkCharWeight is the share of its BM25 value a single CJK character
	// of the query counts for (textseg.IndexTerms). Tuning halves, keyword-only,
	// 0 / 0.25 / 0.5 / 1.0: MADial zh hit@5 0.78 / 0.79 / 0.75 / 0.72;
	// Chinese dialogues R@5 as entries 0.47 / 0.49 / 0.49 / 0.50, as turns
	// 0.50 / 0.53 / 0.55 / 0.55; notes generic hit@1 0.62 / 0.65 / 0.65 /
	// 0.65; conversation hit@1 0.49 / 0.47 / 0.43 / 0.40. 0.25 is the one
	// weight that loses nothing but one conversation question.
	cjkCharWeight = 0.25
	bm25B         = 0.75
	weightName    = 3
	weightDesc    = 2
	weightBody    = 1
	// weightContext is for Doc.Context: text around an entry (the turn a
	// reply answers) is weaker evidence than the entry's own words. 0.5
	// and 0.75 tied on the tuning half of the conversation eval (0.25
	// lost hit@1, 1.0 lost hit@5); the lower one is the safer prior.
	weightContext  = 0.5
	embedHeadRunes = 600 // body prefix that goes into the embedded text
)

// entry is one indexed doc plus everything derived from it.
type entry struct {
	doc Doc
	// newTF is the weighted term frequency newEntry counts; corpus.put
	// moves it into the posting lists and drops it. Entries keep no term
	// table of their own: a map per entry was the largest part of the
	// index's memory (33 of 81 MB live heap at 10k entries), and what
	// needs an entry's terms (removal, a hit's matched words) re-reads its
	// text (docTerms), which costs microseconds for a few entries.
	newTF map[string]float32
	dl    float32 // weighted length
	// lowerOK: the text has nothing to lower (holds reads it as it is)
	lowerOK bool
	vec     []float32 // nil until embedded
	// textKey identifies EmbedText(doc); ctxKey identifies the embedded
	// form of doc.Context (0 without one). An entry whose ctxKey is
	// another entry's textKey borrows that entry's vector as its context
	// vector (see contextCos), so a context costs no second embedding.
	textKey, ctxKey uint64
	asks            bool         // the body ends with a question mark
	cjk             bool         // its text is mostly CJK (textseg.MostlyCJK; ranking.semWeight)
	days            []dates.Days // the days it is about (entryDays)
	// persistence facts (Index only); the scan facts as two numbers (path and kind
	// are the doc's): with a whole FileRef an entry took 448 bytes, now 384
	mtime, size int64
	docHash     digest // of every Doc field: a change rewrites the row
	embedHash   digest // of EmbedText: a change re-embeds
	embedder    string // ID of the embedder that produced vec
}

// newEntry derives the lexical view of d.
func newEntry(d Doc) *entry {
	e := &entry{doc: d, newTF: map[string]float32{}}
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
func (e *entry) setKeys() {
	e.textKey = textKey(EmbedText(e.doc))
	if strings.TrimSpace(e.doc.Context) != "" {
		e.ctxKey = textKey(EmbedText(Doc{Body: e.doc.Context}))
	}
}

// lexVersion numbers the counting newEntry does (textseg, entryDays, the
// field weights): a change must bump it, or restarts would read views
// counted the old way from the cache (TestLexViewGolden tells when).
const lexVersion = 2

var lexStamp = sync.OnceValue(func() uint64 { return cache.LexStamp(lexVersion) })

// lexOf is e's lexical view for the cache; nil once put consumed its terms.
func lexOf(e *entry) []byte {
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
// has one counted the way newEntry counts now, and fills in the rest.
func (c *corpus) putLex(e *entry, s int32, lex []byte) bool {
	var days []dates.Days
	dl, flags, ok := cache.DecodeLex(lex, lexStamp(), func(from, to int32) { days = append(days, dates.Days{From: from, To: to}) },
		func(t []byte, tf float32) {
			id, ok := c.termIDs[string(t)]
			if !ok {
				id = int32(len(c.lists))
				c.termIDs[string(t)] = id
				c.lists = append(c.lists, nil)
			}
			c.lists[id] = append(c.lists[id], posting{s, tf})
		})
	if ok {
		e.dl, e.days, e.asks, e.cjk, e.lowerOK = dl, days, flags[0], flags[1], flags[2]
		e.setKeys()
	}
	return ok
}

// ref is the scan facts e was loaded with; setRef records them.
func (e *entry) ref() FileRef {
	return FileRef{Path: e.doc.Path, Kind: e.doc.Kind, ModTime: time.Unix(0, e.mtime), Size: e.size}
}
func (e *entry) setRef(r FileRef) { e.mtime, e.size = r.ModTime.UnixNano(), r.Size }

// keySeed seeds textKey; keys live in memory only, so a per-process seed is fine.
var keySeed = maphash.MakeSeed()

// textKey is a 64-bit identity of an embedded text, never 0.
func textKey(s string) uint64 {
	return maphash.String(keySeed, s) | 1
}

// EmbedText is the text an entry is embedded from: name, description and
// the head of the body. Score, last_used and other lifecycle numbers are
// deliberately absent so decay rewrites never cost an embedding.
func EmbedText(d Doc) string {
	body, _ := textcut.Prefix(d.Body, embedHeadRunes)
	return strings.TrimSpace(d.Name + "\n" + d.Description + "\n" + body)
}

// posting is one doc's weighted frequency of a term.
type posting struct {
	slot int32
	tf   float32
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

// docTerms are the distinct terms of an entry's text, as newEntry counted them.
func docTerms(d Doc) map[string]bool {
	out := map[string]bool{}
	for _, f := range weightedFields(d) {
		for _, t := range textseg.IndexTerms(f.text) {
			out[t] = true
		}
	}
	return out
}

// postings lists the entries holding term t.
func (c *corpus) postings(t string) []posting {
	if id, ok := c.termIDs[t]; ok {
		return c.lists[id]
	}
	return nil
}

// holds reports whether e's name, description or body contains sub,
// ignoring case; sub must be lowercase. The index keeps no lowercased
// copy of every text (8 MB at 10k entries), so the few candidates a
// literal or symbol check reaches are folded on demand.
func (e *entry) holds(sub string, match func(hay, sub string) bool) bool {
	for _, f := range [...]string{e.doc.Name, e.doc.Description, e.doc.Body} {
		if !e.lowerOK {
			f = textseg.LowerIfNeeded(f)
		}
		if match(f, sub) {
			return true
		}
	}
	return false
}

// corpus is a slot-addressed doc set with postings and link maps; the
// Index mutates one under its write lock, ScoreDocs builds a throwaway one.
type corpus struct {
	slots   []*entry
	free    []int32
	bySlot  map[string]int32   // path → slot
	termIDs map[string]int32   // term → id; ids are never reused, the vocabulary only grows
	lists   [][]posting        // term id → slots holding it
	byName  map[string][]int32 // lowercased name and directory name → slots
	refBy   map[string][]int32 // lowercased related target → referring slots
	byText  map[uint64][]int32 // textKey → slots with that embedded text
	ctxRefs map[uint64]int32   // ctxKey → number of live entries whose context it is
	live    int
	totalDL float64
	plain   *bm25.Index // the floor's index (fuse.go), by slot
}

func newCorpus() *corpus {
	return &corpus{plain: bm25.New(), bySlot: map[string]int32{}, termIDs: map[string]int32{},
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

// put inserts or replaces the entry for e.doc.Path; lex is its cached
// lexical view, if any (lexOf).
func (c *corpus) put(e *entry, lex []byte) {
	c.remove(e.doc.Path)
	var s int32
	if n := len(c.free); n > 0 {
		s = c.free[n-1]
		c.free = c.free[:n-1]
		c.slots[s] = e
	} else {
		s = int32(len(c.slots))
		c.slots = append(c.slots, e)
	}
	c.bySlot[e.doc.Path] = s
	c.plain.Add(s, plainText(e.doc))
	tfs := e.newTF
	if tfs == nil && !c.putLex(e, s, lex) {
		// counted here, not when it was made (rows read from the cache,
		// files loaded by a sync, a copy of an entry put before): a
		// load of 10k entries then holds one term map at a time instead
		// of all of them until they are published
		f := newEntry(e.doc)
		tfs = f.newTF
		e.dl, e.textKey, e.ctxKey, e.asks, e.days, e.lowerOK = f.dl, f.textKey, f.ctxKey, f.asks, f.days, f.lowerOK
	}
	for t, tf := range tfs {
		id, ok := c.termIDs[t]
		if !ok {
			id = int32(len(c.lists))
			c.termIDs[t] = id
			c.lists = append(c.lists, nil)
		}
		c.lists[id] = append(c.lists[id], posting{s, tf})
	}
	e.newTF = nil
	for _, k := range linkKeys(e.doc) {
		c.byName[k] = append(c.byName[k], s)
	}
	for _, r := range e.doc.Related {
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
	c.totalDL += float64(e.dl)
}

// compact copies every posting list into one array of exactly the
// postings' size. Lists grown by append leave a third of their capacity
// unused on average and, scattered over the heap between the garbage of a
// big load, keep its pages from going back to the OS: after loading 10k
// entries the process held 20 MB more than its live heap. A later put
// appending to a compacted list moves only that list.
func (c *corpus) compact() {
	n := 0
	for _, l := range c.lists {
		n += len(l)
	}
	all := make([]posting, n)
	off := 0
	for id, l := range c.lists {
		if len(l) == 0 {
			c.lists[id] = nil
			continue
		}
		copy(all[off:], l)
		c.lists[id] = all[off : off+len(l) : off+len(l)]
		off += len(l)
	}
}

// remove deletes the entry at path p, if any.
func (c *corpus) remove(p string) *entry {
	s, ok := c.bySlot[p]
	if !ok {
		return nil
	}
	e := c.slots[s]
	for t := range docTerms(e.doc) {
		id, ok := c.termIDs[t]
		if !ok {
			continue
		}
		list := c.lists[id]
		for i, p := range list {
			if p.slot == s {
				list[i] = list[len(list)-1]
				list = list[:len(list)-1]
				break
			}
		}
		if len(list) == 0 {
			list = nil // its array is garbage now; the id stays
		}
		c.lists[id] = list
	}
	for _, k := range linkKeys(e.doc) {
		if c.byName[k] = dropSlot(c.byName[k], s); len(c.byName[k]) == 0 {
			delete(c.byName, k)
		}
	}
	for _, r := range e.doc.Related {
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
	c.plain.Remove(s, plainText(e.doc))
	c.slots[s] = nil
	c.free = append(c.free, s)
	c.live--
	c.totalDL -= float64(e.dl)
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
func (c *corpus) get(p string) *entry {
	if s, ok := c.bySlot[p]; ok {
		return c.slots[s]
	}
	return nil
}

// idf is BM25's inverse document frequency (Lucene form, never negative).
func (c *corpus) idf(t string) float64 {
	n := float64(len(c.postings(t)))
	return math.Log(1 + (float64(c.live)-n+0.5)/(n+0.5))
}

// weightShare is the share of entries a word may appear in and still
// count fully in a weighted query embedding; above it, it counts as its
// idf over that share's idf. A name on half the entries weighs about 0.2.
// Weighing every word by its idf against a word one entry holds (the
// first try) took as much from the dialogue eval's speaker names, but in
// the 50 curated notes also from ordinary topic words in 5 of them: notes
// hash generic hit@1 fell 0.81 → 0.76 and paraphrase hint recall for
// local 0.59 → 0.55. Tuning half, share 0 / 0.02 / 0.05 / 0.1 / 0.2:
// dialogue hash R@5 ×BM25 1.39 / 1.39 / 1.39 / 1.38 / 1.37, conversation
// hint precision hash 0.57 / 0.57 / 0.60 / 0.60 / 0.60 (0.60 without
// weighting); 0.05 is the first that loses nothing.
const weightShare = 0.05

// termWeight is how much a query word counts in a weighted query
// embedding (embed.TermWeighted), averaged over the word's terms
// (weightOf). A word the corpus lacks, or one that is not a term (a
// stopword), counts fully: the weight only takes away what idf would.
func (c *corpus) termWeight(word string) float64 {
	if c.live < 2 {
		return 1
	}
	ts := textseg.Tokenize(word)
	if len(ts) == 0 {
		return 1
	}
	w := 0.0
	for _, t := range ts {
		w += c.weightOf(t)
	}
	return w / float64(len(ts))
}

// weightOf is one term's weight on termWeight's scale: its idf over the
// idf of a term in weightShare of the entries, capped at 1; 1 for a term
// no entry holds.
func (c *corpus) weightOf(t string) float64 {
	if len(c.postings(t)) == 0 || c.live < 2 {
		return 1
	}
	n := max(1, weightShare*float64(c.live))
	ref := math.Log(1 + (float64(c.live)-n+0.5)/(n+0.5))
	return min(1, c.idf(t)/ref)
}

// scratch is one query's arrays dense over slots, kept for the next query
// (scratchPool): allocated per query they were 0.5 MB of garbage a recall
// at 10k entries and 2.6 MB at 50k, which kept resident memory at the
// collector's goal through a burst of recalls.
type scratch struct {
	lex  lexScores
	wins []winHit
	idx  []int32
	pool []cand
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// zeroed is s with length n, every element zero, reusing its array when it can.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// lexScores is the per-query lexical result, dense over slots.
type lexScores struct {
	score   []float64 // normalised BM25, 0 when no term matched
	strong  []bool    // a matched term is strong evidence on its own
	matched []uint16  // number of distinct query terms matched
	telling []bool    // a matched term is not near-universal (weightOf ≥ weakTerm)
	touched []int32   // slots with score > 0
}

// lexQuery is a query's lexical view: its distinct terms and, for each
// CJK run, which term each 2–4-char window is.
//
// A CJK run is matched through its overlapping windows, so summing every
// matched window would count one long match many times: "宠物医院" found
// whole matches six windows (宠物 物医 医院 宠物医 物医院 宠物医院) while two
// separate words ("周末", "营业") match two. Instead each run is scored by
// its best segmentation into non-overlapping windows the doc holds (a
// small dynamic programme, like a word segmenter whose dictionary is the
// doc): a doc holding "宠物医院" scores it once, as one piece or as 宠物 +
// 医院, whichever BM25 values more.
type lexQuery struct {
	terms []string
	runs  [][][4]int16 // per CJK run, per start: term index of its 1-, 2-, 3-, 4-char window, -1 if none
	inRun []bool       // terms[i] is a window of some CJK run, scored by segmentation
	char  []bool       // terms[i] is a single character of a CJK run (textseg.IndexTerms' back-off)
}

// newLexQuery builds the lexical view of query text q.
func newLexQuery(q string) *lexQuery {
	lq := &lexQuery{terms: queryTerms(q)}
	if len(lq.terms) > math.MaxInt16 {
		lq.terms = lq.terms[:math.MaxInt16] // a query this long is not a question
	}
	pos := make(map[string]int16, len(lq.terms))
	for i, t := range lq.terms {
		pos[t] = int16(i)
	}
	lq.inRun = make([]bool, len(lq.terms))
	lq.char = make([]bool, len(lq.terms))
	for _, r := range textseg.Runs(q) {
		rs := []rune(r.Text)
		if !r.CJK || len(rs) < 2 {
			continue // a 1-char CJK run is one whole token, scored like a word
		}
		run := make([][4]int16, len(rs))
		for p := range rs {
			for n := 1; n <= 4; n++ {
				run[p][n-1] = -1
				if p+n > len(rs) {
					continue
				}
				if i, ok := pos[string(rs[p:p+n])]; ok { // stopwords are not terms
					run[p][n-1] = i
					lq.inRun[i] = true
					lq.char[i] = lq.char[i] || n == 1
				}
			}
		}
		lq.runs = append(lq.runs, run)
	}
	return lq
}

// ideal is the query's best possible BM25 sum, Σ idf·(k1+1): every term
// outside CJK runs, plus each run's best segmentation into windows some
// entry holds. Windows no entry holds (segmentation artefacts such as
// "后不该喝") stay out of it, so they neither help nor dilute, and no doc
// can exceed it: its own segmentation is one the ideal considered.
//
// Single characters (textseg.IndexTerms' back-off) count only when nothing else
// could be held (chars): then they are all the query can be matched by,
// at their own weight.
func (c *corpus) ideal(lq *lexQuery, best []float64, chars bool) float64 {
	var sum float64
	for i, t := range lq.terms {
		if !lq.inRun[i] && (!isCJKTerm(t) || len(c.postings(t)) > 0) {
			sum += c.idf(t) * (bm25K1 + 1)
		}
	}
	val := func(i int16) float64 {
		t := lq.terms[i]
		if len(c.postings(t)) == 0 {
			return 0
		}
		switch {
		case !lq.char[i]:
			return c.idf(t) * (bm25K1 + 1)
		case chars:
			return cjkCharWeight * c.idf(t) * (bm25K1 + 1)
		}
		return 0
	}
	for _, run := range lq.runs {
		sum += textseg.Segment(run, val, best)
	}
	return sum
}

// winHit is one doc's BM25 value of one windowed CJK term.
type winHit struct {
	slot int32
	term int16
	v    float32
}

// keyword scores every doc that shares a term with the query: BM25 over
// the weighted term frequency, CJK runs by their best segmentation (see
// lexQuery), divided by the query's ideal score. A doc that holds one of
// several query words, or one word once, therefore cannot reach 1.
func (c *corpus) keyword(lq *lexQuery, sc *scratch) *lexScores {
	n := len(c.slots)
	ls := &sc.lex
	ls.score, ls.strong, ls.matched = zeroed(ls.score, n), zeroed(ls.strong, n), zeroed(ls.matched, n)
	ls.telling, ls.touched = zeroed(ls.telling, n), ls.touched[:0]
	if c.live == 0 || len(lq.terms) == 0 {
		return ls
	}
	avg := c.totalDL / float64(c.live)
	if avg <= 0 {
		avg = 1
	}
	wins := sc.wins[:0]
	defer func() { sc.wins = wins[:0] }()
	for i, t := range lq.terms {
		idf := c.idf(t)
		isStrong := textseg.StrongTerm(t)
		tells := c.weightOf(t) >= weakTerm
		for _, p := range c.postings(t) {
			e := c.slots[p.slot]
			tf := float64(p.tf)
			v := idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(e.dl)/avg))
			if lq.char[i] {
				v *= cjkCharWeight
			}
			if ls.matched[p.slot] == 0 {
				ls.touched = append(ls.touched, p.slot)
			}
			ls.matched[p.slot]++
			if isStrong {
				ls.strong[p.slot] = true
			}
			if tells {
				ls.telling[p.slot] = true
			}
			if lq.inRun[i] {
				wins = append(wins, winHit{p.slot, int16(i), float32(v)})
			} else {
				ls.score[p.slot] += v
			}
		}
	}
	maxRun := 0
	for _, run := range lq.runs {
		maxRun = max(maxRun, len(run))
	}
	best := make([]float64, maxRun+1)
	if len(wins) > 0 {
		c.segmentDocs(lq, ls, wins, best)
	}
	ideal := c.ideal(lq, best, false)
	if ideal == 0 {
		ideal = c.ideal(lq, best, true)
	}
	if ideal > 0 {
		for _, s := range ls.touched {
			// characters are outside the ideal, so a doc holding every
			// window and more characters could pass it
			ls.score[s] = min(1, ls.score[s]/ideal)
		}
	}
	return ls
}

// segmentDocs adds to each doc's score the best segmentation of every
// query CJK run over the windows the doc holds.
func (c *corpus) segmentDocs(lq *lexQuery, ls *lexScores, wins []winHit, best []float64) {
	// group wins by slot (counting sort over the slots that have any)
	start := make([]int32, len(c.slots)+1)
	for _, w := range wins {
		start[w.slot+1]++
	}
	for s := 1; s < len(start); s++ {
		start[s] += start[s-1]
	}
	grouped := make([]winHit, len(wins))
	fill := append([]int32(nil), start[:len(c.slots)]...)
	for _, w := range wins {
		grouped[fill[w.slot]] = w
		fill[w.slot]++
	}
	vals := make([]float64, len(lq.terms))
	val := func(i int16) float64 { return vals[i] }
	for _, s := range ls.touched {
		ws := grouped[start[s]:start[s+1]]
		if len(ws) == 0 {
			continue
		}
		for _, w := range ws {
			vals[w.term] = float64(w.v)
		}
		for _, run := range lq.runs {
			ls.score[s] += textseg.Segment(run, val, best)
		}
		for _, w := range ws {
			vals[w.term] = 0
		}
	}
}

// neighbours returns the slots linked to s in either direction.
func (c *corpus) neighbours(s int32) []int32 {
	e := c.slots[s]
	var out []int32
	for _, r := range e.doc.Related {
		out = append(out, c.byName[strings.ToLower(strings.TrimSpace(r))]...)
	}
	for _, k := range linkKeys(e.doc) {
		out = append(out, c.refBy[k]...)
	}
	return out
}

// contextSlot is a live entry whose embedded text is e's context and
// that carries a vector, or -1. Entries with equal embedded text have
// equal vectors, so any of them serves.
func (c *corpus) contextSlot(e *entry) int32 {
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
func (c *corpus) answered(e *entry) bool { return c.ctxRefs[e.textKey] > 0 }

// isCJKTerm reports whether t is a CJK, kana or Hangul window.
func isCJKTerm(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return textseg.IsCJK(r)
}
