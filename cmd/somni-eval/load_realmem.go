package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/index/rank"
)

// RealMem (Bian et al. 2026, github zhiyuan5986/RealMemBench, Apache-2.0;
// ../shared/bench/realmem/SOURCE.md): per persona about 200 dated
// sessions between a user and an assistant about long-running projects.
// A user turn marked is_query needs earlier sessions; the assistant turn
// after it names the sessions whose memories it used.

// realmemMaxPersonas bounds the folder; realmemMaxSessions and
// realmemMaxTurns one persona's file.
const (
	realmemMaxPersonas = 1000
	realmemMaxSessions = 2000
	realmemMaxTurns    = 500 // a session's turns
)

type realmemFile struct {
	Meta struct {
		Person string `json:"person_name"`
	} `json:"_metadata"`
	Sessions []realmemSession `json:"dialogues"`
}

type realmemSession struct {
	UUID     string          `json:"session_uuid"`
	Time     string          `json:"current_time"` // "2025-12-15 (Monday)"
	Turns    []realmemTurn   `json:"dialogue_turns"`
	Memories []realmemMemory `json:"extracted_memory"`
}

// realmemMemory is a memory extracted from one turn of its session:
// source_turn counts from 1 in most files and from 0 in some, so the
// snapshot of the turn's text is what names it.
type realmemMemory struct {
	Content    string `json:"content"`
	SourceTurn int    `json:"source_turn"`
	Snapshot   string `json:"source_content_snapshot"`
	Role       string `json:"source_role_snapshot"`
}

type realmemTurn struct {
	Speaker  string `json:"speaker"` // User | Assistant
	IsQuery  bool   `json:"is_query"`
	Content  string `json:"content"`
	Category string `json:"category_name"`
	Used     []struct {
		Session string `json:"session_uuid"`
		Content string `json:"content"`
	} `json:"memory_used"` // the memories that answer used, as extracted
}

// realmemKinds names RealMem's query categories as the tables print them.
var realmemKinds = map[string]string{
	"Dynamic Incremental": "incremental",
	"Dynamic Updating":    "updating",
	"Implicit Preference": "preference",
	"Temporal-reasoning":  "temporal",
}

// realmemTurnPath is where a persona's turn lives as a knowledge entry:
// the path recall reports for it.
func realmemTurnPath(persona, session string, n int) string {
	return fmt.Sprintf("memory/knowledge/realmem-%s-%s-t%d/SKILL.md", persona, session, n)
}

// loadRealMem reads the first personas (by file name) of dir and, for
// each, its first querySessions sessions that ask something (0 = all).
// A pool is the persona's sessions before the asking session, as the set
// defines it, every turn one knowledge entry (turnEntries);
// the question is the query turn, asked on its session's day; its
// evidence is the turns the memories its answer used were extracted
// from (the set's finest evidence; a whole session as gold would make
// most of an early pool right). The half is the asking session's: its
// questions continue one thread.
func loadRealMem(dir string, personas, querySessions int) (*realSet, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_dialogues_256k.json"))
	if err != nil {
		return nil, fmt.Errorf("realmem: %w", err)
	}
	sort.Strings(files)
	if len(files) == 0 || len(files) > realmemMaxPersonas {
		return nil, fmt.Errorf("realmem: %d *_dialogues_256k.json files in %s, want 1 to %d", len(files), dir, realmemMaxPersonas)
	}
	if personas > 0 && len(files) > personas {
		files = files[:personas]
	}
	rs := &realSet{name: "RealMem", lang: "en",
		kinds: []string{"incremental", "updating", "preference", "temporal"},
		about: "pool: the persona's earlier sessions, a turn an entry; question: the query turn, on its session's day; evidence: the turns its answer's memories were taken from"}
	dropped := 0
	for _, file := range files {
		var f realmemFile
		if err := readBenchJSON(file, &f); err != nil {
			return nil, fmt.Errorf("realmem: %w", err)
		}
		persona := strings.TrimSuffix(filepath.Base(file), "_dialogues_256k.json")
		st, d, err := realmemStream(persona, f.Sessions, querySessions)
		if err != nil {
			return nil, fmt.Errorf("realmem %s: %w", persona, err)
		}
		rs.streams = append(rs.streams, st)
		dropped += d
	}
	if dropped > 0 {
		rs.skipped = fmt.Sprintf("%d questions whose evidence is not a turn of an earlier session", dropped)
	}
	return rs, nil
}

