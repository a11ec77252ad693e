package change

import (
	"slices"
	"strings"
	"time"
)

// Window is how far down a ranked list (× the limit) a newer statement of
// a listed entry's subject is looked for: a later "from now on, …" that
// shares fewer of the question's words than the statement it replaces
// still ranks near it, and reading every candidate's sentences would cost
// a large pool more than its ranking.
const Window = 3

// Entry is one ranked entry as Order reads it.
type Entry struct {
	// Keys are the names it answers to (its name, its directory name),
	// compared without case.
	Keys []string
	// When places it in time; zero: unknown, so no link is inferred.
	When time.Time
	// Text is what it states (description and body).
	Text string
	// Supersedes and SupersededBy are the links its front-matter gives.
	Supersedes   []string
	SupersededBy string
}

// Pool is the ranking Order reorders, its entries named by the ranking's
// own ids.
type Pool interface {
	// Entry is id's entry; Order reads each at most once.
	Entry(id int32) Entry
	// Named is the entries answering to name.
	Named(name string) []int32
	// About is the entries sharing strong keyword evidence with the
	// terms: where the second hop looks for a statement a claim replaced.
	About(terms []string) []int32
	// Admits reports whether id passes the question's filters.
	Admits(id int32) bool
	// Matched is the question's terms id holds, as its ranking matched
	// them (one segmentation of a CJK run).
	Matched(id int32) []string
	// Holds reports whether id's text holds a question term it did not
	// match, however its text segments: 会议室 of one entry's matched
	// terms is in another's 会议室开 (Order asks it of terms outside
	// Matched only).
	Holds(id int32, term string) bool
}

// Order puts the newest statement of a thing above the one it replaced and
// marks the old one with it: an entry another replaced (its front-matter
// says superseded_by, or a later entry's claim covers it) gets the
// replacement just above it, since a question asks how things are now. A
// question about the past (past) gets the replaced entry just above the one
// that replaced it, found by name, in the list, or by the claim's subject
// (the second hop: the old statement need not share the question's words).
// The first limit places are looked at; list is in rank order, and so is
// the result. newer maps each marked entry to the entry that replaced it.
func Order(list []int32, limit int, past bool, p Pool) (out []int32, newer map[int32]int32) {
	o := &orderer{p: p, entries: map[int32]*read{}, newer: map[int32]int32{}}
	out = list
	// each step marks one listed entry or moves one up; a cycle of
	// hand-written superseded_by links must not turn it forever
	for i, steps := 0, 0; i < min(limit, len(out)) && steps < 4*limit; i, steps = i+1, steps+1 {
		id := out[i]
		window := out[:min(len(out), Window*limit)]
		if past {
			if old, ok := o.older(window, id); ok {
				if _, marked := o.newer[old]; !marked {
					o.newer[old] = id
					if out = moveAbove(out, old, i); out[i] == old {
						i++ // past id, now below it
					}
				}
			}
			continue
		}
		if _, marked := o.newer[id]; marked {
			continue
		}
		if n, ok := o.newest(window, id); ok {
			o.newer[id] = n
			if out = moveAbove(out, n, i); out[i] == n {
				i-- // look at n in its new place: something later may have replaced it
			}
		}
	}
	return out, o.newer
}

// orderer is one Order's reading of the entries it looked at.
type orderer struct {
	p       Pool
	entries map[int32]*read
	newer   map[int32]int32
}

type read struct {
	Entry
	claims      []Claim
	claimsRead  bool
	matched     []string
	matchedRead bool
	// sentences are the subject terms of each sentence of Text, read the
	// first time a claim is held against it (sentenceTerms)
	sentences     [][]string
	sentencesRead bool
}

func (o *orderer) entry(id int32) *read {
	r, ok := o.entries[id]
	if !ok {
		r = &read{Entry: o.p.Entry(id)}
		o.entries[id] = r
	}
	return r
}

func (o *orderer) claims(id int32) []Claim {
	r := o.entry(id)
	if !r.claimsRead {
		r.claims, r.claimsRead = Claims(r.Text), true
	}
	return r.claims
}

func (o *orderer) matched(id int32) []string {
	r := o.entry(id)
	if !r.matchedRead {
		r.matched, r.matchedRead = o.p.Matched(id), true
	}
	return r.matched
}

