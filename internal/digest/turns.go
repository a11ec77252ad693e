package digest

import (
	"strings"

	"github.com/somni-dev/somni/internal/lazyre"
	"github.com/somni-dev/somni/internal/textseg"
)

// Turn is one block of a session's captured log.
type Turn struct {
	Role   string // user | agent | tool
	At     string // header time as written
	Text   string // user and agent turns
	Call   string // tool turns: "name({...})"
	Result string // tool turns
}

// Statements returns the sentences the user said that read as a fact, a
// preference, a decision or a correction, in session order; a sentence said
// twice counts once, where it was said last. What a later statement
// replaces is left out: a whole statement when a correction repeats its
// old value or its words, or when every value it gave was given another
// value later, and the clause holding a value that was (the host in
// "db-billing-02, port 5432" stays when the port changes). A statement that
// gives something a new value is a correction, however it is phrased.
func Statements(turns []Turn) []Statement {
	var out []Statement
	seen := map[string]int{}
	seq := 0
	for _, t := range turns {
		if t.Role != "user" {
			continue
		}
		for _, s := range textseg.Sentences(t.Text) {
			seq++
			k := Classify(s)
			if k == None {
				continue
			}
			key := strings.ToLower(strings.Join(strings.Fields(s), " "))
			if i, ok := seen[key]; ok {
				out[i] = Statement{} // said again later: keep the later one
			}
			seen[key] = len(out)
			toks := lex(s)
			out = append(out, Statement{Kind: k, Text: s, At: t.At, seq: seq, toks: toks, slots: slotsOf(toks)})
		}
	}
	stale := replacedValues(out)
	kept := out[:0]
	for i, st := range out {
		if st.Kind == None || supersededLater(st, out[i+1:]) {
			continue
		}
		if len(stale[i]) > 0 {
			text, ok := without(st, stale[i])
			if !ok {
				continue
			}
			st.Text = text
		}
		kept = append(kept, st)
	}
	return kept
}

// replacedValues marks, per statement, the slots a later statement gives
// the same thing another value in, and makes each such later statement a
// correction: a later value for the same thing is one.
func replacedValues(out []Statement) map[int]map[int]bool {
	// Per statement and slot, what it is said of; nil for a slot that is
	// ambiguous, which neither replaces nor is replaced.
	ctxs := make([][][][]string, len(out))
	usable := make([][]bool, len(out))
	for i, st := range out {
		ctxs[i] = make([][][]string, len(st.slots))
		usable[i] = make([]bool, len(st.slots))
		for k := range st.slots {
			if usable[i][k] = !ambiguous(st.slots, k); usable[i][k] {
				ctxs[i][k] = context(st.slots, k)
			}
		}
	}
	stale := map[int]map[int]bool{}
	for i := range out {
		for k, s := range out[i].slots {
			if !usable[i][k] {
				continue
			}
			for j := i + 1; j < len(out); j++ {
				for m, l := range out[j].slots {
					if !usable[j][m] || l.value == s.value || !sameThing(s.thing, l.thing) || differ(ctxs[i][k], ctxs[j][m]) {
						continue
					}
					if stale[i] == nil {
						stale[i] = map[int]bool{}
					}
					stale[i][k] = true
					out[j].Kind = Correction
				}
			}
		}
	}
	return stale
}

// without is st's text without what its stale slots said: each slot's words
// from the name of the thing to its value, with the function words before
// them ("on port 5432"), and a clause right after that only negates ("…,
// not 5432"). ok is false when nothing is left worth a line: no value of st
// stands and what remains states nothing, or only the marker of a
// correction ("Actually, correction:").
func without(st Statement, stale map[int]bool) (string, bool) {
	text, ok := cutSlots(st, stale)
	if !ok || len(stale) < len(st.slots) {
		return text, ok
	}
	switch Classify(text) {
	case Fact, Preference, Decision:
		return text, true
	}
	return "", false
}

