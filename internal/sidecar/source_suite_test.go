package sidecar

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/memory"
)

// sourceUnderTest is one index.Source with the writes that change what it
// holds, each through that source's own path: a file written through the
// store for the sidecar's sources, Put and Delete for the in-memory one.
type sourceUnderTest struct {
	src index.Source
	// add writes a new entry of kind; for an episode, body is its outcome.
	add func(t *testing.T, kind, name, description, body string)
	// rewrite gives the knowledge entry name a new body.
	rewrite func(t *testing.T, name, body string)
	// remove takes the entry name out of what recall reads.
	remove func(t *testing.T, name string)
}

// RunSourceSuite checks what every index.Source promises (index/types.go)
// and what the index's sync relies on: a scan lists each entry once with
// its kind, a time and a size, reads no content and is the same until
// something is written; a load gives the entry of the ref's path as it
// was written; a rewrite changes the ref, so the index reads it again; a
// removed entry is no longer listed and its old ref loads no more; a
// cancelled context stops a scan; a source that scans one folder
// (index.SubtreeScanner) lists there what its whole scan lists.
func RunSourceSuite(t *testing.T, newSource func(t *testing.T) sourceUnderTest) {
	ctx := context.Background()
	s := newSource(t)
	refs, err := s.src.Scan(ctx)
	if err != nil || len(refs) != 0 {
		t.Fatalf("an empty source: Scan = %d refs, %v", len(refs), err)
	}
	type entry struct{ kind, name, description, body string }
	want := []entry{
		{rank.KindKnowledge, "pg-port", "The staging database listens on port 5433", "Use 5433 for staging, not the default."},
		{rank.KindSkill, "rotate-certs", "How to rotate the TLS certificates of the gateway", "1. issue\n2. reload nginx"},
		{rank.KindEpisode, "deploy-friday", "Deployed the search service on Friday", "rolled back after the cache warmed too slowly"},
	}
	for _, e := range want {
		s.add(t, e.kind, e.name, e.description, e.body)
	}
	byName := func(refs []index.FileRef) map[string]index.FileRef {
		t.Helper()
		out := map[string]index.FileRef{}
		for _, r := range refs {
			d, err := s.src.Load(ctx, r)
			if err != nil {
				t.Fatalf("Load %s: %v", r.Path, err)
			}
			if _, dup := out[d.Name]; dup {
				t.Errorf("Scan lists %s twice", d.Name)
			}
			out[d.Name] = r
		}
		return out
	}
	refs, err = s.src.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != len(want) {
		t.Fatalf("Scan after %d writes: %d refs", len(want), len(refs))
	}
	got := byName(refs)
	for _, e := range want {
		r, ok := got[e.name]
		if !ok {
			t.Fatalf("Scan does not list %s", e.name)
		}
		if r.Kind != e.kind || r.ModTime.IsZero() || r.Size <= 0 || r.Path == "" {
			t.Errorf("%s: ref %+v, want kind %s, a time and a size", e.name, r, e.kind)
		}
		d, err := s.src.Load(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if d.Path != r.Path || d.Kind != e.kind || d.Name != e.name || d.Description != e.description || !strings.Contains(d.Body, e.body) {
			t.Errorf("%s: loaded %+v, want what was written", e.name, d)
		}
	}

	t.Run("a scan is the same until something is written", func(t *testing.T) {
		again, err := s.src.Scan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for name, r := range byName(again) {
			if prev := got[name]; !prev.ModTime.Equal(r.ModTime) || prev.Size != r.Size || prev.Path != r.Path {
				t.Errorf("%s: %+v, then %+v with no write between", name, prev, r)
			}
		}
	})

	t.Run("a folder's scan lists what the whole scan lists there", func(t *testing.T) {
		sub, ok := s.src.(index.SubtreeScanner)
		if !ok {
			t.Skip("scans whole only")
		}
		for name, r := range got {
			under, err := sub.ScanUnder(ctx, filepath.Dir(r.Path))
			if err != nil {
				t.Fatal(err)
			}
			if len(under) != 1 || under[0] != r {
				t.Errorf("%s: ScanUnder its folder = %+v, Scan = %+v", name, under, r)
			}
		}
	})

	t.Run("a rewrite changes the ref", func(t *testing.T) {
		s.rewrite(t, "pg-port", "Staging moved: the database now listens on port 6432, since the pooler took 5433.")
		after, err := s.src.Scan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r := byName(after)["pg-port"]
		if prev := got["pg-port"]; prev.ModTime.Equal(r.ModTime) && prev.Size == r.Size {
			t.Errorf("rewritten, the ref is unchanged: %+v", r)
		}
		if d, err := s.src.Load(ctx, r); err != nil || !strings.Contains(d.Body, "6432") {
			t.Errorf("the rewritten entry loads as %q, %v", d.Body, err)
		}
	})

	t.Run("a removed entry is gone", func(t *testing.T) {
		old := got["rotate-certs"]
		s.remove(t, "rotate-certs")
		after, err := s.src.Scan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := byName(after)["rotate-certs"]; ok || len(after) != len(want)-1 {
			t.Errorf("after removing rotate-certs: %d refs", len(after))
		}
		if _, err := s.src.Load(ctx, old); err == nil {
			t.Errorf("the removed entry's old ref still loads")
		}
	})

	t.Run("a cancelled context stops a scan", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if refs, err := s.src.Scan(cctx); err == nil {
			t.Errorf("Scan on a cancelled context: %d refs, no error", len(refs))
		}
	})
}

