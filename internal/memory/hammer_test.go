package memory

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/somni-dev/somni/internal/frontmatter"
)

// TestHandEditsSurviveRewrites races hand edits — in place (truncate, then
// write, as `echo >` and many editors do) and by rename (write a temp file,
// rename it over, as other editors and sync tools do) — at random moments
// against recalls and every kind of lifecycle rewrite (the journal fold a
// dream runs, record_usage, decay). After each round the file must hold the
// edit (never reverted) and a whole entry (never gutted).
// maxRevertedPerRounds is how many reverted edits in 2,000 rounds the
// residual check-to-swap window may account for.
const maxRevertedPerRounds = 2

func TestHandEditsSurviveRewrites(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	ctx := context.Background()
	s := newTestStore(t)
	e, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "hammered", Type: "fact", Description: "the staging postgres port", Body: "Port 6543.\n", Verified: true})
	if err != nil {
		t.Fatal(err)
	}
	path := e.Path
	rng := rand.New(rand.NewSource(1))
	var reverted, gutted, refused, inPlace, renamed int
	for r := 0; r < rounds; r++ {
		marker := fmt.Sprintf("hand edit %d", r)
		content := "---\nname: hammered\ndescription: the staging postgres port\ntype: fact\nscore: 0.5\n---\n\n" + marker + "\n"
		delay := time.Duration(rng.Intn(400)) * time.Microsecond
		useRename := rng.Intn(2) == 0
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			time.Sleep(delay)
			if useRename {
				tmp := filepath.Join(filepath.Dir(path), "editor-swap")
				if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
					t.Error(err)
					return
				}
				if err := os.Rename(tmp, path); err != nil {
					t.Error(err)
				}
				return
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				t.Error(err)
				return
			}
			// Two writes, like an editor flushing a buffer: a reader can see the half.
			half := len(content) / 2
			_, _ = f.WriteString(content[:half])
			_, _ = f.WriteString(content[half:])
			_ = f.Close()
		}()
		go func() {
			defer wg.Done()
			ent := &Entry{Path: path}
			var err error
			switch r % 3 {
			case 0: // what the usage journal's fold does to each entry it names
				var unlock func()
				if unlock, err = s.Lock(ctx); err == nil {
					err = s.RewriteLocked(ent, RecallChange(s.today()))
					unlock()
				}
			case 1:
				s.mu.Lock()
				err = s.RewriteLocked(ent, usageChange(s.today()))
				s.mu.Unlock()
			case 2:
				_, err = s.DecayAll(ctx)
			}
			if err != nil {
				refused++ // left the file alone: allowed, never a loss
			}
		}()
		wg.Wait()
		if useRename {
			renamed++
		} else {
			inPlace++
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := string(data)
		if !strings.Contains(got, marker+"\n") {
			reverted++
			t.Logf("round %d: hand edit reverted:\n%s", r, got)
		}
		doc, err := frontmatter.Parse(path, data)
		if err != nil || doc.Meta.Value(KeyName) == "" || doc.Meta.Value(KeyDescription) == "" || strings.TrimSpace(doc.Body) == "" {
			gutted++
			if gutted <= 3 {
				t.Errorf("round %d: entry gutted:\n%s", r, got)
			}
		}
	}
	t.Logf("%d rounds (%d in-place edits, %d rename edits): %d reverted, %d gutted, %d rewrites that stood aside", rounds, inPlace, renamed, reverted, gutted, refused)
	// The one window the swap cannot close: an editor that opened the file
	// before the exchange and writes after its last check writes into the
	// displaced copy. On a loaded machine it is hit about once in 2,000
	// rounds; more than that is a regression of the swap-back.
	if reverted > maxRevertedPerRounds*rounds/2000 {
		t.Errorf("%d of %d hand edits reverted (at most %d allowed for the check-to-swap window)", reverted, rounds, maxRevertedPerRounds*rounds/2000)
	}
	des, _ := os.ReadDir(filepath.Dir(path))
	for _, de := range des {
		if strings.Contains(de.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", de.Name())
		}
	}
}
