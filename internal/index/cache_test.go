package index

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// logBuffer is a concurrency-safe log sink for asserting log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCacheFileStates opens the index over every broken state the derived
// cache can be found in: each must rebuild (or fall back to memory) with a
// log line saying so, and search the whole store after one sync.
func TestCacheFileStates(t *testing.T) {
	ctx := context.Background()
	// a healthy cache with enough entries to span many pages
	root := t.TempDir()
	seedNotes(t, root)
	for i := range 60 {
		mustWrite(t, root, "knowledge", "filler-"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)),
			"filler note", strings.Repeat("padding words for page count ", 40))
	}
	want := 7 + 60
	healthy := filepath.Join(t.TempDir(), "index.sqlite")
	{
		ix, err := Open(ctx, Options{Path: healthy, Source: dirSource{root}, Embedder: embed.Hash(), Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
	good, err := os.ReadFile(healthy)
	if err != nil {
		t.Fatal(err)
	}
	if len(good) < 64*1024 {
		t.Fatalf("healthy cache only %d bytes; the truncation case needs more pages", len(good))
	}

	cases := []struct {
		name    string
		prepare func(t *testing.T, p string) // p: the index path to open
		logWant string                       // a substring of the log
	}{
		{"missing", func(t *testing.T, p string) {}, ""},
		{"garbage", func(t *testing.T, p string) {
			writeFile(t, p, []byte(strings.Repeat("not a database ", 100)))
		}, "rebuilt"},
		{"empty file", func(t *testing.T, p string) { writeFile(t, p, nil) }, ""},
		{"truncated to half", func(t *testing.T, p string) { writeFile(t, p, good[:len(good)/2]) }, "rebuilt"},
		{"header only", func(t *testing.T, p string) { writeFile(t, p, good[:100]) }, "rebuilt"},
		{"older schema version", func(t *testing.T, p string) {
			writeFile(t, p, good)
			execSQL(t, p, `UPDATE state SET value='1' WHERE key='schema'`)
		}, "rebuilt"},
		{"old table without version row", func(t *testing.T, p string) {
			execSQL(t, p, `CREATE TABLE entries(path TEXT PRIMARY KEY, name TEXT)`,
				`INSERT INTO entries VALUES('x','y')`)
		}, "rebuilt"},
		{"path is a non-empty directory", func(t *testing.T, p string) {
			if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "in memory"},
		{"parent is a file", nil, "in memory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "index.sqlite")
			if tc.prepare == nil {
				writeFile(t, filepath.Join(dir, "file"), []byte("x"))
				p = filepath.Join(dir, "file", "index.sqlite")
			} else {
				tc.prepare(t, p)
			}
			var logs logBuffer
			ix, err := Open(ctx, Options{Path: p, Source: dirSource{root}, Embedder: embed.Hash(),
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer ix.Close()
			if _, err := ix.Sync(ctx); err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if got := ix.Status().Entries; got != want {
				t.Errorf("entries = %d, want %d", got, want)
			}
			hits, err := ix.Search(ctx, rank.Query{Text: "db-billing-02"})
			if err != nil || len(hits) == 0 || hits[0].Doc.Name != "billing-db" {
				t.Errorf("search after rebuild: %v %v", names(hits), err)
			}
			if tc.logWant != "" && !strings.Contains(logs.String(), tc.logWant) {
				t.Errorf("log lacks %q:\n%s", tc.logWant, logs.String())
			}
			// a second sync is incremental against what the first wrote
			st, err := ix.Sync(ctx)
			if err != nil || st.Loaded != 0 || st.Queued != 0 {
				t.Errorf("second sync loaded %d queued %d err %v", st.Loaded, st.Queued, err)
			}
			if err := ix.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// execSQL runs statements on a database file outside the index.
func execSQL(t *testing.T, p string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestTwoIndexesShareOneFile opens the same cache twice, as the sidecar
// and a `somni-sidecar recall` CLI run do: neither may throw the other's
// file away, and each sees what the other wrote at its next open.
func TestTwoIndexesShareOneFile(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	seedNotes(t, root)
	p := filepath.Join(t.TempDir(), "index.sqlite")
	a, err := Open(ctx, Options{Path: p, Source: dirSource{root}, Embedder: embed.Hash(), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var logs logBuffer
	b, err := Open(ctx, Options{Path: p, Source: dirSource{root}, Embedder: embed.Hash(),
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Status().Entries; got != 7 {
		t.Errorf("second opener sees %d cached entries, want 7", got)
	}
	st, err := b.Sync(ctx)
	if err != nil || st.Rebuilt || st.Loaded != 0 {
		t.Errorf("second opener's sync: %+v %v", st, err)
	}
	mustWrite(t, root, "knowledge", "new-note", "written while both are open", "zebra crossing")
	if _, err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = a.Sync(ctx)
	if err != nil || st.Rebuilt {
		t.Errorf("first opener after the second closed: %+v %v", st, err)
	}
	if hits, _ := a.Search(ctx, rank.Query{Text: "zebra crossing"}); len(hits) == 0 || hits[0].Doc.Name != "new-note" {
		t.Errorf("first opener search: %v", names(hits))
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("second opener warned:\n%s", logs.String())
	}
}

// TestLexViewCached: a sync stores every entry's view, a score-only
// rewrite keeps it valid, and a restart reads them instead of counting,
// with the same search results.
func TestLexViewCached(t *testing.T) {
	ctx := context.Background()
	// days and CJK windows in the views too
	docs := append(rank.SyntheticDocs(60, 7),
		rank.Doc{Path: "p/cjk", Name: "宠物医院", Description: "周末营业时间", Body: "宠物医院周末也营业吗？"},
		rank.Doc{Path: "p/dated", Name: "run", Body: "I ran my first half yesterday, and again on 2024-03-10.",
			When: time.Date(2023, 10, 9, 12, 0, 0, 0, time.UTC)})
	src := NewMemSource(docs...)
	dbPath := filepath.Join(t.TempDir(), "index.sqlite")
	open := func() *Index {
		ix, err := Open(ctx, Options{Path: dbPath, Source: src, Logger: quietLogger(), ScanInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	ix := open()
	d := docs[0]
	d.Score += 0.25
	src.Put(d) // a reinforcement: score only
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	q := rank.Query{Text: docs[3].Name + " 宠物医院 port", Limit: 10}
	before, _ := ix.Search(ctx, q)
	ix.Close()

	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var valid int
	if err := db.QueryRow(`SELECT count(*) FROM lex l JOIN entries e ON e.path = l.path AND e.doc_hash = l.doc_hash`).Scan(&valid); err != nil {
		t.Fatal(err)
	}
	var score float64
	if err := db.QueryRow(`SELECT score FROM entries WHERE path = ?`, d.Path).Scan(&score); err != nil || score != d.Score {
		t.Fatalf("the reinforced row holds score %v (%v), want %v", score, err, d.Score)
	}
	if valid != len(docs) {
		t.Fatalf("%d valid views stored, want %d", valid, len(docs))
	}
	// a cache written before views existed gets them on its next open
	// (such a cache has no snapshot either: that start reads the rows)
	if _, err := db.Exec(`DELETE FROM lex`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.Remove(dbPath + "-snap"); err != nil {
		t.Fatal(err)
	}
	ix = open()
	ix.Close()
	db, _ = sql.Open("sqlite", dbPath)
	defer db.Close()
	if err := db.QueryRow(`SELECT count(*) FROM lex l JOIN entries e ON e.path = l.path AND e.doc_hash = l.doc_hash`).Scan(&valid); err != nil || valid != len(docs) {
		t.Fatalf("%d views after reopening a cache without them (%v), want %d", valid, err, len(docs))
	}
	ix = open()
	defer ix.Close()
	after, _ := ix.Search(ctx, q)
	if len(before) == 0 || len(after) != len(before) {
		t.Fatalf("hits before %d, after a restart %d", len(before), len(after))
	}
	for i := range before {
		if before[i].Doc.Path != after[i].Doc.Path || before[i].Hybrid != after[i].Hybrid || before[i].Keyword != after[i].Keyword {
			t.Errorf("hit %d: before %s %v, after %s %v", i, before[i].Doc.Path, before[i].Hybrid, after[i].Doc.Path, after[i].Hybrid)
		}
	}
}
