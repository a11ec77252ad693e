package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/dream"
	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/frontmatter"
)

// visibleWithin is how long the test waits for a memory written by one
// process (its dream, or a person's hand edit) to show in the other
// process's recall before calling it lost. It is a liveness bound, not a
// latency target: the watcher reports a change in milliseconds (inotify)
// and the next search syncs it (measured p50 here well under a second,
// logged at the end), but a machine at load 20 stretches every step, and a
// memory that never shows is what the test exists to catch.
const visibleWithin = 30 * time.Second

// tryCall is proc.call for worker goroutines: it returns an error instead
// of failing the test from outside the test goroutine.
func (s *proc) tryCall(method string, params, out any) error {
	_, ch := s.send(method, params)
	select {
	case w := <-ch:
		if w.Error != nil {
			return fmt.Errorf("%s: error %d %s", method, w.Error.Code, w.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(w.Result, out); err != nil {
				return fmt.Errorf("%s: decode %s: %w", method, w.Result, err)
			}
		}
		return nil
	case <-s.exited:
		return fmt.Errorf("%s: sidecar exited (%v)", method, s.exitErr)
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: no reply in 60 s", method)
	}
}

func (s *proc) tryTool(name string, args any) (string, error) {
	var res struct {
		Result string `json:"result"`
	}
	err := s.tryCall("tools.call", map[string]any{"name": name, "args": args}, &res)
	return res.Result, err
}

// twoProcDreamer is the scripted model both sidecars dream with. Its first
// turn of a dream archives every listed log, creates one knowledge entry,
// rewrites the profile, decays and writes a diary; the second ends the
// dream. It counts dreams in progress across both processes: the dream lock
// must keep that at one.
type twoProcDreamer struct {
	active   atomic.Int32 // dreams between their first and last turn, both processes
	overlaps atomic.Int32 // first turns that found another dream active
	// hold keeps a dream's first turn busy, so the other process's
	// sleep.run lands inside it.
	hold time.Duration

	mu      sync.Mutex
	created map[string]string // knowledge name → process that dreamt it
	n       int
}

func (d *twoProcDreamer) serve(who string) func(w wire) (any, *wireErr) {
	return func(w wire) (any, *wireErr) {
		if w.Method != "llm.chat" {
			return nil, &wireErr{Code: -32601, Message: "method not found: " + w.Method}
		}
		var p struct {
			Messages []dream.Message `json:"messages"`
		}
		if err := json.Unmarshal(w.Params, &p); err != nil {
			return nil, &wireErr{Code: -32602, Message: err.Error()}
		}
		first := true
		for _, m := range p.Messages {
			if m.Role == "tool" {
				first = false
			}
		}
		if !first {
			d.active.Add(-1)
			return map[string]any{"message": dream.Message{Role: "assistant", Content: "consolidated"}, "usage": map[string]int{}}, nil
		}
		if d.active.Add(1) > 1 {
			d.overlaps.Add(1)
		}
		time.Sleep(d.hold)
		d.mu.Lock()
		d.n++
		name := fmt.Sprintf("dream-%s-%d", who, d.n)
		d.created[name] = who
		d.mu.Unlock()
		var calls []dream.ToolCall
		call := func(tool string, args any) {
			b, _ := json.Marshal(args)
			calls = append(calls, dream.ToolCall{ID: fmt.Sprintf("c%d", len(calls)), Type: "function",
				Function: dream.FunctionCall{Name: tool, Arguments: string(b)}})
		}
		for _, l := range dreamtest.LogPaths(p.Messages) {
			call("mark_log_processed", map[string]any{"path": l})
		}
		call("create_knowledge", map[string]any{"name": name, "entry_type": "fact",
			"description": "token " + strings.ReplaceAll(name, "-", "") + " learnt in a dream by " + who,
			"body":        "Dreamt by " + who + ".\n"})
		call("update_about_user", map[string]any{"content": "Profile as of " + name + "."})
		call("decay_all_knowledge", map[string]any{})
		call("write_dream_log", map[string]any{"content": "---\ndream_id: " + name + "\ntrigger: twoproc\n---\n\n## Created\n- " + name + "\n"})
		return map[string]any{"message": dream.Message{Role: "assistant", ToolCalls: calls}, "usage": map[string]int{}}, nil
	}
}

// twoProcSeconds is how long TestTwoSidecarsOneDataDir runs:
// SOMNI_TWOPROC_SECONDS, default 60.
func twoProcSeconds(t *testing.T) time.Duration {
	if v := os.Getenv("SOMNI_TWOPROC_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("SOMNI_TWOPROC_SECONDS=%q is not a positive number", v)
		}
		return time.Duration(n) * time.Second
	}
	return 60 * time.Second
}

