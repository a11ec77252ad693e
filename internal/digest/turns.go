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
// twice counts once, where it was said last.
func Statements(turns []Turn) []Statement {
	var out []Statement
	seen := map[string]int{}
	seq := 0
	for _, t := range turns {
		if t.Role != "user" {
			continue
		}
		for _, s := range Sentences(t.Text) {
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
			out = append(out, Statement{Kind: k, Text: s, At: t.At, seq: seq})
		}
	}
	kept := out[:0]
	for i, st := range out {
		if st.Kind != None && !supersededLater(st, out[i+1:]) {
			kept = append(kept, st)
		}
	}
	return kept
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
