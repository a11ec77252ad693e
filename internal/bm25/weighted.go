package bm25

import (
	"iter"
	"math"

	"github.com/somni-dev/somni/internal/textseg"
)

// Weighted is an inverted index of weighted term frequencies: the caller
// analyses each document into terms (package textseg) and folds its
// field weights into one frequency per term, and Weighted keeps the
// postings and the statistics BM25 needs. Documents are named by small
// dense ids, as in Index. It is not safe for concurrent writes; the
// caller's lock guards it as it guards the documents.
type Weighted struct {
	ids   map[string]int32 // term → id; ids are never reused, the vocabulary only grows
	lists [][]Posting      // term id → documents holding it
	lens  []float32        // by document: its weighted length; -1 = no document
	live  int
	total float64 // summed weighted lengths of the live documents
}

// Posting is one document's weighted frequency of a term.
type Posting struct {
	Doc int32
	TF  float32
}

func (p Posting) docID() int32 { return p.Doc }

// NewWeighted returns an empty Weighted.
func NewWeighted() *Weighted { return &Weighted{ids: map[string]int32{}} }

// Add counts document doc, of weighted length dl, in the statistics; doc
// must not be in the index. Its terms are posted apart (Post, PostBytes),
// before or after: a document read from a cache learns its length only
// once its terms are read.
func (w *Weighted) Add(doc int32, dl float32) {
	for int(doc) >= len(w.lens) {
		w.lens = append(w.lens, -1)
	}
	w.lens[doc] = dl
	w.live++
	w.total += float64(dl)
}

// Post records that document doc holds term with weighted frequency tf;
// each of a document's terms is posted once.
func (w *Weighted) Post(doc int32, term string, tf float32) {
	id, ok := w.ids[term]
	if !ok {
		id = w.newTerm(term)
	}
	w.lists[id] = append(w.lists[id], Posting{doc, tf})
}

// PostBytes is Post for a term read from bytes (a cached view): the term
// is copied into a string only the first time the index sees it.
func (w *Weighted) PostBytes(doc int32, term []byte, tf float32) {
	id, ok := w.ids[string(term)]
	if !ok {
		id = w.newTerm(string(term))
	}
	w.lists[id] = append(w.lists[id], Posting{doc, tf})
}

func (w *Weighted) newTerm(t string) int32 {
	id := int32(len(w.lists))
	w.ids[t] = id
	w.lists = append(w.lists, nil)
	return id
}

// Remove drops document doc, whose distinct terms are terms.
func (w *Weighted) Remove(doc int32, terms iter.Seq[string]) {
	if int(doc) >= len(w.lens) || w.lens[doc] < 0 {
		return
	}
	for t := range terms {
		id, ok := w.ids[t]
		if !ok {
			continue
		}
		list := dropDoc(w.lists[id], doc)
		if len(list) == 0 {
			list = nil // its array is garbage now; the id stays
		}
		w.lists[id] = list
	}
	w.live--
	w.total -= float64(w.lens[doc])
	w.lens[doc] = -1
}

// Postings lists the documents holding term t. The slice is the index's
// own: the caller must not change it, and it is valid until the next
// write.
func (w *Weighted) Postings(t string) []Posting {
	if id, ok := w.ids[t]; ok {
		return w.lists[id]
	}
	return nil
}

// Compact copies every posting list into one array of exactly the
// postings' size. Lists grown by append leave a third of their capacity
// unused on average and, scattered over the heap between the garbage of a
// big load, keep its pages from going back to the OS, so the process held
// far more than its live heap (measured in docs/ARCHITECTURE.md, Measurements). A later Post
// appending to a compacted list moves only that list.
func (w *Weighted) Compact() {
	n := 0
	for _, l := range w.lists {
		n += len(l)
	}
	all := make([]Posting, n)
	off := 0
	for id, l := range w.lists {
		if len(l) == 0 {
			w.lists[id] = nil
			continue
		}
		copy(all[off:], l)
		w.lists[id] = all[off : off+len(l) : off+len(l)]
		off += len(l)
	}
}

// idf is BM25's inverse document frequency (Lucene form, never negative).
func (w *Weighted) idf(t string) float64 {
	n := float64(len(w.Postings(t)))
	return math.Log(1 + (float64(w.live)-n+0.5)/(n+0.5))
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

// TermWeight is how much a query word counts in a weighted query
// embedding (the recall index's embed.TermWeighted), averaged over the
// word's terms (textseg.Tokenize): a term's idf over the idf of a term in
// weightShare of the documents, capped at 1. A word no document holds,
// or one that is not a term (a stopword), counts fully: the weight only
// takes away what idf would.
func (w *Weighted) TermWeight(word string) float64 {
	if w.live < 2 {
		return 1
	}
	ts := textseg.Tokenize(word)
	if len(ts) == 0 {
		return 1
	}
	sum := 0.0
	for _, t := range ts {
		sum += w.weightOf(t)
	}
	return sum / float64(len(ts))
}

// weightOf is one term's weight on TermWeight's scale: its idf over the
// idf of a term in weightShare of the documents, capped at 1; 1 for a
// term no document holds.
func (w *Weighted) weightOf(t string) float64 {
	if len(w.Postings(t)) == 0 || w.live < 2 {
		return 1
	}
	n := max(1, weightShare*float64(w.live))
	ref := math.Log(1 + (float64(w.live)-n+0.5)/(n+0.5))
	return min(1, w.idf(t)/ref)
}

// Each calls f with every term that has postings and its list, in term id
// order (a snapshot of the index; f must not keep or change the list).
func (w *Weighted) Each(f func(term string, list []Posting)) {
	terms := make([]string, len(w.lists))
	for t, id := range w.ids {
		terms[id] = t
	}
	for id, l := range w.lists {
		if len(l) > 0 {
			f(terms[id], l)
		}
	}
}

// Len is the weighted length of document doc, or -1 when it is not in the index.
func (w *Weighted) Len(doc int32) float32 {
	if int(doc) >= len(w.lens) {
		return -1
	}
	return w.lens[doc]
}

// RestoreWeighted is a Weighted holding terms[i]'s postings lists[i] (each
// sorted or not, as Each gave them) and documents of lengths lens (-1: no
// document): Each's output put back without posting term by term. It
// takes ownership of the slices.
func RestoreWeighted(terms []string, lists [][]Posting, lens []float32) *Weighted {
	w := &Weighted{ids: make(map[string]int32, len(terms)), lists: lists, lens: lens}
	for i, t := range terms {
		w.ids[t] = int32(i)
	}
	for _, l := range lens {
		if l >= 0 {
			w.live++
			w.total += float64(l)
		}
	}
	return w
}
