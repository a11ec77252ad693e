package rank

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"math"
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
		counted.Put(NewEntry(d), nil)
		lex := NewEntry(d).Lex()
		if cap(lex) != len(lex) {
			t.Errorf("%s: view of %d bytes holds %d", d.Path, len(lex), cap(lex))
		}
		if _, _, ok := cache.DecodeLex(lex, lexStamp(), nil, nil); !ok {
			t.Fatalf("%s: view not read back", d.Path)
		}
		cached.Put(&Entry{Doc: d}, lex)
	}
	// put trusts the view over the text: a view of other words posts those
	blank := newCorpus()
	blank.Put(&Entry{Doc: Doc{Path: "p/blank"}}, NewEntry(Doc{Body: "zebra crossing"}).Lex())
	if len(blank.words.Postings("zebra")) != 1 {
		t.Fatal("put did not read the cached view")
	}
	if cache.LexStamp(lexVersion+1) == lexStamp() {
		t.Fatal("another version must not read this one's views")
	}
	for s, a := range counted.slots {
		b := cached.slots[s]
		if a.Doc.Path != b.Doc.Path || a.dl != b.dl || !slices.Equal(a.days, b.days) || a.asks != b.asks ||
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
	if (&Entry{}).Lex() != nil {
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
		e := NewEntry(d)
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
