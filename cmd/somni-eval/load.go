package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/index/rank"
)

// evalSets are the notes set's three parts, halves assigned.
type evalSets struct {
	notes []rank.Doc  // curated notes
	nq    []evalQuery // their queries
	turns []rank.Doc  // short conversations, one entry per turn
	cq    []evalQuery // questions about the conversations
	tq    []evalQuery // tool calls against the notes
}

// loadSets reads notes.json, conversation.txt and tool-calls.json from dir
// and splits each into its halves.
func loadSets(dir, turnContext string) (*evalSets, error) {
	var s evalSets
	var err error
	if s.notes, s.nq, err = loadNotes(dir); err != nil {
		return nil, err
	}
	if s.turns, s.cq, err = loadConversation(dir, turnContext); err != nil {
		return nil, err
	}
	if s.tq, err = loadToolCalls(dir); err != nil {
		return nil, err
	}
	assignHalves(s.nq)
	assignHalves(s.cq)
	assignHalves(s.tq)
	return &s, nil
}

// keep drops the queries of the other half (-half).
func (s *evalSets) keep(half string) {
	s.nq, s.cq, s.tq = keepHalf(s.nq, half), keepHalf(s.cq, half), keepHalf(s.tq, half)
}

// noteFolders is where the store keeps a note of each kind, relative to the
// data dir: the eval's paths must be the paths recall reports.
var noteFolders = map[string]string{"knowledge": "memory/knowledge/", "episode": "memory/episodes/", "skill": "skills/agent_learned_skills/"}

type noteSet struct {
	Notes []struct {
		ID             string   `json:"id"`
		Kind           string   `json:"kind"`
		Type           string   `json:"type"`
		Name           string   `json:"name"`
		Description    string   `json:"description"`
		Body           string   `json:"body"`
		Related        []string `json:"related"`
		Tags           []string `json:"tags"`
		When           string   `json:"when"`
		AppliesWhen    string   `json:"applies_when"`
		NotAppliesWhen string   `json:"not_applies_when"`
	} `json:"notes"`
	Queries []evalQuery `json:"queries"`
}

type evalQuery struct {
	Tier string   `json:"tier"`
	Q    string   `json:"q"`
	Gold []string `json:"gold"` // doc paths after loading
	Half string   `json:"-"`    // halfTune or halfHeld (assignHalves)
	// Source is the text the half is hashed from when Q was converted
	// (a Traditional copy keeps its Simplified question's half)
	Source string `json:"-"`
	// Tool and Args make the query a tool call (tool-calls.json): hints go
	// through assoc.Gate.Action and Q is its cue (assoc.ActionCue).
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
	// Superseded are entries holding an earlier version of what the
	// latest gold entries state (MemoryCode's updated instructions): the
	// latest should rank above them.
	Superseded []string `json:"-"`
}

// halfKey is the text a query's half is hashed from: the query, or for a
// tool call the tool name and its arguments re-encoded with sorted keys,
// so the half does not depend on how the cue is derived.
func (q evalQuery) halfKey() string {
	if q.Source != "" {
		return q.Source
	}
	if q.Tool == "" {
		return q.Q
	}
	var m map[string]any
	if json.Unmarshal(q.Args, &m) == nil {
		if b, err := json.Marshal(m); err == nil {
			return q.Tool + " " + string(b)
		}
	}
	return q.Tool + " " + string(q.Args)
}

