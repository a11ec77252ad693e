package index

import (
	"math"
	"path"
	"strings"
	"unicode/utf8"
)

// BM25 parameters; field weights follow the compat scorer (name 3,
// description 2, body 1) and are folded into one weighted term frequency.
const (
	bm25K1     = 1.2
	bm25B      = 0.75
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

// entry is one indexed doc plus everything derived from it.
type entry struct {
	doc   Doc
	lower string             // lowercased name\ndescription\nbody for literal and symbol checks
	tf    map[string]float32 // weighted term frequency
	dl    float32            // weighted length
	vec   []float32          // nil until embedded
	// persistence facts (Index only)
	ref       FileRef
	docHash   string // hash of every Doc field: a change rewrites the row
	embedHash string // hash of EmbedText: a change re-embeds
	embedder  string // ID of the embedder that produced vec
}

// newEntry derives the lexical view of d.
func newEntry(d Doc) *entry {
	e := &entry{doc: d, tf: map[string]float32{}}
	e.lower = strings.ToLower(d.Name + "\n" + d.Description + "\n" + d.Body)
	add := func(s string, w float32) {
		for _, t := range Tokenize(s) {
			e.tf[t] += w
			e.dl += w
		}
	}
	add(d.Name, weightName)
	add(d.Description, weightDesc)
	add(d.Body, weightBody)
	add(d.Context, weightContext)
	return e
}

// EmbedText is the text an entry is embedded from: name, description and
// the head of the body. Score, last_used and other lifecycle numbers are
// deliberately absent so decay rewrites never cost an embedding.
func EmbedText(d Doc) string {
	body := d.Body
	if r := []rune(body); len(r) > embedHeadRunes {
		body = string(r[:embedHeadRunes])
	}
	return strings.TrimSpace(d.Name + "\n" + d.Description + "\n" + body)
}

// posting is one doc's weighted frequency of a term.
type posting struct {
	slot int32
	tf   float32
}

// corpus is a slot-addressed doc set with postings and link maps; the
// Index mutates one under its write lock, ScoreDocs builds a throwaway one.
type corpus struct {
	slots    []*entry
	free     []int32
	bySlot   map[string]int32     // path → slot
	postings map[string][]posting // term → slots holding it
	byName   map[string][]int32   // lowercased name and directory name → slots
	refBy    map[string][]int32   // lowercased related target → referring slots
	live     int
	totalDL  float64
}

func newCorpus() *corpus {
	return &corpus{bySlot: map[string]int32{}, postings: map[string][]posting{},
		byName: map[string][]int32{}, refBy: map[string][]int32{}}
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

// put inserts or replaces the entry for e.doc.Path.
func (c *corpus) put(e *entry) {
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
	for t, tf := range e.tf {
		c.postings[t] = append(c.postings[t], posting{s, tf})
	}
	for _, k := range linkKeys(e.doc) {
		c.byName[k] = append(c.byName[k], s)
	}
	for _, r := range e.doc.Related {
		k := strings.ToLower(strings.TrimSpace(r))
		if k != "" {
			c.refBy[k] = append(c.refBy[k], s)
		}
	}
	c.live++
	c.totalDL += float64(e.dl)
}

// remove deletes the entry at path p, if any.
func (c *corpus) remove(p string) *entry {
	s, ok := c.bySlot[p]
	if !ok {
		return nil
	}
	e := c.slots[s]
	for t := range e.tf {
		list := c.postings[t]
		for i, p := range list {
			if p.slot == s {
				list[i] = list[len(list)-1]
				list = list[:len(list)-1]
				break
			}
		}
		if len(list) == 0 {
			delete(c.postings, t)
		} else {
			c.postings[t] = list
		}
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
	delete(c.bySlot, p)
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
	n := float64(len(c.postings[t]))
	return math.Log(1 + (float64(c.live)-n+0.5)/(n+0.5))
}

// lexScores is the per-query lexical result, dense over slots.
type lexScores struct {
	score   []float64 // normalised BM25, 0 when no term matched
	strong  []bool    // a matched term is strong evidence on its own
	matched []uint16  // number of distinct query terms matched
	touched []int32   // slots with score > 0
}

// keyword scores every doc that shares a term with the query: BM25 over
// the weighted term frequency, divided by the query's ideal score
// Σ idf·(k1+1). A doc that holds one of several query words, or one word
// once, therefore cannot reach 1.
func (c *corpus) keyword(terms []string) *lexScores {
	n := len(c.slots)
	ls := &lexScores{score: make([]float64, n), strong: make([]bool, n), matched: make([]uint16, n)}
	if c.live == 0 || len(terms) == 0 {
		return ls
	}
	avg := c.totalDL / float64(c.live)
	if avg <= 0 {
		avg = 1
	}
	var ideal float64
	for _, t := range terms {
		idf := c.idf(t)
		if len(c.postings[t]) > 0 || !isCJKTerm(t) {
			ideal += idf * (bm25K1 + 1)
		}
		isStrong := strongTerm(t)
		for _, p := range c.postings[t] {
			e := c.slots[p.slot]
			tf := float64(p.tf)
			if ls.matched[p.slot] == 0 {
				ls.touched = append(ls.touched, p.slot)
			}
			ls.score[p.slot] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(e.dl)/avg))
			ls.matched[p.slot]++
			if isStrong {
				ls.strong[p.slot] = true
			}
		}
	}
	for _, s := range ls.touched {
		ls.score[s] /= ideal
	}
	return ls
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

// isCJKTerm reports whether t is a CJK, kana or Hangul window.
func isCJKTerm(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return isCJKScript(scriptOf(r))
}
