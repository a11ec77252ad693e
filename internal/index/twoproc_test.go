package index

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// cacheRun is what one helper process measured.
type cacheRun struct {
	Who         int     `json:"who"`
	Syncs       int     `json:"syncs"`
	Errors      int     `json:"errors"`
	Warnings    int     `json:"warnings"` // in-memory fallbacks, rebuilds
	FirstLoaded int     `json:"first_loaded"`
	FirstEmbed  int     `json:"first_embedded"`
	FirstMS     float64 `json:"first_ms"`
	P50MS       float64 `json:"p50_ms"`
	P99MS       float64 `json:"p99_ms"`
	MaxMS       float64 `json:"max_ms"`
	Found       bool    `json:"found"`
	FirstError  string  `json:"first_error,omitempty"`
}

// TestCacheSharedByTwoProcesses measures two processes using one index
// cache file, the way two sidecars on one data dir do: both watch the same
// notes, each rewrites its half every round and syncs (so each also loads
// and writes the other's changes), 200 rounds each, at the same time. It
// runs the same load with a private cache file per process for comparison.
// The shared file must cost no sync an error, a rebuild or an in-memory
// fallback; the numbers are logged (go test -v -run CacheShared).
func TestCacheSharedByTwoProcesses(t *testing.T) {
	if os.Getenv("SOMNI_CACHE_HELPER") != "" {
		t.Skip("running as the helper")
	}
	if testing.Short() {
		t.Skip("two processes syncing for a few seconds")
	}
	for _, mode := range []string{"shared", "private"} {
		root := t.TempDir()
		for i := 0; i < 300; i++ {
			if _, err := writeNote(root, "knowledge", fmt.Sprintf("note-%03d", i), fmt.Sprintf("note %d about topic %d", i, i%17), "body of note "+strconv.Itoa(i)); err != nil {
				t.Fatal(err)
			}
		}
		cache := t.TempDir()
		runs := make(chan cacheRun, 2)
		for who := 0; who < 2; who++ {
			db := filepath.Join(cache, "index.sqlite")
			if mode == "private" {
				db = filepath.Join(cache, fmt.Sprintf("index-%d.sqlite", who))
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestCacheHelperProcess$")
			cmd.Env = append(os.Environ(), "SOMNI_CACHE_HELPER="+strings.Join([]string{root, db, strconv.Itoa(who)}, "|"))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() {
				defer cmd.Wait()
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					var r cacheRun
					if line, ok := strings.CutPrefix(sc.Text(), "RESULT "); ok && json.Unmarshal([]byte(line), &r) == nil {
						runs <- r
						return
					}
				}
				runs <- cacheRun{Who: -1, Errors: 1, FirstError: "helper ended without a result"}
			}()
		}
		for i := 0; i < 2; i++ {
			var r cacheRun
			select {
			case r = <-runs:
			case <-time.After(2 * time.Minute):
				t.Fatalf("%s: helper did not finish", mode)
			}
			t.Logf("%s cache, process %d: first sync %.1f ms (loaded %d, embedded %d); %d syncs p50 %.2f ms p99 %.2f ms max %.1f ms; %d errors, %d warnings %s",
				mode, r.Who, r.FirstMS, r.FirstLoaded, r.FirstEmbed, r.Syncs, r.P50MS, r.P99MS, r.MaxMS, r.Errors, r.Warnings, r.FirstError)
			if r.Errors > 0 || r.Warnings > 0 || !r.Found {
				t.Errorf("%s cache, process %d: %d errors, %d warnings, found=%v: %s", mode, r.Who, r.Errors, r.Warnings, r.Found, r.FirstError)
			}
		}
	}
}

// TestCacheHelperProcess is one process of TestCacheSharedByTwoProcesses.
func TestCacheHelperProcess(t *testing.T) {
	spec := os.Getenv("SOMNI_CACHE_HELPER")
	if spec == "" {
		t.Skip("helper process for TestCacheSharedByTwoProcesses")
	}
	parts := strings.Split(spec, "|")
	root, db := parts[0], parts[1]
	who, _ := strconv.Atoi(parts[2])
	var logs logBuffer
	ctx := context.Background()
	r := cacheRun{Who: who}
	fail := func(err error) {
		r.Errors++
		if r.FirstError == "" {
			r.FirstError = err.Error()
		}
	}
	defer func() {
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "level=WARN") {
				r.Warnings++
				if r.FirstError == "" {
					r.FirstError = l
				}
			}
		}
		b, _ := json.Marshal(r)
		fmt.Println("RESULT " + string(b))
	}()
	ix, err := Open(ctx, Options{Path: db, Source: dirSource{root}, Embedder: embed.Hash(),
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		fail(err)
		return
	}
	defer ix.Close()
	start := time.Now()
	st, err := ix.Sync(ctx)
	if err != nil {
		fail(err)
	}
	r.FirstMS = float64(time.Since(start).Microseconds()) / 1000
	r.FirstLoaded, r.FirstEmbed = st.Loaded, st.Queued
	var took []time.Duration
	for round := 0; round < 200; round++ {
		for i := who; i < 300; i += 20 { // 15 notes of its own; the other process rewrites 15 others
			name := fmt.Sprintf("note-%03d", i)
			// Written aside and renamed in, as the store writes: the other
			// process never reads a half-written note.
			if err := atomicNote(root, name, fmt.Sprintf("note %d round %d by %d", i, round, who)); err != nil {
				fail(err)
			}
		}
		t0 := time.Now()
		if _, err := ix.Sync(ctx); err != nil {
			fail(err)
		}
		took = append(took, time.Since(t0))
	}
	hits, err := ix.Search(ctx, rank.Query{Text: "round 199"})
	if err != nil {
		fail(err)
	}
	r.Found = len(hits) > 0
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	r.Syncs = len(took)
	r.P50MS, r.P99MS, r.MaxMS = ms(took[len(took)/2]), ms(took[len(took)*99/100]), ms(took[len(took)-1])
}

func atomicNote(root, name, desc string) error {
	dir := filepath.Join(root, "knowledge", name)
	tmp := filepath.Join(dir, ".SKILL.md.tmp-"+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(tmp, []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n\nrewritten\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "SKILL.md"))
}