func cutSlots(st Statement, stale map[int]bool) (string, bool) {
	toks := st.toks
	cut := make([]bool, len(toks))
	clause := make([]int, len(toks))
	for i, c := 0, 0; i < len(toks); i++ {
		if toks[i].kind == tSep {
			c++
		}
		clause[i] = c
	}
	for k := range stale {
		s := st.slots[k]
		from := s.first
		for from > 0 && toks[from-1].kind == tWord && (textseg.IsStopword(toks[from-1].text) || preps[toks[from-1].text]) {
			from--
		}
		for i := from; i <= s.at; i++ {
			cut[i] = true
		}
		// "…, not 5432": the old value the replaced one corrected goes with it.
		if n := nextClause(toks, s.at); n >= 0 && negates(toks[n]) {
			for i := n; i < len(toks) && clause[i] == clause[n]; i++ {
				cut[i] = true
			}
		}
	}
	// The sentence's closing marks stay whatever clause they closed.
	tail := len(toks)
	for tail > 0 && toks[tail-1].kind == tEnd {
		tail--
	}
	var b strings.Builder
	var pending string // the separator before the next kept clause
	for i := 0; i < tail; {
		c := clause[i]
		var parts []string
		start := -1
		for ; i < tail && clause[i] == c; i++ {
			t := toks[i]
			switch {
			case t.kind == tSep:
				if b.Len() > 0 {
					pending = st.Text[t.start:t.end]
					if t.end < len(st.Text) && st.Text[t.end] == ' ' {
						pending += " "
					}
				}
			case cut[i]:
				if start >= 0 {
					parts = append(parts, st.Text[toks[start].start:toks[i-1].end])
					start = -1
				}
			case start < 0:
				start = i
			}
		}
		if start >= 0 {
			parts = append(parts, st.Text[toks[start].start:toks[i-1].end])
		}
		if len(parts) == 0 {
			continue
		}
		b.WriteString(pending)
		b.WriteString(strings.Join(parts, " "))
		pending = ""
	}
	if b.Len() == 0 {
		return "", false
	}
	for _, t := range toks[tail:] {
		b.WriteString(st.Text[t.start:t.end])
	}
	return b.String(), true
}

// nextClause is the first token of the clause after the one holding toks[i], -1 when none.
func nextClause(toks []token, i int) int {
	for ; i < len(toks); i++ {
		if toks[i].kind == tSep {
			if i+1 < len(toks) {
				return i + 1
			}
			return -1
		}
	}
	return -1
}

// negates reports a token that opens a clause of old values: "not", "instead", "不是".
func negates(t token) bool {
	switch t.kind {
	case tWord:
		return negWords[t.text] || t.text == "rather"
	case tHan:
		for _, n := range hanNegs {
			if strings.HasPrefix(t.text, n) {
				return true
			}
		}
	}
	return false
}

// supersededLater reports whether a later correction replaces st: it
// repeats every number st states (the old value it corrects: "6543, not
// 5432"), or, when st states none, most of st's words. A corrected fact
// left in the block would hand the model the old value beside the new one.
func supersededLater(st Statement, later []Statement) bool {
	if st.Kind == Correction {
		return false
	}
	nums := number().FindAllString(st.Text, -1)
	words := textseg.Tokenize(st.Text)
	for _, c := range later {
		if c.Kind != Correction {
			continue
		}
		if len(nums) > 0 {
			if containsAll(number().FindAllString(c.Text, -1), nums) {
				return true
			}
			continue
		}
		if len(words) >= minSharedWords && shared(words, textseg.Tokenize(c.Text))*10 >= len(words)*supersedeShareTenths {
			return true
		}
	}
	return false
}

// A correction replaces a number-free statement when it repeats at least
// minSharedWords of its words and supersedeShareTenths/10 of them ("I
// prefer tabs" → "No, I prefer spaces, not tabs").
const (
	minSharedWords       = 2
	supersedeShareTenths = 6
)

var number = lazyre.New(`\d+(?:[.:,]\d+)*`)

func containsAll(have, want []string) bool {
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}

// shared counts the distinct words of a also in b.
func shared(a, b []string) int {
	in := map[string]bool{}
	for _, w := range b {
		in[w] = true
	}
	n := 0
	seen := map[string]bool{}
	for _, w := range a {
		if in[w] && !seen[w] {
			seen[w] = true
			n++
		}
	}
	return n
}

// intentionID is the id add_intention gives (pi-YYYYMMDD-NNN).
var intentionID = lazyre.New(`\bpi-\d{8}-\d{3}\b`)

// intentionTools are the tools whose records name the intentions a session touched.
var intentionTools = []string{"add_intention", "complete_intention", "cancel_intention"}

// IntentionIDs returns the intention ids the session's intention tool calls
// named, first mention first.
func IntentionIDs(turns []Turn) []string {
	return fromTools(turns, intentionTools, func(t Turn) []string {
		return intentionID().FindAllString(t.Call+" "+t.Result, -1)
	})
}

// fromTools collects what pick finds in the records of the named tools, unique, in order.
func fromTools(turns []Turn, tools []string, pick func(Turn) []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range turns {
		if t.Role != "tool" || !calls(t.Call, tools) {
			continue
		}
		for _, v := range pick(t) {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// calls reports whether a tool record's call is one of the named tools.
func calls(call string, tools []string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(call), "(")
	for _, t := range tools {
		if name == t {
			return true
		}
	}
	return false
}
