package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/index/rank"
)

// MemoryCode (github for-ai/MemoryCode, "From Tools to Teammates", 2025,
// Apache-2.0; ../shared/bench/memorycode/SOURCE.md): mentor–intern
// dialogues of 1 to 100 sessions in which coding instructions are given
// in passing, some updated later, among unrelated talk; after the last
// session the intern is given coding tasks that each instruction bears on.

// memorycodeMaxDialogues and memorycodeMaxSessions bound the folder and
// one dialogue.
const (
	memorycodeMaxDialogues = 10_000
	memorycodeMaxSessions  = 1_000
)

type memorycodeDialogue struct {
	Context struct {
		Mentor string `json:"mentor"`
		Mentee string `json:"mentee"`
	} `json:"context"`
	// Instructions are per session the [instruction, version] pairs it
	// gives, in the order of its tasks; [-1] when none.
	Instructions []json.RawMessage `json:"instructions"`
	Sessions     []struct {
		Type    []string `json:"type"`
		Queries []string `json:"session_eval_query"` // one per instruction the session gives
		History []string `json:"history_eval_query"` // the tasks after the dialogue, on its last session
		Text    string   `json:"text"`
	} `json:"sessions"`
}

// memorycodeEpoch is the first session's day: the dialogues carry no
// dates, so each session is placed a day after the one before, as a log
// would date them.
var memorycodeEpoch = time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)

// memorycodeTurnPath is a session's turn as a knowledge entry.
func memorycodeTurnPath(dialogue string, session, turn int) string {
	return fmt.Sprintf("memory/knowledge/memorycode-%s-s%d-t%d/SKILL.md", dialogue, session+1, turn)
}

// loadMemoryCode reads the dialogues of dir/dataset with at least
// minSessions sessions, every stride-th of them by number (the set numbers
// them in blocks of one length, so a stride keeps every length). A
// dialogue is one pool: its sessions, a turn a knowledge entry
// (turnEntries), a session a day; its tasks are asked after the last
// session; a task's evidence is the turns of the sessions that gave its
// instruction, the latest version's as gold and the earlier versions'
// as superseded. Halves are per dialogue.
func loadMemoryCode(dir string, minSessions, stride int) (*realSet, error) {
	files, err := filepath.Glob(filepath.Join(dir, "dataset", "dialogue_*.json"))
	if err != nil {
		return nil, fmt.Errorf("memorycode: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("memorycode: no dataset/dialogue_*.json in %s", dir)
	}
	if len(files) > memorycodeMaxDialogues {
		return nil, fmt.Errorf("memorycode: %d dialogues, more than %d", len(files), memorycodeMaxDialogues)
	}
	num := func(f string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "dialogue_"), ".json"))
		return n
	}
	sort.Slice(files, func(i, j int) bool { return num(files[i]) < num(files[j]) })
	which := fmt.Sprintf("the dialogues of ≥ %d sessions", max(1, minSessions))
	if stride > 1 {
		which = fmt.Sprintf("1 in %d of %s", stride, which)
	}
	rs := &realSet{name: "MemoryCode", lang: "en",
		kinds: []string{"once", "updated"},
		about: fmt.Sprintf("%s; pool: the dialogue's sessions, a turn an entry; question: a coding task after the last session; evidence: the turns of the session giving the latest version of its instruction", which)}
	var ds []*memorycodeDialogue
	var ids []string
	for _, f := range files {
		var d memorycodeDialogue
		if err := readBenchJSON(f, &d); err != nil {
			return nil, fmt.Errorf("memorycode: %w", err)
		}
		if len(d.Sessions) >= minSessions {
			ds, ids = append(ds, &d), append(ids, strings.TrimSuffix(filepath.Base(f), ".json"))
		}
	}
	for i := 0; i < len(ds); i += max(1, stride) {
		st, err := memorycodeStream(ids[i], ds[i])
		if err != nil {
			return nil, fmt.Errorf("memorycode %s: %w", ids[i], err)
		}
		rs.streams = append(rs.streams, st)
	}
	return rs, nil
}

