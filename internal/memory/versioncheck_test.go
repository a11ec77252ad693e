package memory

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// errStale is what a caller's compare answers when the bytes on disk are
// not the version it read (browse's Conflict, in the Memory tab).
var errStale = errors.New("version conflict")

// versionedWrites are the store's writes that take a caller's version: a
// compare the store runs on the file's current bytes before it writes.
// Each gets the compare as check and returns the write's error.
var versionedWrites = []struct {
	name string
	do   func(ctx context.Context, s *Store, path string, check func([]byte) error) error
}{
	{"ReplaceText (memory.write)", func(ctx context.Context, s *Store, path string, check func([]byte) error) error {
		cur, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		_, err = EditorOf(s).ReplaceText(ctx, path, append(cur, "\nedited by hand\n"...), check)
		return err
	}},
	{"Rewrite (memory.pin)", func(ctx context.Context, s *Store, path string, check func([]byte) error) error {
		_, err := EditorOf(s).Rewrite(ctx, path, func(e *Entry) error {
			if err := check(e.Raw()); err != nil {
				return err
			}
			e.Meta.Set(KeyPinned, "true")
			return nil
		})
		return err
	}},
	{"ArchiveEntry (memory.forget)", func(ctx context.Context, s *Store, path string, check func([]byte) error) error {
		_, err := EditorOf(s).ArchiveEntry(ctx, path, check)
		return err
	}},
}

// entryOfEachKind makes one active entry of every kind a versioned write
// reaches and returns their files by kind (intentions: package intentions
// checks its CancelFile the same way).
func entryOfEachKind(t *testing.T, s *Store) map[string]string {
	t.Helper()
	ctx := context.Background()
	k, err := s.CreateKnowledge(ctx, KnowledgeInput{Name: "tea-order", Type: "fact", Description: "Ana takes her tea without sugar", Body: "Ana takes her tea without sugar.", Verified: false})
	if err != nil {
		t.Fatal(err)
	}
	sk, err := s.CreateSkill(ctx, SkillInput{Name: "brew-tea", Description: "how to brew green tea", Body: "Water at 80 degrees, two minutes.", Verified: false})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := s.RecordEpisode(ctx, EpisodeInput{What: "we brewed tea together", Source: "ep-tea"})
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(s.DataDir(), "skills", "steep", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("---\nname: steep\ndescription: steeping times by tea\n---\nGreen: two minutes.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"knowledge": k.Path, "learned skill": sk.Path, "user skill": user, "episode": ep.Path}
}

// TestVersionCheckedUnderTheLock: every write that takes a version compares
// it with the file's bytes while holding the store's write lock, for every
// kind of entry: a compare made before the lock is against bytes another
// writer may change before the write, and that change would be lost.
func TestVersionCheckedUnderTheLock(t *testing.T) {
	for _, w := range versionedWrites {
		s := newTestStore(t)
		for kind, path := range entryOfEachKind(t, s) {
			t.Run(w.name+"/"+kind, func(t *testing.T) {
				calls, unlocked := 0, 0
				err := w.do(context.Background(), s, path, func(cur []byte) error {
					calls++
					if s.mu.TryLock() {
						unlocked++
						s.mu.Unlock()
					}
					if disk, _ := os.ReadFile(path); !bytes.Equal(cur, disk) {
						t.Errorf("the check saw bytes that are not on disk")
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if calls == 0 || unlocked > 0 {
					t.Fatalf("version checked %d times, %d of them without the store's lock", calls, unlocked)
				}
			})
		}
	}
}

// TestRestoreVersionCheckedUnderTheLock: memory.restore, the one versioned
// write on archived entries, compares under the lock as the others do.
func TestRestoreVersionCheckedUnderTheLock(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	for kind, path := range entryOfEachKind(t, s) {
		if kind == "intention" || kind == "user skill" {
			continue // not restored by the store: moved back by hand
		}
		t.Run(kind, func(t *testing.T) {
			dest, err := EditorOf(s).ArchiveEntry(ctx, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			archived := filepath.Join(dest, filepath.Base(path))
			calls, unlocked := 0, 0
			_, err = EditorOf(s).RestoreEntry(ctx, archived, func([]byte) error {
				calls++
				if s.mu.TryLock() {
					unlocked++
					s.mu.Unlock()
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if calls == 0 || unlocked > 0 {
				t.Fatalf("version checked %d times, %d of them without the store's lock", calls, unlocked)
			}
		})
	}
}

// TestStaleVersionRefused: a version read before a change (a hand edit of
// the file) is refused by every versioned write, with the check's error,
// and the file keeps the change where it was.
func TestStaleVersionRefused(t *testing.T) {
	for _, w := range versionedWrites {
		s := newTestStore(t)
		for kind, path := range entryOfEachKind(t, s) {
			t.Run(w.name+"/"+kind, func(t *testing.T) {
				read, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				changed := strings.Replace(string(read), "\n---\n", "\n---\nchanged by hand before the write.\n", 1)
				if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
					t.Fatal(err)
				}
				err = w.do(context.Background(), s, path, func(cur []byte) error {
					if !bytes.Equal(cur, read) {
						return errStale
					}
					return nil
				})
				if !errors.Is(err, errStale) {
					t.Fatalf("write with a stale version: %v, want the version conflict", err)
				}
				if now, err := os.ReadFile(path); err != nil || string(now) != changed {
					t.Fatalf("after the refused write the file holds %q (%v), want the hand edit kept", now, err)
				}
			})
		}
	}
}
