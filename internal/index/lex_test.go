package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/bm25"
	"github.com/somni-dev/somni/internal/index/cache"
)

// lexProbeDocs cover what newEntry counts: Latin words of every field,
// CJK windows, dates in the text and in When, questions, capitals, context.
func lexProbeDocs() []Doc {
	docs := SyntheticDocs(60, 7)
	when := time.Date(2023, 10, 9, 12, 0, 0, 0, time.UTC)
	docs = append(docs,
		Doc{Path: "p/cjk", Name: "宠物医院", Description: "周末营业时间", Body: "宠物医院周末也营业吗？"},
		Doc{Path: "p/dated", Name: "run", Body: "I ran my first half yesterday, and again on 2024-03-10.", When: when},
		Doc{Path: "p/caps", Name: "Deploy", Description: "Staging DB", Body: "Port 6543 for STAGING.", Context: "Which port?"},
		Doc{Path: "p/mixed", Name: "mix", Body: "数据库 backup at 3am, 上周末 again", When: when, Tags: []string{"ops"}},
	)
	return docs
}

// TestLexViewRoundTrip: an entry put from its cached lexical view is the
// entry counted from its text: the same postings, length, days and flags.
func TestLexViewRoundTrip(t *testing.T) {
	counted, cached := newCorpus(), newCorpus()
	terms := map[string]bool{}
	for _, d := range lexProbeDocs() {
		maps.Copy(terms, docTerms(d))
		counted.put(newEntry(d), nil)
		lex := lexOf(newEntry(d))
		if cap(lex) != len(lex) {
			t.Errorf("%s: view of %d bytes holds %d", d.Path, len(lex), cap(lex))
		}
		if _, _, ok := cache.DecodeLex(lex, lexStamp(), nil, nil); !ok {
			t.Fatalf("%s: view not read back", d.Path)
		}
		cached.put(&entry{doc: d}, lex)
	}
	// put trusts the view over the text: a view of other words posts those
	blank := newCorpus()
	blank.put(&entry{doc: Doc{Path: "p/blank"}}, lexOf(newEntry(Doc{Body: "zebra crossing"})))
	if len(blank.words.Postings("zebra")) != 1 {
		t.Fatal("put did not read the cached view")
	}
	if cache.LexStamp(lexVersion+1) == lexStamp() {
		t.Fatal("another version must not read this one's views")
	}
	for s, a := range counted.slots {
		b := cached.slots[s]
		if a.doc.Path != b.doc.Path || a.dl != b.dl || !slices.Equal(a.days, b.days) || a.asks != b.asks ||
			a.cjk != b.cjk || a.lowerOK != b.lowerOK || a.textKey != b.textKey || a.ctxKey != b.ctxKey {
			t.Errorf("slot %d: counted %+v, cached %+v", s, *a, *b)
		}
	}
	for term := range terms {
		a, b := sortedPostings(counted.words.Postings(term)), sortedPostings(cached.words.Postings(term))
		if !slices.Equal(a, b) {
			t.Errorf("%q: counted %v, cached %v", term, a, b)
		}
	}
	// the statistics too: lengths and totals are what the scores divide by
	var a, b bm25.Scores
	q := bm25.NewQuery(strings.Join(slices.Sorted(maps.Keys(terms)), " "))
	counted.words.Score(q, weakTerm, &a)
	cached.words.Score(q, weakTerm, &b)
	if !slices.Equal(a.Score, b.Score) {
		t.Errorf("keyword scores differ: counted %v, cached %v", a.Score, b.Score)
	}
	if lexOf(&entry{}) != nil {
		t.Error("an entry without terms must store no view")
	}
}

func sortedPostings(ps []bm25.Posting) []bm25.Posting {
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(x, y bm25.Posting) int { return int(x.Doc - y.Doc) })
	return ps
}

// lexGolden is the digest of newEntry's counting of the probe docs without
// When (days of a When are local days: the golden must not depend on the
// machine's zone). When it changes, the counting changed: bump lexVersion,
// so restarts stop reading views counted the old way, and update it.
const lexGolden = "d01d3c7132c2a990"

func TestLexViewGolden(t *testing.T) {
	h := sha256.New()
	var b [4]byte
	for _, d := range lexProbeDocs() {
		d.When = time.Time{}
		e := newEntry(d)
		terms := make([]string, 0, len(e.newTF))
		for term := range e.newTF {
			terms = append(terms, term)
		}
		slices.Sort(terms)
		for _, term := range terms {
			h.Write([]byte(term))
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(e.newTF[term]))
			h.Write(b[:])
		}
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(e.dl))
		h.Write(b[:])
		for _, r := range e.days {
			binary.LittleEndian.PutUint32(b[:], uint32(r.From)^uint32(r.To)<<1)
			h.Write(b[:])
		}
		h.Write([]byte{bit(e.asks), bit(e.cjk), bit(e.lowerOK)})
	}
	if got := hex.EncodeToString(h.Sum(nil))[:16]; got != lexGolden {
		t.Fatalf("newEntry counts differently (digest %s, golden %s): bump lexVersion in corpus.go and set lexGolden", got, lexGolden)
	}
}

func bit(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// TestLexViewCached: a sync stores every entry's view, a score-only
// rewrite keeps it valid, and a restart reads them instead of counting,
// with the same search results.
func TestLexViewCached(t *testing.T) {
	ctx := context.Background()
	docs := lexProbeDocs()
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
	q := Query{Text: docs[3].Name + " 宠物医院 port", Limit: 10}
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
	if _, err := db.Exec(`DELETE FROM lex`); err != nil {
		t.Fatal(err)
	}
	db.Close()
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
