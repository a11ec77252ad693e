package rank

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSettleLiteralsKeepsTheTop: stopping the deferred literal checks
// early returns the same top k, with the same bonuses, as checking every
// candidate the bar lets through, over random candidate lists where many
// or few entries hold the whole query, with pinned entries, team entries
// (another prior) and ties.
func TestSettleLiteralsKeepsTheTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 400; round++ {
		n, k := 5+rng.IntN(200), 1+rng.IntN(20)
		holdShare := []float64{0.05, 0.5, 0.95}[round%3]
		c := newCorpus()
		var pool []cand
		for s := 0; s < n; s++ {
			body := "filler text"
			if rng.Float64() < holdShare {
				body = "the redis cache failover replica note"
			}
			c.Put(NewEntry(Doc{Path: fmt.Sprintf("e%03d", s), Name: fmt.Sprintf("e%03d", s), Body: body}), nil)
			pool = append(pool, cand{slot: int32(s), spreadFrom: -1, pinnedBy: -1,
				hybrid:   float64(rng.IntN(40)) / 40, // coarse: ties on purpose
				maybeLit: rng.IntN(4) > 0, pinned: rng.IntN(30) == 0, shared: rng.IntN(5) == 0,
				plainFirst: s == 3})
		}
		top := func(settle func(r *ranking, list []*cand)) []string {
			p := append([]cand(nil), pool...)
			r := &ranking{c: c, lit: "redis cache failover replica"}
			list := make([]*cand, len(p))
			for i := range p {
				list[i] = &p[i]
			}
			settle(r, list)
			var out []string
			for _, cd := range topK(c, list, k) {
				out = append(out, fmt.Sprintf("%d:%v:%.3f", cd.slot, cd.literal, cd.hybrid))
			}
			return out
		}
		want := top(func(r *ranking, list []*cand) { // every candidate the bar lets through
			bar := kthBest(list, k)
			for _, cd := range list {
				if cd.maybeLit && (cd.pinned || cd.key()+literalBonus*cd.prior() >= bar) {
					r.settleLiteral(cd)
				}
			}
		})
		got := top(func(r *ranking, list []*cand) { r.settleLiterals(list, k) })
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("round %d (n %d, k %d):\n got  %v\n want %v", round, n, k, got, want)
		}
	}
}

// TestSettleLiteralsStopsEarly: when every candidate holds the query, the
// checks stop once the k best are settled instead of reading them all
// (what a 100k search paid for before).
func TestSettleLiteralsStopsEarly(t *testing.T) {
	const n, k = 1000, 10
	c := newCorpus()
	pool := make([]cand, n)
	list := make([]*cand, n)
	for s := range pool {
		c.Put(NewEntry(Doc{Path: fmt.Sprintf("e%04d", s), Body: "the redis cache failover replica note"}), nil)
		pool[s] = cand{slot: int32(s), spreadFrom: -1, pinnedBy: -1, hybrid: 0.5 + float64(s)/(4*n), maybeLit: true}
		list[s] = &pool[s]
	}
	r := &ranking{c: c, lit: "redis cache failover replica"}
	r.settleLiterals(list, k)
	checked := 0
	for _, cd := range list {
		if cd.literal {
			checked++
		}
	}
	if checked > 2*k {
		t.Fatalf("%d of %d candidates checked for the literal, want at most %d", checked, n, 2*k)
	}
}