// memorycodeStream is one dialogue: every session added, then its tasks.
func memorycodeStream(id string, d *memorycodeDialogue) (*stream, error) {
	n := len(d.Sessions)
	if n == 0 || n > memorycodeMaxSessions || len(d.Instructions) != n {
		return nil, fmt.Errorf("%d sessions (at most %d) and %d instruction lists: want one per session", n, memorycodeMaxSessions, len(d.Instructions))
	}
	var turns []rank.Turn
	first := make([]int, n+1) // each session's first turn in turns
	for s, sess := range d.Sessions {
		first[s] = len(turns)
		when := memorycodeEpoch.AddDate(0, 0, s)
		for t, tx := range memorycodeTurns(sess.Text, d.Context.Mentor, d.Context.Mentee) {
			turns = append(turns, rank.Turn{Path: memorycodeTurnPath(id, s, t+1), Session: strconv.Itoa(s + 1),
				Role: tx.role, Text: tx.text, When: when})
		}
	}
	first[n] = len(turns)
	docs := turnEntries(turns)
	given, bears, err := memorycodeInstructions(d)
	if err != nil {
		return nil, err
	}
	turnsOf := func(ss ...int) []string {
		var out []string
		for _, s := range ss {
			for _, doc := range docs[first[s]:first[s+1]] {
				out = append(out, doc.Path)
			}
		}
		return out
	}
	step := streamStep{now: memorycodeEpoch.AddDate(0, 0, n), add: docs}
	half := halfOfUnit("memorycode/" + id)
	for _, task := range d.Sessions[n-1].History {
		if len(bears[task]) == 0 {
			return nil, fmt.Errorf("task %q: no session gives its instruction", task)
		}
		q := evalQuery{Tier: "once", Q: task, Half: half}
		for _, in := range bears[task] {
			ss := given[in]
			q.Gold = append(q.Gold, turnsOf(ss[len(ss)-1])...)
			q.Superseded = append(q.Superseded, turnsOf(ss[:len(ss)-1]...)...)
		}
		if len(q.Superseded) > 0 {
			q.Tier = "updated"
		}
		step.qs = append(step.qs, q)
	}
	return &stream{id: id, steps: []streamStep{step}}, nil
}

// memorycodeInstructions reads which sessions give each instruction (in
// session order, so the last gives its latest version) and which
// instructions each task bears on: a session's tasks pair with its
// [instruction, version] pairs in order, and a task can bear on two.
func memorycodeInstructions(d *memorycodeDialogue) (given map[int][]int, bears map[string][]int, err error) {
	given, bears = map[int][]int{}, map[string][]int{}
	for s, raw := range d.Instructions {
		var pairs [][2]int
		if json.Unmarshal(raw, &pairs) != nil {
			var none []int
			if json.Unmarshal(raw, &none) != nil || len(none) != 1 || none[0] != -1 {
				return nil, nil, fmt.Errorf("session %d: instructions %s: want [[id, version], …] or [-1]", s+1, raw)
			}
			continue
		}
		qs := d.Sessions[s].Queries
		if len(qs) != len(pairs) {
			return nil, nil, fmt.Errorf("session %d: %d instructions, %d tasks", s+1, len(pairs), len(qs))
		}
		for i, p := range pairs {
			given[p[0]] = append(given[p[0]], s)
			if !slices.Contains(bears[qs[i]], p[0]) {
				bears[qs[i]] = append(bears[qs[i]], p[0])
			}
		}
	}
	return given, bears, nil
}

type memorycodeTurn struct{ role, text string }

// memorycodeTurns splits a session's text into turns: paragraphs that
// begin "<mentor>:" are the user's (the one giving instructions), those
// that begin "<mentee>:" the agent's, any other paragraph continues the
// turn before it. The speaker's name goes, as a session log records a
// role, not a name.
func memorycodeTurns(text, mentor, mentee string) []memorycodeTurn {
	var out []memorycodeTurn
	for _, p := range strings.Split(text, "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		role := ""
		for _, sp := range []struct{ name, role string }{{mentor, "user"}, {mentee, "agent"}} {
			if rest, ok := strings.CutPrefix(p, sp.name+":"); ok && sp.name != "" {
				role, p = sp.role, strings.TrimSpace(rest)
				break
			}
		}
		if role == "" && len(out) > 0 {
			out[len(out)-1].text += "\n\n" + p
			continue
		}
		if role == "" {
			role = "user"
		}
		out = append(out, memorycodeTurn{role, p})
	}
	return out
}