// realmemStream is one persona's log in file order (the order the
// sessions were written in; a few personas' dates go backwards), a step
// before each asking session. It returns how many questions were left
// out for lack of evidence in the pool.
func realmemStream(persona string, sessions []realmemSession, querySessions int) (*stream, int, error) {
	if len(sessions) > realmemMaxSessions {
		return nil, 0, fmt.Errorf("%d sessions, more than %d", len(sessions), realmemMaxSessions)
	}
	var turns []rank.Turn
	days := make([]time.Time, len(sessions))
	first := make([]int, len(sessions)+1) // index of each session's first turn in turns
	seen := map[string]int{}              // session uuid → position
	for i, s := range sessions {
		if len(s.Turns) > realmemMaxTurns {
			return nil, 0, fmt.Errorf("session %s: %d turns, more than %d", s.UUID, len(s.Turns), realmemMaxTurns)
		}
		if _, dup := seen[s.UUID]; dup || s.UUID == "" {
			return nil, 0, fmt.Errorf("session %d: missing or repeated uuid %q", i, s.UUID)
		}
		seen[s.UUID] = i
		day, err := time.ParseInLocation(dates.Layout, strings.TrimSpace(prefix(s.Time, 10)), time.UTC)
		if err != nil {
			return nil, 0, fmt.Errorf("session %s: current_time %q: %w", s.UUID, s.Time, err)
		}
		days[i] = day
		first[i] = len(turns)
		for n, t := range s.Turns {
			role := "user"
			if t.Speaker == "Assistant" {
				role = "agent"
			}
			turns = append(turns, rank.Turn{Path: realmemTurnPath(persona, s.UUID, n+1), Session: s.UUID,
				Role: role, Text: t.Content, When: day})
		}
	}
	first[len(sessions)] = len(turns)
	docs := turnEntries(turns)
	st := &stream{id: persona}
	added, asked, dropped := 0, 0, 0
	for i, s := range sessions {
		qs, d, err := realmemQuestions(persona, sessions, i, seen, docs, first)
		if err != nil {
			return nil, 0, fmt.Errorf("session %s: %w", s.UUID, err)
		}
		dropped += d
		if len(qs) > 0 || d > 0 {
			asked++
		}
		if len(qs) > 0 {
			// asked at noon of the session's day, after its earlier sessions
			st.steps = append(st.steps, streamStep{now: days[i].Add(12 * time.Hour), add: docs[added:first[i]], qs: qs})
			added = first[i]
		}
		if querySessions > 0 && asked == querySessions {
			break
		}
	}
	return st, dropped, nil
}

// realmemQuestions are session i's query turns, each with the turns its
// answer's memories came from as gold; a question none of whose memories
// resolves to a turn of an earlier session is left out and counted.
func realmemQuestions(persona string, sessions []realmemSession, i int, seen map[string]int, docs []rank.Doc, first []int) ([]evalQuery, int, error) {
	s := sessions[i]
	var qs []evalQuery
	dropped := 0
	for n, t := range s.Turns {
		if !t.IsQuery || t.Speaker != "User" {
			continue
		}
		if n+1 >= len(s.Turns) {
			return nil, 0, fmt.Errorf("query turn %d has no answer after it", n+1)
		}
		kind, ok := realmemKinds[t.Category]
		if !ok {
			return nil, 0, fmt.Errorf("query turn %d: unknown category %q", n+1, t.Category)
		}
		var gold []string
		for _, m := range s.Turns[n+1].Used {
			j, ok := seen[m.Session]
			if !ok || j >= i {
				continue // not in the pool: no earlier session holds it
			}
			if t := realmemSourceTurn(sessions[j], m.Content); t >= 0 && !slices.Contains(gold, docs[first[j]+t].Path) {
				gold = append(gold, docs[first[j]+t].Path)
			}
		}
		if len(gold) == 0 {
			dropped++
			continue
		}
		qs = append(qs, evalQuery{Tier: kind, Q: t.Content, Gold: gold,
			Half: halfOfUnit("realmem/" + persona + "/" + s.UUID)})
	}
	return qs, dropped, nil
}

// realmemSourceTurn is the 0-based turn of s that the memory with this
// content was extracted from, -1 when none is.
func realmemSourceTurn(s realmemSession, content string) int {
	for _, m := range s.Memories {
		if m.Content != content {
			continue
		}
		snap := prefix(strings.TrimSpace(m.Snapshot), 200)
		for t, turn := range s.Turns {
			if snap != "" && strings.HasPrefix(strings.TrimSpace(turn.Content), snap) {
				return t
			}
		}
		// the turn was rewritten after the memory was taken from it: its
		// number then counts from 1, and its speaker is the snapshot's
		if t := m.SourceTurn - 1; t >= 0 && t < len(s.Turns) && s.Turns[t].Speaker == m.Role {
			return t
		}
	}
	return -1
}

// prefix is s's first n bytes.
func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
