package rank

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/embed"
)

// snapshotCorpus is a corpus with what a snapshot must carry: vectors,
// contexts that borrow another entry's vector, links, days, CJK, a team
// pool's entries, and free slots left by removals (the snapshot renumbers).
func snapshotCorpus(t *testing.T) (*Corpus, func(string) bool) {
	t.Helper()
	shared := func(p string) bool { return strings.HasPrefix(p, "team/") }
	c := NewCorpus(shared)
	docs := SyntheticDocs(200, 5)
	for i := range docs {
		if i%7 == 0 {
			docs[i].Path = "team/" + docs[i].Path
		}
		if i%11 == 0 && i > 0 {
			docs[i].Related = []string{docs[i-1].Name}
			docs[i].Context = docs[i-1].Name + "\n" + docs[i-1].Description
		}
	}
	docs = append(docs,
		Doc{Path: "p/cjk", Name: "宠物医院", Description: "周末营业时间", Body: "宠物医院周末也营业吗？"},
		Doc{Path: "p/dated", Name: "run", Body: "I ran my first half yesterday, and again on 2024-03-10.",
			When: time.Date(2023, 10, 9, 12, 0, 0, 0, time.UTC), Tags: []string{"running"}})
	emb := embed.Hash()
	for i, d := range docs {
		e := NewEntry(d)
		if i%3 != 0 { // some not embedded yet
			v, err := emb.Embed(context.Background(), []string{EmbedText(d)})
			if err != nil {
				t.Fatal(err)
			}
			e.SetVec(v[0], emb.ID())
		}
		e.MTime, e.Size = int64(i)*1e9, int64(100+i)
		c.Put(e, nil)
	}
	for i := 0; i < len(docs); i += 13 {
		c.Remove(docs[i].Path)
	}
	return c, shared
}

// TestSnapshotRoundTrip: a corpus read back from its snapshot ranks
// exactly as the one written, and its entries carry the same facts.
func TestSnapshotRoundTrip(t *testing.T) {
	for _, floor := range []bool{false, true} {
		t.Run(map[bool]string{false: "without the floor's index", true: "with the floor's index"}[floor], func(t *testing.T) {
			snapshotRoundTrip(t, floor)
		})
	}
}

// snapshotRoundTrip is TestSnapshotRoundTrip with or without the floor's
// index built before the snapshot: read back, it is there or still wanted.
func snapshotRoundTrip(t *testing.T, floor bool) {
	c, shared := snapshotCorpus(t)
	if floor {
		entries, changes := c.Entries()
		x, err := BuildPlain(context.Background(), entries)
		if err != nil || !c.SetPlain(x, changes) {
			t.Fatalf("floor's index not installed: %v", err)
		}
	}
	k := SnapshotKey{ID: "file-a", Gen: 7, Embedder: embed.Hash().ID()}
	var buf bytes.Buffer
	for _, p := range c.Snapshot(k) {
		buf.Write(p)
	}
	back, err := ReadSnapshot(bytes.NewReader(buf.Bytes()), int64(buf.Len()), k, shared)
	if err != nil {
		t.Fatal(err)
	}
	if (back.plain != nil) != floor || back.PlainWanted() != !floor || back.cjkEntries != c.cjkEntries || c.cjkEntries == 0 {
		t.Fatalf("read back: floor's index %v, wanted %v, %d CJK entries; written: %v, %d",
			back.plain != nil, back.PlainWanted(), back.cjkEntries, floor, c.cjkEntries)
	}
	if back.Len() != c.Len() {
		t.Fatalf("%d entries read back, want %d", back.Len(), c.Len())
	}
	for e := range c.All() {
		b := back.Get(e.Doc.Path)
		if b == nil {
			t.Fatalf("%s missing", e.Doc.Path)
		}
		got := *b
		want := *e
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s read back as\n%+v\nwant\n%+v", e.Doc.Path, got, want)
		}
	}
	sc := NewScorer(embed.Hash(), nil)
	queries := []string{"postgres port", "宠物医院营业", "what did I run on 2024-03-10", "db-node-40", "note-12 deploy", ""}
	for _, q := range queries {
		for _, spread := range []int{0, 1} {
			qv, err := sc.EmbedQueryWeighted(context.Background(), q, c.TermWeight)
			if err != nil {
				t.Fatal(err)
			}
			want := sc.Rank(c, Query{Text: q, Limit: 20}, qv, spread)
			got := sc.Rank(back, Query{Text: q, Limit: 20}, qv, spread)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q (spread %d) from the snapshot:\n%v\nwant\n%v", q, spread, got, want)
			}
		}
	}
	// the corpus read back keeps working: a put and a remove
	back.Put(NewEntry(Doc{Path: "new", Name: "fresh", Body: "a postgres port note written after the start"}), nil)
	back.Remove("p/cjk")
	if h := sc.Rank(back, Query{Text: "fresh postgres"}, nil, 0); len(h) == 0 || h[0].Doc.Path != "new" {
		t.Fatalf("an entry put after the read is not found first: %v", h)
	}
}