var intentionIDRe = regexp.MustCompile(`pi-\d{8}-\d{3,}`)

// sideStats is what one process's workers did and were told.
type sideStats struct {
	ops, adds, completes, appends, closes, recalls int
	dreams, skippedOther, skippedSame, noLogs      int
	open, completed                                map[string]bool
	messages                                       []string // unique token of every message appended
	seenLatency                                    []time.Duration
}

// TestTwoSidecarsOneDataDir runs two sidecar processes on one data dir for
// a minute: both add and complete intentions, write and close sessions,
// recall, and try to dream every few hundred milliseconds with the same
// scripted model. Afterwards: no id was given out twice, every id either
// side was given is on disk in the state it was last told, no intention is
// on disk that neither side added, every message is in exactly one log,
// every .md parses and doctor is clean, dreams never overlapped and the
// side that lost the race was told another process is dreaming, and what
// one side dreamt (or a person wrote by hand) reached the other side's
// recall within visibleWithin.
func TestTwoSidecarsOneDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of two processes")
	}
	run := twoProcSeconds(t)
	dir := t.TempDir()
	model := &twoProcDreamer{hold: 300 * time.Millisecond, created: map[string]string{}}
	sides := map[string]*proc{}
	for _, who := range []string{"a", "b"} {
		p := start(t, dir, nil)
		p.mu.Lock()
		p.onCall = model.serve(who)
		p.mu.Unlock()
		var ping map[string]any
		p.call("ping", nil, &ping)
		sides[who] = p
	}
	deadline := time.Now().Add(run)
	stats := map[string]*sideStats{}
	var errMu sync.Mutex
	var errs []error
	fail := func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
	}
	// Knowledge the other side must find: name → when it was on disk.
	type target struct {
		token string
		since time.Time
	}
	targets := map[string]chan target{"a": make(chan target, 1024), "b": make(chan target, 1024)}
	var wg sync.WaitGroup
	for who, p := range sides {
		st := &sideStats{open: map[string]bool{}, completed: map[string]bool{}}
		stats[who] = st
		other := "b"
		if who == "b" {
			other = "a"
		}
		var stMu sync.Mutex
		// Writer: intentions and sessions.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				switch i % 4 {
				case 0, 2:
					out, err := p.tryTool("add_intention", map[string]any{"what": fmt.Sprintf("task %s %d", who, i)})
					if err != nil {
						fail(err)
						continue
					}
					id := intentionIDRe.FindString(out)
					if id == "" {
						fail(fmt.Errorf("%s add_intention: no id in %q", who, out))
						continue
					}
					stMu.Lock()
					st.adds++
					if st.open[id] || st.completed[id] {
						fail(fmt.Errorf("%s was given %s twice", who, id))
					}
					st.open[id] = true
					stMu.Unlock()
				case 1:
					stMu.Lock()
					var id string
					for k := range st.open {
						id = k
						break
					}
					stMu.Unlock()
					if id == "" || i%8 != 1 {
						continue
					}
					out, err := p.tryTool("complete_intention", map[string]any{"intention_id": id})
					if err != nil || !strings.HasPrefix(out, "Completed intention") {
						fail(fmt.Errorf("%s complete %s: %q %v", who, id, out, err))
						continue
					}
					stMu.Lock()
					st.completes++
					delete(st.open, id)
					st.completed[id] = true
					stMu.Unlock()
				case 3:
					session := fmt.Sprintf("%s-chat-%d", who, i/20)
					for _, role := range []string{"user", "agent"} {
						tok := fmt.Sprintf("msg%s%dx%s", who, i, role)
						if err := p.tryCall("session.append", map[string]any{"sessionId": session, "role": role, "text": "note " + tok}, nil); err != nil {
							fail(err)
							continue
						}
						stMu.Lock()
						st.appends++
						st.messages = append(st.messages, tok)
						stMu.Unlock()
					}
					if i%20 == 19 {
						if err := p.tryCall("session.close", map[string]any{"sessionId": session}, nil); err != nil {
							fail(err)
						}
						stMu.Lock()
						st.closes++
						stMu.Unlock()
					}
				}
				stMu.Lock()
				st.ops++
				stMu.Unlock()
			}
		}()
		// Dreamer: sleep.run every 200 ms; what a dream created is handed to
		// the other side's recaller.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				before := snapshotCreated(model)
				var r struct {
					Status, Reason string
				}
				if err := p.tryCall("sleep.run", map[string]any{"trigger": "twoproc"}, &r); err != nil {
					fail(err)
					continue
				}
				stMu.Lock()
				switch {
				case r.Status == dream.StatusDeepSleep:
					st.dreams++
				case r.Status == dream.StatusSkipped && r.Reason == dream.ReasonOtherProcess:
					st.skippedOther++
				case r.Status == dream.StatusSkipped && r.Reason == dream.ReasonAlreadyRunning:
					st.skippedSame++
				case r.Status == dream.StatusSkipped && r.Reason == dream.ReasonNoPendingLogs:
					st.noLogs++
				default:
					fail(fmt.Errorf("%s sleep.run: %+v", who, r))
				}
				stMu.Unlock()
				if r.Status == dream.StatusDeepSleep {
					now := time.Now()
					for _, name := range newCreated(model, before, who) {
						targets[other] <- target{token: strings.ReplaceAll(name, "-", ""), since: now}
					}
				}
				time.Sleep(200 * time.Millisecond)
			}
		}()
		// Recaller: finds what the other side dreamt (and the hand edits).
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var tg target
				select {
				case tg = <-targets[who]:
				case <-time.After(time.Until(deadline)):
					return
				}
				for {
					out, err := p.tryTool("recall_memories", map[string]any{"query": tg.token})
					stMu.Lock()
					st.recalls++
					st.ops++
					stMu.Unlock()
					if err != nil {
						fail(err)
						break
					}
					if strings.Contains(out, tg.token) {
						stMu.Lock()
						st.seenLatency = append(st.seenLatency, time.Since(tg.since))
						stMu.Unlock()
						break
					}
					if time.Since(tg.since) > visibleWithin {
						fail(fmt.Errorf("%s: %s not recalled %v after it was written", who, tg.token, visibleWithin))
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	// A person's hand edits, seen by both.
	for i := 0; time.Now().Add(5 * time.Second).Before(deadline); i++ {
		time.Sleep(run / 6)
		tok := fmt.Sprintf("handedit%d", i)
		p := filepath.Join(dir, "memory", "knowledge", tok, "SKILL.md")
		mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mustDo(t, os.WriteFile(p, []byte("---\nname: "+tok+"\ndescription: token "+tok+" written by hand\ntype: fact\n---\n\nBy hand.\n"), 0o644))
		now := time.Now()
		targets["a"] <- target{token: tok, since: now}
		targets["b"] <- target{token: tok, since: now}
	}
	wg.Wait()
	for _, p := range sides {
		if err := p.tryCall("session.closeAll", nil, nil); err != nil {
			t.Error(err)
		}
		var ok map[string]any
		p.call("shutdown", nil, &ok)
		if code := p.waitExit(); code != 0 {
			t.Errorf("sidecar exit code %d", code)
		}
	}
	for _, err := range errs {
		t.Error(err)
	}

	// Ids: none given to both sides, every one on disk as last told.
	given := map[string]string{}
	for who, st := range stats {
		for id := range st.open {
			if w, dup := given[id]; dup {
				t.Errorf("%s given to both %s and %s", id, w, who)
			}
			given[id] = who
			if _, err := os.Stat(filepath.Join(dir, "memory/intentions", id, "INTENT.md")); err != nil {
				t.Errorf("%s (%s, open) lost: %v", id, who, err)
			}
		}
		for id := range st.completed {
			if w, dup := given[id]; dup {
				t.Errorf("%s given to both %s and %s", id, w, who)
			}
			given[id] = who
			body, err := os.ReadFile(filepath.Join(dir, "memory/intentions/archived", id, "INTENT.md"))
			if err != nil || strings.Count(string(body), "- closed:") != 1 || !strings.Contains(string(body), "(completed)") {
				t.Errorf("%s (%s, completed) not archived as completed once: %v\n%s", id, who, err, body)
			}
		}
	}
	onDisk := 0
	for _, sub := range []string{"memory/intentions", "memory/intentions/archived"} {
		des, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, de := range des {
			if de.IsDir() && de.Name() != "archived" {
				onDisk++
				if _, ok := given[de.Name()]; !ok {
					t.Errorf("%s/%s on disk but given to no one", sub, de.Name())
				}
			}
		}
	}
	if onDisk != len(given) {
		t.Errorf("%d intentions on disk, %d given out", onDisk, len(given))
	}

	// Messages: each in exactly one log; every .md a whole document.
	var logText strings.Builder
	mds := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		mds++
		data, err := os.ReadFile(p)
		if err != nil {
			t.Error(err)
			return nil
		}
		if _, err := frontmatter.Parse(p, data); err != nil || !strings.HasPrefix(string(data), "---\n") {
			t.Errorf("torn file %s: %v\n%s", p, err, data)
		}
		if strings.Contains(p, "session-log") {
			logText.Write(data)
			logText.WriteString("\n")
		}
		return nil
	})
	logs := logText.String()
	for who, st := range stats {
		for _, tok := range st.messages {
			if n := strings.Count(logs, tok+"\n"); n != 1 {
				t.Errorf("%s's message %s is in the logs %d times", who, tok, n)
			}
		}
	}
	out, err := exec.Command(binPath, "--data-dir", dir, "--embed", "off", "doctor").CombinedOutput()
	if err != nil {
		t.Errorf("doctor: %v\n%s", err, out)
	}

	// Dreams: one at a time, the loser told why, what was dreamt on disk.
	if n := model.overlaps.Load(); n != 0 {
		t.Errorf("%d dreams started while another was running", n)
	}
	totalDreams, totalSkipped := 0, 0
	for _, st := range stats {
		totalDreams += st.dreams
		totalSkipped += st.skippedOther
	}
	if totalDreams < 2 || totalSkipped == 0 {
		t.Errorf("%d dreams, %d skipped for another process: the race was not run", totalDreams, totalSkipped)
	}
	for name := range snapshotCreated(model) {
		if _, err := os.Stat(filepath.Join(dir, "memory/knowledge", name, "SKILL.md")); err != nil {
			t.Errorf("dreamt knowledge %s not on disk: %v", name, err)
		}
	}
	var lat []time.Duration
	for _, who := range []string{"a", "b"} {
		st := stats[who]
		lat = append(lat, st.seenLatency...)
		t.Logf("%s: %d ops (%d add_intention, %d complete_intention, %d session.append, %d session.close, %d recalls); "+
			"sleep.run: %d dreams, %d skipped (another process is dreaming), %d skipped (already running), %d no pending logs",
			who, st.ops, st.adds, st.completes, st.appends, st.closes, st.recalls, st.dreams, st.skippedOther, st.skippedSame, st.noLogs)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		t.Logf("%d intention ids, %d .md files; cross-process recall latency over %d writes: p50 %v, max %v",
			len(given), mds, len(lat), lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	} else {
		t.Errorf("no cross-process recall was measured")
	}
}

func snapshotCreated(m *twoProcDreamer) map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.created))
	for k, v := range m.created {
		out[k] = v
	}
	return out
}

// newCreated is what who's dreams created since before.
func newCreated(m *twoProcDreamer, before map[string]string, who string) []string {
	var out []string
	for name, w := range snapshotCreated(m) {
		if _, ok := before[name]; !ok && w == who {
			out = append(out, name)
		}
	}
	return out
}