// loadNotes reads the curated notes set; gold ids become doc paths.
func loadNotes(dir string) ([]rank.Doc, []evalQuery, error) {
	b, err := os.ReadFile(filepath.Join(dir, "notes.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("read notes: %w", err)
	}
	var ns noteSet
	if err := json.Unmarshal(b, &ns); err != nil {
		return nil, nil, fmt.Errorf("parse notes.json: %w", err)
	}
	paths := map[string]string{}
	var docs []rank.Doc
	for _, n := range ns.Notes {
		sub := noteFolders[n.Kind]
		if sub == "" {
			return nil, nil, fmt.Errorf("note %s: unknown kind %q", n.ID, n.Kind)
		}
		d := rank.Doc{Path: sub + n.Name + "/SKILL.md", Kind: n.Kind, Name: n.Name, Description: n.Description,
			Body: n.Body, Type: n.Type, Score: 0.5, Related: n.Related, Tags: n.Tags,
			AppliesWhen: n.AppliesWhen, NotAppliesWhen: n.NotAppliesWhen}
		if n.When != "" {
			if d.When, err = time.Parse(time.RFC3339, n.When); err != nil {
				return nil, nil, fmt.Errorf("note %s: when: %w", n.ID, err)
			}
		}
		if _, dup := paths[n.ID]; dup {
			return nil, nil, fmt.Errorf("duplicate note id %s", n.ID)
		}
		paths[n.ID] = d.Path
		docs = append(docs, d)
	}
	for i, q := range ns.Queries {
		for j, g := range q.Gold {
			p, ok := paths[g]
			if !ok {
				return nil, nil, fmt.Errorf("query %q: unknown gold id %s", q.Q, g)
			}
			ns.Queries[i].Gold[j] = p
		}
	}
	return docs, ns.Queries, nil
}

// loadToolCalls reads tool-calls.json: tool calls of tier "touch" (their
// arguments name a host, port, file or identifier of the gold notes) and
// "ordinary" (everyday coding calls that touch nothing remembered). Gold
// ids are notes.json ids, mapped to paths like the notes queries'.
func loadToolCalls(dir string) ([]evalQuery, error) {
	b, err := os.ReadFile(filepath.Join(dir, "tool-calls.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read tool calls: %w", err)
	}
	var set struct {
		Calls []evalQuery `json:"calls"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("parse tool-calls.json: %w", err)
	}
	paths, err := noteIDs(dir)
	if err != nil {
		return nil, err
	}
	for i, c := range set.Calls {
		if c.Tool == "" || (c.Tier != "touch" && c.Tier != "ordinary") {
			return nil, fmt.Errorf("tool call %d: want a tool and tier touch or ordinary", i)
		}
		if (c.Tier == "touch") != (len(c.Gold) > 0) {
			return nil, fmt.Errorf("tool call %d (%s): touching calls and only they have gold", i, c.Tool)
		}
		for j, g := range c.Gold {
			p, ok := paths[g]
			if !ok {
				return nil, fmt.Errorf("tool call %d: unknown gold id %s", i, g)
			}
			set.Calls[i].Gold[j] = p
		}
		set.Calls[i].Q = assoc.ActionCue(c.Tool, c.Args)
	}
	return set.Calls, nil
}

// noteIDs maps notes.json ids to the doc paths loadNotes gives them.
func noteIDs(dir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "notes.json"))
	if err != nil {
		return nil, fmt.Errorf("read notes: %w", err)
	}
	var ns noteSet
	if err := json.Unmarshal(b, &ns); err != nil {
		return nil, fmt.Errorf("parse notes.json: %w", err)
	}
	out := map[string]string{}
	for _, n := range ns.Notes {
		out[n.ID] = noteFolders[n.Kind] + n.Name + "/SKILL.md"
	}
	return out, nil
}

var turnLine = regexp.MustCompile(`^([UA]): (.+)$`)

// loadConversation reads conversation.txt: each U:/A: line is one entry,
// each Q: line a question with the 1-based turn numbers that answer it.
// turnContext "none" strips rank.TurnDocs' context (-turn-context).
func loadConversation(dir, turnContext string) ([]rank.Doc, []evalQuery, error) {
	f, err := os.Open(filepath.Join(dir, "conversation.txt"))
	if err != nil {
		return nil, nil, fmt.Errorf("read conversation: %w", err)
	}
	defer f.Close()
	var turns []rank.Turn
	var qs []evalQuery
	session, turn := "", 0
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "# "):
		case strings.HasPrefix(line, "## "):
			session, turn = strings.TrimSpace(line[3:]), 0
		case strings.HasPrefix(line, "Q: "):
			q, refs, ok := strings.Cut(line[3:], "=>")
			if !ok || session == "" {
				return nil, nil, fmt.Errorf("conversation.txt:%d: want 'Q: question => n,m'", ln)
			}
			eq := evalQuery{Tier: "conversation", Q: strings.TrimSpace(q)}
			for _, r := range strings.Split(refs, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(r))
				if err != nil || n < 1 || n > turn {
					return nil, nil, fmt.Errorf("conversation.txt:%d: bad turn %q", ln, r)
				}
				eq.Gold = append(eq.Gold, fmt.Sprintf("session-log/%s#%d", session, n))
			}
			qs = append(qs, eq)
		default:
			m := turnLine.FindStringSubmatch(line)
			if m == nil || session == "" {
				return nil, nil, fmt.Errorf("conversation.txt:%d: unexpected line", ln)
			}
			turn++
			turns = append(turns, rank.Turn{Path: fmt.Sprintf("session-log/%s#%d", session, turn),
				Session: session, Role: map[string]string{"U": "user", "A": "agent"}[m[1]], Text: m[2]})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("read conversation: %w", err)
	}
	// the same representation search_recent_conversation ranks
	docs := rank.TurnDocs(turns)
	if turnContext == "none" {
		for i := range docs {
			docs[i].Context = ""
		}
	}
	return docs, qs, nil
}

// Query halves: scorer changes are tuned on halfTune only; halfHeld is
// reported to show whether a change generalises.
const (
	halfTune = "tune"
	halfHeld = "held-out"
)

// assignHalves splits the queries deterministically into two halves by an
// FNV-1a hash of the query text (not file order, which follows the
// conversations): an even hash tunes, an odd one is held out. The parity
// rule keeps every query in its half when queries are added to a set.
func assignHalves(qs []evalQuery) {
	for i := range qs {
		qs[i].Half = halfHeld
		if fnv32(qs[i].halfKey())%2 == 0 {
			qs[i].Half = halfTune
		}
	}
}

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// keepHalf drops the queries of the other half (-half).
func keepHalf(qs []evalQuery, half string) []evalQuery {
	var out []evalQuery
	for _, q := range qs {
		if q.Half == half {
			out = append(out, q)
		}
	}
	return out
}

func countCalls(qs []evalQuery, half string) int {
	n := 0
	for _, q := range qs {
		if q.Half == half {
			n++
		}
	}
	return n
}

func countHalf(qs []evalQuery, half string) int {
	n := 0
	for _, q := range qs {
		if q.Half == half && q.Tier != "absent" {
			n++
		}
	}
	return n
}
