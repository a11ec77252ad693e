package rank

import (
	"math"
	"sort"
)

// kthBest is the k-th highest key among unpinned candidates (-Inf
// when there are fewer), computed with a size-k min-heap.
func kthBest(list []*cand, k int) float64 {
	h := make([]float64, 0, k)
	for _, cd := range list {
		if cd.pinned {
			continue
		}
		v := cd.key()
		switch {
		case len(h) < k:
			h = append(h, v)
			for i := len(h) - 1; i > 0 && h[(i-1)/2] > h[i]; i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
		case v > h[0]:
			h[0] = v
			for i := 0; ; {
				l, r, m := 2*i+1, 2*i+2, i
				if l < len(h) && h[l] < h[m] {
					m = l
				}
				if r < len(h) && h[r] < h[m] {
					m = r
				}
				if m == i {
					break
				}
				h[i], h[m] = h[m], h[i]
				i = m
			}
		}
	}
	if len(h) < k {
		return math.Inf(-1)
	}
	return h[0]
}

// topK returns the k best candidates in order (all of them when fewer).
func topK(c *Corpus, list []*cand, k int) []*cand {
	if len(list) <= 4*k {
		sortCands(c, list)
		return list[:min(k, len(list))]
	}
	// partial selection: keep a sorted window of the best k seen so far
	best := make([]*cand, 0, k+1)
	for _, cd := range list {
		if len(best) == k && !better(c, cd, best[k-1]) {
			continue
		}
		i := sort.Search(len(best), func(i int) bool { return better(c, cd, best[i]) })
		best = append(best, nil)
		copy(best[i+1:], best[i:])
		best[i] = cd
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// better is the ranking order: pinned first, then the key (the hybrid at
// its prior); stored memory strength only breaks ties, then name and path
// keep the order stable.
func better(c *Corpus, x, y *cand) bool {
	if x.pinned != y.pinned {
		return x.pinned
	}
	if kx, ky := x.key(), y.key(); kx != ky {
		return kx > ky
	}
	a, b := &c.slots[x.slot].Doc, &c.slots[y.slot].Doc
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.Path < b.Path
}

// sortCands orders pinned before unpinned, then by hybrid; stored memory
// strength only breaks ties, then name and path keep the order stable.
func sortCands(c *Corpus, list []*cand) {
	sort.Slice(list, func(i, j int) bool { return better(c, list[i], list[j]) })
}
