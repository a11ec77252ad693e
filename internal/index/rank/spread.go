package rank

// spread adds one hop of linked neighbours of the top seeds at seed×0.6,
// leaving entries that already scored on their own untouched.
func (r *ranking) spread(list []*cand) []*cand {
	c, q, idx := r.c, r.q, r.idx
	n := min(spreadSeeds, len(list))
	added := false
	for _, seed := range list[:n] {
		for _, nb := range c.neighbours(seed.slot) {
			if idx[nb] >= 0 {
				continue
			}
			e := c.slots[nb]
			if e == nil || !passes(q, &e.Doc) {
				continue
			}
			idx[nb] = 0 // marks it scored so a second seed does not add it again
			cd := &cand{slot: nb, spreadFrom: seed.slot, pinnedBy: -1, hybrid: seed.hybrid * spreadFactor, shared: e.shared}
			list = append(list, cd)
			added = true
		}
	}
	if added {
		sortCands(c, list)
	}
	return list
}
