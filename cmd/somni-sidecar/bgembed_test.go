package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// pingIndex is ping's index field.
type pingIndex struct {
	Vector bool `json:"vector"`
	Index  *struct {
		Entries  int `json:"entries"`
		Embedded int `json:"embedded"`
		Pending  int `json:"pending"`
	} `json:"index"`
}

func (s *proc) pingIndex() pingIndex {
	s.t.Helper()
	var p pingIndex
	s.call("ping", nil, &p)
	if p.Index == nil {
		s.t.Fatalf("ping has no index counts")
	}
	return p
}

// waitWatching waits for the start's own reconciling to end: with the
// quick start the watches are set up after the first sync and a full sync
// follows them, which would take part of a bulk import written meanwhile
// as a run of its own.
func (s *proc) waitWatching() {
	s.t.Helper()
	waitFor(s.t, func() bool { return strings.Contains(s.stderr.String(), "index: watching") })
}

// writeKnowledge writes n knowledge notes; note i's description holds the
// word topic<i>, so a recall can name one.
func writeKnowledge(t testing.TB, dataDir string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("bulk-%05d", i)
		p := filepath.Join(dataDir, "memory", "knowledge", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		doc := fmt.Sprintf("---\nname: %s\ndescription: runbook for service topic%05d and its alerts\ntype: fact\n---\n\n"+
			"When service %d pages, check the dashboard, then the deploy log, then roll back if the error rate climbs.\n", name, i, i)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIndexSyncAnswersWhenEmbedded: after 2,000 new files, index.sync
// answers only once every entry is embedded, so the very next recall
// ranks a complete index by vector.
func TestIndexSyncAnswersWhenEmbedded(t *testing.T) {
	const n = 2000
	dir := t.TempDir()
	s := start(t, dir, []string{"--embed", "hash"})
	s.tool("recall_memories", map[string]any{"query": "warm up"}) // the index is open and synced
	s.waitWatching()
	writeKnowledge(t, dir, n)

	t0 := time.Now()
	var ok map[string]bool
	s.call("index.sync", map[string]any{"reason": "bulk import"}, &ok)
	took := time.Since(t0)
	if !ok["ok"] {
		t.Fatalf("index.sync = %v", ok)
	}
	p := s.pingIndex()
	if p.Index.Entries != n || p.Index.Embedded != n || p.Index.Pending != 0 || !p.Vector {
		t.Fatalf("right after index.sync: vector %v, %+v; want %d entries, all embedded", p.Vector, *p.Index, n)
	}
	t1 := time.Now()
	got := s.tool("recall_memories", map[string]any{"query": "topic01234 runbook", "limit": 3})
	t.Logf("index.sync over %d new files: %v; next recall %v", n, took, time.Since(t1))
	mustContain(t, "recall after index.sync", got, "bulk-01234")
	if p := s.pingIndex(); p.Index.Embedded != p.Index.Entries || p.Index.Pending != 0 {
		t.Errorf("after the recall: %+v", *p.Index)
	}
	// one run, logged once at the end (Info), not per batch
	logs := s.stderr.String()
	if !strings.Contains(logs, fmt.Sprintf("embedded %d/%d", n, n)) {
		t.Errorf("log lacks the embedding summary line:\n%s", lastLines(logs, 20))
	}
}

// backlogRecall is one recall answered while the local model was still
// embedding a bulk import in the background.
type backlogRecall struct {
	took time.Duration
	// batchLanded: a background batch was published between the recall's
	// request and its reply. A recall queued behind the embedder's batch
	// always sees one land (it waits for it); one that is not sees one only
	// when a batch happens to end during it.
	batchLanded bool
}

// recallsDuringBacklog starts the sidecar with the local model, imports n
// notes and recalls one of them every 100 ms until index.sync (which
// answers once all are embedded) returns: it samples every stage of the
// backlog, not only its first batch. It skips when the model is missing.
func recallsDuringBacklog(t testing.TB, n int) []backlogRecall {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	model, lib := filepath.Join(root, "models", "use-lite"), filepath.Join(root, "models", "lib", "libonnxruntime.so.1")
	for _, f := range []string{filepath.Join(model, "model.onnx"), lib} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s missing (run `make models`): the backlog needs the local model", f)
		}
	}
	dir := t.TempDir()
	s := start(t, dir, []string{"--embed", "local", "--embed-model-dir", model, "--ort-lib", lib})
	s.tool("recall_memories", map[string]any{"query": "warm up"}) // index open, model loaded
	s.waitWatching()
	writeKnowledge(t, dir, n)
	_, syncDone := s.send("index.sync", map[string]any{"reason": "bulk import"})
	// the backlog: entries published, not yet embedded
	for p := s.pingIndex(); p.Index.Entries < n || p.Index.Pending == 0; p = s.pingIndex() {
		select {
		case w := <-syncDone:
			t.Fatalf("index.sync answered before a backlog was seen (%+v): %s", *p.Index, w.Result)
		case <-time.After(5 * time.Millisecond):
		}
	}
	var got []backlogRecall
	for i := 0; ; i++ {
		select {
		case w := <-syncDone:
			if w.Error != nil {
				t.Fatalf("index.sync: %s", w.Error.Message)
			}
			if p := s.pingIndex(); p.Index.Embedded != n || p.Index.Pending != 0 {
				t.Errorf("after index.sync: %+v", *p.Index)
			}
			return got
		case <-time.After(100 * time.Millisecond):
		}
		q := (i * 97) % n
		before := s.pingIndex().Index.Embedded
		t1 := time.Now()
		out := s.tool("recall_memories", map[string]any{"query": fmt.Sprintf("topic%05d runbook", q), "limit": 3})
		d := time.Since(t1)
		mustContain(t, "recall during the backlog", out, fmt.Sprintf("bulk-%05d", q))
		if after := s.pingIndex().Index; after.Pending > 0 { // still a backlog when it answered
			got = append(got, backlogRecall{took: d, batchLanded: after.Embedded > before})
		}
	}
}