// TestSourceSuite runs RunSourceSuite against every index.Source: the
// in-memory one the evals and benchmarks use, the store the sidecar adapts
// (real files in a temp data dir), and recall's source over the personal
// memory and a team pool, written to the pool.
func TestSourceSuite(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		RunSourceSuite(t, func(t *testing.T) sourceUnderTest {
			m := index.NewMemSource()
			path := func(kind, name string) string { return "/mem/" + kind + "/" + name + "/SKILL.md" }
			docs := map[string]rank.Doc{}
			return sourceUnderTest{
				src: m,
				add: func(t *testing.T, kind, name, description, body string) {
					d := rank.Doc{Path: path(kind, name), Kind: kind, Name: name, Description: description, Body: body}
					docs[name] = d
					m.Put(d)
				},
				rewrite: func(t *testing.T, name, body string) {
					d := docs[name]
					d.Body = body
					docs[name] = d
					m.Put(d)
				},
				remove: func(t *testing.T, name string) { m.Delete(docs[name].Path) },
			}
		})
	})
	t.Run("store", func(t *testing.T) {
		RunSourceSuite(t, func(t *testing.T) sourceUnderTest {
			st := suiteStore(t)
			return storeWrites(storeSource{st}, st)
		})
	})
	t.Run("personal memory and a team pool", func(t *testing.T) {
		RunSourceSuite(t, func(t *testing.T) sourceUnderTest {
			personal, pool := suiteStore(t), suiteStore(t)
			return storeWrites(recallSource{stores: []*memory.Store{personal, pool}}, pool)
		})
	})
}

func suiteStore(t *testing.T) *memory.Store {
	t.Helper()
	st, err := memory.Open(memory.Config{DataDir: t.TempDir(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// storeWrites changes src's entries through st, as the dreamer and the
// Memory tab do.
func storeWrites(src index.Source, st *memory.Store) sourceUnderTest {
	ctx := context.Background()
	return sourceUnderTest{
		src: src,
		add: func(t *testing.T, kind, name, description, body string) {
			t.Helper()
			var err error
			switch kind {
			case rank.KindKnowledge:
				_, err = st.CreateKnowledge(ctx, memory.KnowledgeInput{Name: name, Type: "fact", Description: description, Body: body, Verified: true})
			case rank.KindSkill:
				_, err = st.CreateSkill(ctx, memory.SkillInput{Name: name, Description: description, Body: body, Verified: true})
			case rank.KindEpisode:
				_, err = st.RecordEpisode(ctx, memory.EpisodeInput{What: description, Outcome: body, Source: name})
			}
			if err != nil {
				t.Fatalf("write %s %s: %v", kind, name, err)
			}
		},
		rewrite: func(t *testing.T, name, body string) {
			t.Helper()
			if _, err := st.UpdateKnowledge(ctx, memory.KnowledgeUpdate{Name: name, Body: body}); err != nil {
				t.Fatal(err)
			}
		},
		remove: func(t *testing.T, name string) {
			t.Helper()
			if _, err := st.Archive(ctx, name); err != nil {
				t.Fatal(err)
			}
		},
	}
}
