package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/index/rank"
)

// LifeBench (github 1754955896/LifeBench, Apache-2.0; the Chinese side,
// ../shared/bench/lifebench-zh/SOURCE.md): per user a year of phone data
// (messages, calls, calendar, notes, photos, pushes, chats with an
// assistant, contacts, daily health) and about 200 questions, each with
// the month it is asked in and the records that answer it.

// lifebenchMaxRecords bounds one user's file of one record type (the
// largest shipped holds about 3,000) and their questions;
// lifebenchMaxUsers the folder.
const (
	lifebenchMaxRecords = 50_000
	lifebenchMaxUsers   = 1000
)

// lifebenchTypes are the phone data files read, one record type each.
var lifebenchTypes = []string{"sms", "call", "calendar", "note", "photo", "push", "agent_chat", "contact", "fitness_health"}

// lifebenchKinds names the question types as the tables print them;
// Unanswerable questions have no evidence and are left out.
var lifebenchKinds = map[string]string{
	"Information Extraction":          "extraction",
	"Multi-hop reasoning":             "multi-hop",
	"Temporal and Knowledge Updating": "temporal/updating",
	"Nondeclarative":                  "nondeclarative",
}

type lifebenchQuestion struct {
	Question string `json:"question"`
	Evidence []struct {
		Type string          `json:"type"`
		ID   json.RawMessage `json:"id"` // a number or a string
	} `json:"evidence"`
	AskTime string `json:"ask_time"` // "2025-06", once "2025-08-31"
	Type    string `json:"question_type"`
}

// lifebenchRecord is one phone record as an entry, with the key its
// evidence is named by.
type lifebenchRecord struct {
	key string // "<type>/<phone_id>"
	doc rank.Doc
}

// loadLifeBench reads the first users (by folder name; 0 = all) of dir.
// Every record is one entry (an episode on its date; a contact, undated,
// is knowledge), its text every text value it holds; a question is asked
// at the end of its month, of the records up to then, as the set defines
// the pool; its evidence is the records it names that are in that pool,
// and a question with none is left out. Halves are per question.
func loadLifeBench(dir string, users int) (*realSet, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("lifebench: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 || len(names) > lifebenchMaxUsers {
		return nil, fmt.Errorf("lifebench: %d user folders in %s, want 1 to %d", len(names), dir, lifebenchMaxUsers)
	}
	if users > 0 && len(names) > users {
		names = names[:users]
	}
	rs := &realSet{name: "LifeBench", lang: "zh",
		kinds: []string{"extraction", "multi-hop", "temporal/updating", "nondeclarative"},
		about: "pool: the user's phone records up to the end of the month the question is asked in, each an entry on its date; question: the question; evidence: the records it names"}
	dropped := 0
	for _, user := range names {
		st, d, err := lifebenchStream(filepath.Join(dir, user), user)
		if err != nil {
			return nil, fmt.Errorf("lifebench %s: %w", user, err)
		}
		rs.streams = append(rs.streams, st)
		dropped += d
	}
	if dropped > 0 {
		rs.skipped = fmt.Sprintf("%d questions with no evidence record dated by the end of their month (unanswerable ones, unresolved ids)", dropped)
	}
	return rs, nil
}

// lifebenchStream is one user's records, added month by month before the
// questions asked in it.
func lifebenchStream(dir, user string) (*stream, int, error) {
	recs, err := lifebenchRecords(filepath.Join(dir, "phone_data"), user)
	if err != nil {
		return nil, 0, err
	}
	var qa []lifebenchQuestion
	if err := readBenchJSON(filepath.Join(dir, "QA", "QA_clean.json"), &qa); err != nil {
		return nil, 0, err
	}
	if len(qa) > lifebenchMaxRecords {
		return nil, 0, fmt.Errorf("%d questions, more than %d", len(qa), lifebenchMaxRecords)
	}
	byKey := map[string][]rank.Doc{}
	for _, r := range recs {
		byKey[r.key] = append(byKey[r.key], r.doc)
	}
	// undated records (contacts) first, then by date: a step adds a prefix
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].doc.When.Before(recs[j].doc.When) })
	steps := map[time.Time]*streamStep{}
	dropped := 0
	for _, q := range qa {
		now, err := lifebenchAsked(q.AskTime)
		if err != nil {
			return nil, 0, fmt.Errorf("question %q: %w", cut(q.Question, 30), err)
		}
		kind, ok := lifebenchKinds[q.Type]
		var gold []string
		for _, e := range q.Evidence {
			for _, d := range byKey[e.Type+"/"+jsonID(e.ID)] {
				if !d.When.After(now) {
					gold = append(gold, d.Path)
				}
			}
		}
		if !ok || len(gold) == 0 {
			dropped++
			continue
		}
		s := steps[now]
		if s == nil {
			s = &streamStep{now: now}
			steps[now] = s
		}
		s.qs = append(s.qs, evalQuery{Tier: kind, Q: q.Question, Gold: gold,
			Half: halfOfUnit("lifebench/" + user + "/" + q.Question)})
	}
	st := &stream{id: user}
	for _, s := range steps {
		st.steps = append(st.steps, *s)
	}
	sort.Slice(st.steps, func(i, j int) bool { return st.steps[i].now.Before(st.steps[j].now) })
	next := 0
	for i := range st.steps {
		from := next
		for next < len(recs) && !recs[next].doc.When.After(st.steps[i].now) {
			next++
		}
		for _, r := range recs[from:next] {
			st.steps[i].add = append(st.steps[i].add, r.doc)
		}
	}
	return st, dropped, nil
}

