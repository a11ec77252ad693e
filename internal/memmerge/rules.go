package memmerge

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/frontmatter"
	"github.com/somni-dev/somni/internal/memory"
)

// keyUpdated is the profiles' (about_me, about_user) last-change date.
const keyUpdated = "updated"

// field is one key's value on one side; ok is false when the side lacks the key.
type field struct {
	v  string
	ok bool
}

// rule merges one key given its base, ours and theirs; based is false when
// there is no common base (the file was added on both sides, or the base's
// header is unreadable), and then b is absent.
type rule func(b, o, t field, based bool) field

// rules names the keys not merged by otherKey, each with why.
var rules = map[string]rule{
	// A use on either machine happened; the later one is when it was last used.
	memory.KeyLastUsed: latest,
	// Decay is applied up to a day, and the later day's decay covers the earlier's.
	memory.KeyLastDecay: latest,
	// A profile was last updated when either machine last updated it.
	keyUpdated: latest,
	// An entry both machines hold has existed since the first of them made it.
	memory.KeyCreated: earliest,
	// Reinforcements on two machines are two reinforcements; a decay on two is one (see score).
	memory.KeyScore: score,
	// Stability counts reinforcements (and the dreamer's deltas): both machines' count (see stability).
	memory.KeyStability: stability,
	// Links and tags one side added are kept, and so is a removal (see list).
	memory.KeyRelated:    list,
	memory.KeyTags:       list,
	memory.KeySupersedes: list,
}

// plainKeys are written unquoted when their value allows it: ISO timestamps
// hold ':' and every reader takes them verbatim (frontmatter.Meta.SetPlain).
var plainKeys = map[string]bool{memory.KeyLastUsed: true, memory.KeyLastDecay: true, keyUpdated: true, memory.KeyCreated: true}

// mergeMeta merges the headers key by key into a copy of ours: ours' keys keep
// their order and untouched values their bytes, keys only theirs has follow
// in their order, and a key one side deleted while the other left it alone
// is deleted.
func mergeMeta(b, o, t *frontmatter.Meta, based bool) *frontmatter.Meta {
	out := o.Clone()
	keys := o.Keys()
	for _, k := range t.Keys() {
		if _, ok := o.Get(k); !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range b.Keys() {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		merge := rules[k]
		if merge == nil {
			merge = otherKey
		}
		of := get(o, k)
		r := merge(get(b, k), of, get(t, k), based)
		switch {
		case !r.ok:
			out.Delete(k)
		case r == of:
		case plainKeys[k]:
			out.SetPlain(k, r.v)
		default:
			out.Set(k, r.v)
		}
	}
	return out
}

func get(m *frontmatter.Meta, k string) field {
	v, ok := m.Get(k)
	return field{v, ok}
}

// otherKey is every key without a rule of its own: a key changed on one side
// takes that side's value; changed on both sides differently, ours wins.
// Their value then survives only in the sibling when the body conflicted
// too; otherwise it is dropped, since a sibling for one header value would
// ask the dream to reconcile what is mostly a description reworded twice.
func otherKey(b, o, t field, based bool) field {
	switch {
	case o == t, based && t == b:
		return o
	case based && o == b, !based && !o.ok:
		return t
	}
	return o
}

// latest keeps the later of two dates; when either is missing or not a date
// the key is merged as any other.
func latest(b, o, t field, based bool) field { return byDate(b, o, t, based, 1) }

// earliest keeps the earlier of two dates, as latest does otherwise.
func earliest(b, o, t field, based bool) field { return byDate(b, o, t, based, -1) }

func byDate(b, o, t field, based bool, want int) field {
	to, tt := dates.ParseTime(o.v), dates.ParseTime(t.v)
	if !o.ok || !t.ok || to.IsZero() || tt.IsZero() {
		return otherKey(b, o, t, based)
	}
	if tt.Compare(to) == want {
		return t
	}
	return o
}

// score merges the 0–1 strength: what each side moved up is added (a
// reinforcement on each machine is two reinforcements, so recall on both
// never conflicts and never loses one), what each side moved down is not
// (a decay is a function of the days passed, which both machines saw, so
// the deeper of the two decays stands, not their sum). With no base the
// higher score is kept: the sides' moves cannot be told apart, and the
// higher loses no reinforcement. A side that both decayed and was
// reinforced counts as its net move; the result is clamped to [0, 1].
func score(b, o, t field, based bool) field {
	return number(b, o, t, based, func(bv, ov, tv float64) float64 {
		do, dt := ov-bv, tv-bv
		return math.Max(0, math.Min(1, bv+math.Max(do, 0)+math.Max(dt, 0)+math.Min(math.Min(do, dt), 0)))
	}, memory.FormatScore)
}

// stability merges the reinforcement count: base plus both sides' changes
// (each new-day recall on a machine added one, and decay never lowers it;
// a dreamer's stability_delta on each machine counts too), never below 0.
// With no base the higher is kept, as for score.
func stability(b, o, t field, based bool) field {
	return number(b, o, t, based, func(bv, ov, tv float64) float64 {
		return math.Max(0, bv+(ov-bv)+(tv-bv))
	}, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) })
}

// number applies a numeric rule when ours and theirs are numbers (and the
// base is, when there is one); otherwise the key is merged as any other. A
// result equal to a side keeps that side's text (`0.50` stays `0.50`).
func number(b, o, t field, based bool, merge func(bv, ov, tv float64) float64, format func(float64) string) field {
	ov, okO := parseNumber(o)
	tv, okT := parseNumber(t)
	if !okO || !okT {
		return otherKey(b, o, t, based)
	}
	bv, okB := parseNumber(b)
	var r float64
	switch {
	case !based || !b.ok:
		r = math.Max(ov, tv)
	case !okB:
		return otherKey(b, o, t, based)
	default:
		r = merge(bv, ov, tv)
	}
	switch r {
	case ov:
		return o
	case tv:
		return t
	}
	return field{format(r), true}
}

func parseNumber(f field) (float64, bool) {
	if !f.ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(f.v), 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// list merges a list of names three ways: an item either side added is kept
// (a plain union), and an item of the base that one side removed stays
// removed (a plain union would bring back a link a person deleted). Ours'
// items come first in their order, then theirs'. A list that differs from
// ours is written `a, b`, the compat writer's form, which every reader of
// lists takes (memory.SplitList): theirs' `[a, b]` would be written quoted,
// a string to YAML readers.
func list(b, o, t field, based bool) field {
	if o == t {
		return o
	}
	bl, ol, tl := memory.SplitList(b.v), memory.SplitList(o.v), memory.SplitList(t.v)
	var out []string
	for _, side := range [][]string{ol, tl} {
		for _, item := range side {
			removed := slices.Contains(bl, item) && (!slices.Contains(ol, item) || !slices.Contains(tl, item))
			if !removed && !slices.Contains(out, item) {
				out = append(out, item)
			}
		}
	}
	switch {
	case slices.Equal(out, ol) && o.ok:
		return o
	case len(out) == 0:
		return field{"", o.ok && t.ok}
	}
	return field{strings.Join(out, ", "), true}
}