// TestRecallDuringEmbeddingBacklog: with the local model embedding 2,000
// new files in the background, a recall does not wait for the embedder's
// batch (256 texts, ≈ 0.85 s on 2 idle cores). It counts the work, not the
// clock, so it holds on a loaded machine: a recall queued behind a batch
// sees that batch land before it answers, every time; one that is not sees
// a batch land only when one happens to end during it (a recall of
// 14–35 ms against a batch of 0.85 s: a few percent, and load slows both
// alike). How long the recalls take is `make bench`'s
// BenchmarkRecallDuringBacklog.
func TestRecallDuringEmbeddingBacklog(t *testing.T) {
	recalls := recallsDuringBacklog(t, 2000)
	landed := 0
	for _, r := range recalls {
		if r.batchLanded {
			landed++
		}
	}
	t.Logf("%d recalls during the backlog, %d saw a batch land", len(recalls), landed)
	if len(recalls) < 5 {
		t.Fatalf("only %d recalls ran during the backlog", len(recalls))
	}
	if landed*2 > len(recalls) {
		t.Errorf("%d of %d recalls during the backlog answered only after a background batch landed: recalls wait for the embedder", landed, len(recalls))
	}
}

// BenchmarkRecallDuringBacklog reports the recall round trip (its own
// query embedding included) while the local model embeds 2,000 new notes.
func BenchmarkRecallDuringBacklog(b *testing.B) {
	var took []time.Duration
	for range b.N {
		for _, r := range recallsDuringBacklog(b, 2000) {
			took = append(took, r.took)
		}
	}
	if len(took) == 0 {
		b.Fatal("no recall ran during the backlog")
	}
	slices.Sort(took)
	pct := func(p float64) float64 { return float64(took[int(p*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(len(took))/float64(b.N), "recalls/run")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