// lifebenchAsked is the moment a question is asked: the last second of
// its month ("2025-06") or of its day ("2025-08-31").
func lifebenchAsked(ask string) (time.Time, error) {
	if t, err := time.ParseInLocation(dates.Layout, ask, time.UTC); err == nil {
		return t.AddDate(0, 0, 1).Add(-time.Second), nil
	}
	t, err := time.ParseInLocation("2006-01", ask, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("ask_time %q: want YYYY-MM or YYYY-MM-DD", ask)
	}
	return t.AddDate(0, 1, 0).Add(-time.Second), nil
}

// jsonID is an evidence id or a phone_id as text, whether written as a
// number or a string.
func jsonID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// lifebenchRecords reads every record type's file of one user.
func lifebenchRecords(dir, user string) ([]lifebenchRecord, error) {
	var out []lifebenchRecord
	for _, typ := range lifebenchTypes {
		var raws []json.RawMessage
		err := readBenchJSON(filepath.Join(dir, typ+".json"), &raws)
		if errors.Is(err, os.ErrNotExist) {
			continue // a user without, say, health data
		}
		if err != nil {
			return nil, err
		}
		if len(raws) > lifebenchMaxRecords {
			return nil, fmt.Errorf("%s: %d records, more than %d", typ, len(raws), lifebenchMaxRecords)
		}
		seen := map[string]int{}
		for i, raw := range raws {
			r, err := lifebenchRecordOf(typ, user, raw, seen)
			if err != nil {
				return nil, fmt.Errorf("%s record %d: %w", typ, i, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// lifebenchDated are the fields a record's date is read from, first found wins.
var lifebenchDated = []string{"datetime", "date", "日期"}

// lifebenchRecordOf makes one record an entry: its date from the first
// dated field, its summary (summarized_info) as the description, every
// other text value as the body (lifebenchText). seen counts the records
// of this type per phone_id, since a few ids repeat: both records are
// evidence where the id is named.
func lifebenchRecordOf(typ, user string, raw json.RawMessage, seen map[string]int) (lifebenchRecord, error) {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(raw, &head); err != nil {
		return lifebenchRecord{}, err
	}
	id := jsonID(head["phone_id"])
	if id == "" {
		return lifebenchRecord{}, errors.New("no phone_id")
	}
	var when time.Time
	for _, f := range lifebenchDated {
		var s string
		if json.Unmarshal(head[f], &s) != nil || s == "" {
			continue
		}
		t, err := time.ParseInLocation("2006-01-02 15:04:05", s, time.UTC)
		if err != nil {
			if t, err = time.ParseInLocation(dates.Layout, s, time.UTC); err != nil {
				return lifebenchRecord{}, fmt.Errorf("%s %q: want YYYY-MM-DD[ hh:mm:ss]", f, s)
			}
		}
		when = t
		break
	}
	var summary string
	_ = json.Unmarshal(head["summarized_info"], &summary) // absent on most types
	body, err := lifebenchText(raw)
	if err != nil {
		return lifebenchRecord{}, err
	}
	seen[id]++
	name := fmt.Sprintf("lifebench-%s-%s-%s", user, typ, id)
	if seen[id] > 1 {
		name += fmt.Sprintf("-%d", seen[id])
	}
	d := rank.Doc{Path: "memory/episodes/" + name + "/SKILL.md", Kind: rank.KindEpisode, Type: typ,
		Name: name, Description: summary, Body: body, When: when, Score: 0.5}
	if when.IsZero() {
		d.Path, d.Kind = "memory/knowledge/"+name+"/SKILL.md", rank.KindKnowledge
	}
	return lifebenchRecord{key: typ + "/" + id, doc: d}, nil
}

// lifebenchSkip are the fields that are not the record's text: ids,
// times (the entry's date instead), the photo's pixel size, the
// generator's labels of chat turns ("topic query"), and the summary (the
// description instead). Phone numbers and addresses stay: a question may
// ask for them.
var lifebenchSkip = map[string]bool{
	"phone_id": true, "event_id": true, "type": true, "datetime": true, "datetime_end": true, "date": true,
	"start_time": true, "end_time": true, "日期": true, "image_size": true, "action": true, "summarized_info": true,
}

// lifebenchText is a record's text: its string values in the order
// written, skipping lifebenchSkip's fields, "无" (none) and camera file
// names; a value under a Chinese field name (the health records') is
// written "name：value", since the name is words of the record's language
// and the value alone ("12500步") would lose what it measures.
func lifebenchText(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var parts []string
	var walk func(key string) error
	walk = func(key string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				for dec.More() {
					kt, err := dec.Token()
					if err != nil {
						return err
					}
					k, _ := kt.(string)
					if lifebenchSkip[k] {
						var skip json.RawMessage
						if err := dec.Decode(&skip); err != nil {
							return err
						}
						continue
					}
					if err := walk(k); err != nil {
						return err
					}
				}
			case '[':
				for dec.More() {
					if err := walk(key); err != nil {
						return err
					}
				}
			}
			_, err := dec.Token() // the closing delimiter
			return err
		case string:
			s := strings.TrimSpace(v)
			if s == "" || s == "无" || strings.HasPrefix(s, "IMG_") {
				return nil
			}
			if key != "" && !isASCII(key) {
				s = key + "：" + s
			}
			parts = append(parts, s)
		}
		return nil
	}
	if err := walk(""); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.Join(parts, "\n"), nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
