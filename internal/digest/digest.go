// Package digest writes what somni adds to a compaction summary: a short,
// bounded block of this session's own memory, so what the agent knew before
// the harness summarised and dropped the transcript is still at hand after
// it. It chooses from what the caller gathered (the session's captured turns,
// the memories hinted and recalled in it, the intentions it touched) what
// the block keeps, and makes no model call; package present writes the
// block's lines and framing, as it writes everything else the model is
// shown of memory.
//
// Map:
//
//	digest.go    Digest, its parts and Render: which parts the block keeps within its budget, in which order
//	classify.go  Classify: which sentences a user said are facts, preferences, decisions or corrections
//	slots.go     the values a sentence gives things ("port" → 5432), so a later value for the same thing replaces it
//	turns.go     Statements, and the intention ids read from tool records
package digest

import (
	"sort"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/present"
)

// Bounds of the block. MaxRunes is what a caller may ask for at most: the
// harness rejects a summary that is not smaller than what it replaces, and a
// compaction that fails keeps the whole transcript, so the block stays a
// fraction of any summary worth making. The per-line caps (package present)
// keep one long statement from taking the budget of ten short ones.
const (
	MaxRunes      = 2000
	DefaultRunes  = 1200
	maxIntentions = 8
	MaxMemories   = 8 // what the block lists; a caller gathers no more
	maxStatements = 16
)

// Intention is one intention the session added, completed or cancelled.
type Intention struct {
	ID    string
	State string // open, completed, cancelled, …
	Due   string
	What  string
}

// Memory is one memory the session surfaced.
type Memory struct {
	Name        string
	Path        string // as the model is shown it (relative to the data dir)
	Description string
	How         string // hinted, recalled
}

// Statement is one sentence the user said that reads as Kind.
type Statement struct {
	Kind Kind
	Text string
	At   string // when it was said, as the log wrote it
	seq  int    // order in the session

	toks  []token // Text's, as Statements read it for its values
	slots []slot
}

// Digest is what a session's memory holds at compaction.
type Digest struct {
	Intentions []Intention
	Memories   []Memory
	Statements []Statement
}

// Counts says how many of each part a rendered block kept.
type Counts struct {
	Intentions int `json:"intentions"`
	Memories   int `json:"memories"`
	Statements int `json:"statements"`
}

// Render writes the block within maxRunes (DefaultRunes when ≤ 0, at most
// MaxRunes). Parts are taken by priority until the budget is spent: what
// the session itself said first (the corrections, the intentions, then the
// other statements, newest first), what somni surfaced (the memories)
// last, since those are still in memory after the compaction and the
// user's words are only in the log. Each part prints in session order,
// what the user said first. Nothing to say renders "".
func (d Digest) Render(maxRunes int) (string, Counts) {
	if maxRunes <= 0 {
		maxRunes = DefaultRunes
	}
	maxRunes = min(maxRunes, MaxRunes)
	left := maxRunes - utf8.RuneCountInString(present.CompactionHead)
	var c Counts
	var intents, mems []string
	var said []Statement
	day := oneDay(d.Statements)
	saidTitle := present.CompactionSaidTitle(day)
	take := func(line, title string, have int) bool {
		cost := utf8.RuneCountInString(line) + 1
		if have == 0 {
			cost += utf8.RuneCountInString(title) + 1
		}
		if cost > left {
			return false
		}
		left -= cost
		return true
	}
	takeSaid := func(sts []Statement) {
		for _, st := range sts {
			if len(said) >= maxStatements {
				return
			}
			if take(statementLine(st, day), saidTitle, len(said)) {
				said = append(said, st)
			}
		}
	}
	byPriority := append([]Statement(nil), d.Statements...)
	sort.SliceStable(byPriority, func(i, j int) bool {
		a, b := byPriority[i], byPriority[j]
		if (a.Kind == Correction) != (b.Kind == Correction) {
			return a.Kind == Correction
		}
		return a.seq > b.seq
	})
	corrections := 0
	for corrections < len(byPriority) && byPriority[corrections].Kind == Correction {
		corrections++
	}
	takeSaid(byPriority[:corrections])
	for _, it := range d.Intentions[:min(len(d.Intentions), maxIntentions)] {
		if line := intentionLine(it); take(line, present.CompactionIntentionsTitle, len(intents)) {
			intents = append(intents, line)
		}
	}
	takeSaid(byPriority[corrections:])
	for _, m := range d.Memories[:min(len(d.Memories), MaxMemories)] {
		if line := memoryLine(m); take(line, present.CompactionMemoriesTitle, len(mems)) {
			mems = append(mems, line)
		}
	}
	if len(intents)+len(mems)+len(said) == 0 {
		return "", c
	}
	sort.SliceStable(said, func(i, j int) bool { return said[i].seq < said[j].seq })
	lines := make([]string, len(said))
	for i, st := range said {
		lines[i] = statementLine(st, day)
	}
	text := present.CompactionBlock(
		present.Section{Title: saidTitle, Lines: lines},
		present.Section{Title: present.CompactionIntentionsTitle, Lines: intents},
		present.Section{Title: present.CompactionMemoriesTitle, Lines: mems})
	c = Counts{Intentions: len(intents), Memories: len(mems), Statements: len(said)}
	return text, c
}

// oneDay is the day every statement was said on, when there is one and
// each time is one the log writes: the title then names it once and each
// line gives the time alone. "" otherwise.
func oneDay(sts []Statement) string {
	day := ""
	for _, st := range sts {
		t := dates.ParseTime(st.At)
		if t.IsZero() {
			return ""
		}
		if d := dates.Format(t); day == "" {
			day = d
		} else if d != day {
			return ""
		}
	}
	return day
}

// The block's lines, as package present writes them.
func intentionLine(it Intention) string {
	return present.CompactionIntention(it.ID, it.State, it.Due, it.What)
}

func memoryLine(m Memory) string {
	return present.CompactionMemory(m.Name, m.How, m.Path, m.Description)
}

func statementLine(st Statement, day string) string {
	return present.CompactionStatement(st.At, day, st.Kind.String(), st.Text)
}