// TestSnapshotRefused: a snapshot of another cache file, generation,
// embedder or counting, or one damaged or cut short, is never read.
func TestSnapshotRefused(t *testing.T) {
	c, shared := snapshotCorpus(t)
	k := SnapshotKey{ID: "file-a", Gen: 7, Embedder: embed.Hash().ID()}
	var buf bytes.Buffer
	for _, p := range c.Snapshot(k) {
		buf.Write(p)
	}
	good := buf.Bytes()
	flip := func(at int) []byte {
		b := bytes.Clone(good)
		b[at] ^= 0x10
		return b
	}
	cases := []struct {
		name string
		data []byte
		k    SnapshotKey
	}{
		{"another generation", good, SnapshotKey{ID: k.ID, Gen: 8, Embedder: k.Embedder}},
		{"another cache file", good, SnapshotKey{ID: "file-b", Gen: k.Gen, Embedder: k.Embedder}},
		{"another embedder", good, SnapshotKey{ID: k.ID, Gen: k.Gen, Embedder: "other"}},
		{"another counting", flip(16), k},
		{"another format", flip(8), k},
		{"a byte of the strings changed", flip(snapHeader + 10), k},
		{"a byte of the body changed", flip(len(good) - 3), k},
		{"cut short", good[:len(good)-1], k},
		{"empty", nil, k},
	}
	for _, tc := range cases {
		got, err := ReadSnapshot(bytes.NewReader(tc.data), int64(len(tc.data)), tc.k, shared)
		if got != nil || !errors.Is(err, ErrSnapshot) {
			t.Errorf("%s: read (%v), err %v", tc.name, got != nil, err)
		}
	}
	// and the good one reads
	if _, err := ReadSnapshot(bytes.NewReader(good), int64(len(good)), k, shared); err != nil {
		t.Fatal(err)
	}
	// a size that disagrees with the header is refused before any parse
	if _, err := ReadSnapshot(bytes.NewReader(good), int64(len(good))+1, k, shared); !errors.Is(err, ErrSnapshot) {
		t.Errorf("a wrong size: %v", err)
	}
	// and so is one past maxSnapshot, before its strings are read into memory
	huge := bytes.Clone(good[:snapHeader])
	binary.LittleEndian.PutUint64(huge[32:], maxSnapshot)
	binary.LittleEndian.PutUint64(huge[40:], 1)
	if _, err := ReadSnapshot(bytes.NewReader(huge), snapHeader+maxSnapshot+1, k, shared); !errors.Is(err, ErrSnapshot) ||
		!strings.Contains(err.Error(), "more than") {
		t.Errorf("a snapshot past maxSnapshot: %v", err)
	}
}

// TestSnapReaderVarints: vi reads back what binary.AppendVarint wrote,
// negative and extreme values included.
func TestSnapReaderVarints(t *testing.T) {
	want := []int64{0, 1, -1, 63, -64, 1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64}
	var b []byte
	for _, v := range want {
		b = binary.AppendVarint(b, v)
	}
	r := &snapReader{src: bytes.NewReader(b), buf: make([]byte, 64), left: int64(len(b))}
	for _, v := range want {
		if got := r.vi(); got != v || r.bad {
			t.Fatalf("read %d (bad %v), want %d", got, r.bad, v)
		}
	}
}