// replaces reports whether n replaced old: old's front-matter names n, n's
// names old, or n is later, says something changed (a claim) and either
// the claim covers old or the two answer the question alike (sameAnswer).
func (o *orderer) replaces(n, old int32) bool {
	ne, oe := o.entry(n), o.entry(old)
	if oe.SupersededBy != "" && answers(ne.Keys, oe.SupersededBy) {
		return true
	}
	for _, s := range ne.Supersedes {
		if answers(oe.Keys, s) {
			return true
		}
	}
	if ne.When.IsZero() || oe.When.IsZero() || !ne.When.After(oe.When) {
		return false
	}
	cls := o.claims(n)
	if len(cls) == 0 {
		return false
	}
	if sameAnswer(o.matched(n), func(t string) bool { return slices.Contains(o.matched(old), t) || o.p.Holds(old, t) }) {
		return true
	}
	if !oe.sentencesRead {
		oe.sentences, oe.sentencesRead = sentenceTerms(oe.Text), true
	}
	for _, cl := range cls {
		if cl.coversAny(oe.sentences) {
			return true
		}
	}
	return false
}

// sameAnswer reports whether an older entry answers the question as the
// newer does: it holds at least minShared of the newer one's question
// terms and lacks at most a quarter of them (one, for a short question).
// "Which room is standup in now?" finds the Nebula note and the Aurora
// note on the same two words; a note on another service that shares
// "staging" and "port" but not "kafka" does not answer the same question,
// nor does it when the subject words happen to match in a long text.
func sameAnswer(newer []string, olderHolds func(string) bool) bool {
	shared := 0
	for _, t := range newer {
		if olderHolds(t) {
			shared++
		}
	}
	missing := len(newer) - shared
	return shared >= minShared && missing <= max(1, len(newer)/4)
}

func answers(keys []string, name string) bool {
	name = strings.TrimSpace(name)
	for _, k := range keys {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// later reports whether a is placed after b (b < 0: nothing yet).
func (o *orderer) later(a, b int32) bool {
	return b < 0 || o.entry(a).When.After(o.entry(b).When)
}

// newest is the latest entry of window, or named by old's superseded_by,
// that replaced old.
func (o *orderer) newest(window []int32, old int32) (int32, bool) {
	best := int32(-1)
	for _, x := range window {
		if _, marked := o.newer[x]; x != old && !marked && o.later(x, best) && o.replaces(x, old) {
			best = x
		}
	}
	if best >= 0 {
		return best, true
	}
	if by := o.entry(old).SupersededBy; by != "" {
		return o.admitted(o.p.Named(by), old)
	}
	return -1, false
}

// older is the entry n replaced: named by its supersedes, in window, or
// found by its claims' subject (the latest such entry before n).
func (o *orderer) older(window []int32, n int32) (int32, bool) {
	for _, name := range o.entry(n).Supersedes {
		if id, ok := o.admitted(o.p.Named(name), n); ok {
			return id, true
		}
	}
	cls := o.claims(n)
	if len(cls) == 0 {
		return -1, false
	}
	best := int32(-1)
	for _, x := range window {
		if x != n && o.later(x, best) && o.replaces(n, x) {
			best = x
		}
	}
	if best >= 0 {
		return best, true
	}
	for _, cl := range cls {
		for _, x := range o.p.About(cl.Subject) {
			if x != n && o.p.Admits(x) && o.later(x, best) && o.replaces(n, x) {
				best = x
			}
		}
	}
	return best, best >= 0
}

// admitted is the first of ids other than from that passes the filters.
func (o *orderer) admitted(ids []int32, from int32) (int32, bool) {
	for _, id := range ids {
		if id != from && o.p.Admits(id) {
			return id, true
		}
	}
	return -1, false
}

// moveAbove puts x at position i of list, shifting the rest down: taken
// from where it was when listed below i, added when it was not listed;
// left alone when it is already above.
func moveAbove(list []int32, x int32, i int) []int32 {
	for j, y := range list {
		if y == x {
			if j < i {
				return list
			}
			copy(list[i+1:j+1], list[i:j])
			list[i] = x
			return list
		}
	}
	list = append(list, 0)
	copy(list[i+1:], list[i:])
	list[i] = x
	return list
}
