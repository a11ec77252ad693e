package rank

import (
	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/textseg"
)

// The BM25 floor: plain BM25 (package bm25: the language's standard
// analyzer, exactly make eval's baseline) is one input of every ranking.
// The entry it ranks first for a query is kept within the first
// plainFloor results, whatever the other signals say; the rest of the
// order is the hybrid's. So recall's top plainFloor hold BM25's top 1,
// by construction and not only on the sets measured.
//
// Why a floor and not a fusion of the two lists: on the tuning halves of
// make eval (real pools: RealMem, LifeBench zh, MemoryCode; MADial-Bench;
// the synthetic dialogues; off and hash, 2026-12-07) the hybrid already
// stands above plain BM25 on every set, and every fusion tried pulled it
// toward BM25 more than it helped: weighted reciprocal rank fusion
// (Cormack et al., k 60) with BM25's share 0.1 / 0.2 / 0.3 cost 0–0.02
// on LifeBench, up to 0.07 on MADial en and 0.05–0.11 on the dialogues,
// gaining 0.01–0.05 on MemoryCode; adding BM25's max-normalised score at
// 0.1 cost MADial en 0.20 (its long dialogue queries give small hybrids).
const (
	// plainFloorCJK is the floor for a query mostly in CJK script (Chinese,
	// Japanese, Korean; Traditional Chinese too). Rule, stated before the
	// sweep: per language, the floor with the highest lowest hit@5 ratio
	// to BM25 over that language's tuning halves (off and hash), then the
	// highest mean. Chinese: no floor 1.00 (MADial zh 0.78 = BM25's), a
	// floor 1.04 (MADial zh 0.81; LifeBench 0.85 either way, the dialogues
	// 0.62–0.67 from 0.63–0.69). The floor runs after link spreading, so a
	// floor of 1 to 5 changes the same top-5 set and hit@5 cannot tell
	// them apart: 3 keeps the hybrid's two best on top and BM25's first
	// in sight of a reader who looks at three.
	plainFloorCJK = 3
	// plainFloorWords is the floor for any other query: none. English
	// ties at a lowest ratio of 1.00 either way (RealMem, hash) and the
	// mean falls with a floor (MADial en 0.79 → 0.76, the dialogues
	// 0.68–0.72 → 0.66–0.69).
	plainFloorWords = 0
)

// plainText is what plain BM25 indexes of an entry: its name, description
// and body as one field.
func plainText(d Doc) string { return d.Name + "\n" + d.Description + "\n" + d.Body }

// PlainText is plainText for make eval's baseline, so the floor and the
// baseline read the same text.
func PlainText(d Doc) string { return plainText(d) }

// plainFloor is this query's floor: 0 for none.
func (r *ranking) plainFloor() int {
	if textseg.MostlyCJK(r.q.Text) {
		return plainFloorCJK
	}
	return plainFloorWords
}

// plain admits plain BM25's first entry among those passing the query's
// filters as a candidate (cand.plainFirst), when the query has a floor.
// An entry wholly outside a bound the question sets ("2026年以来") is not
// eligible: BM25 cannot read the bound, and the floor must not lift what
// the question itself ruled out (the hybrid weighs such entries down).
// With a team pool mounted (index.Options.Shared) it is the first of the user's
// own entries, and a shared one only when none of theirs shares a word
// with the query: the floor is the user's, as the order is (sharedPrior).
// Runs after dated, which reads the bounds. While the index has not built
// the floor's index yet (plain.go), the question ranks without a floor.
func (r *ranking) plain() {
	if r.plainFloor() == 0 {
		return
	}
	x := r.c.plainIndex()
	if x == nil {
		return
	}
	for _, shared := range []bool{false, true} {
		keep := func(s int32) bool {
			e := r.c.slots[s]
			return e != nil && e.shared == shared && passes(r.q, &e.Doc) &&
				(len(r.bounds) == 0 || dates.InBounds(e.days, r.bounds))
		}
		if xs := x.Search(r.q.Text, 1, keep); len(xs) > 0 {
			r.admit(xs[0].Doc).plainFirst = true
			return
		}
		if r.c.shared == nil {
			return
		}
	}
}

// floor moves plain BM25's first entry up to place plainFloor of the
// ordered list, or into it, when the hybrid put it lower or left it
// out; pinned entries (a query symbol held verbatim) stay above it.
func (r *ranking) floor(list []*cand) []*cand {
	m := r.plainFloor()
	if m == 0 {
		return list
	}
	at := -1
	for i, cd := range list {
		if cd.plainFirst {
			at = i
		}
	}
	var first *cand
	if at < 0 {
		for i := range r.pool {
			if r.pool[i].plainFirst {
				first = &r.pool[i]
			}
		}
		if first == nil { // no entry shares a word with the query, or filtered
			return list
		}
		list = append(list, first)
		at = len(list) - 1
	}
	first = list[at]
	to := m - 1
	for to < at && list[to].pinned {
		to++
	}
	if at > to {
		copy(list[to+1:at+1], list[to:at])
		list[to] = first
	}
	return list
}
