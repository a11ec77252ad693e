//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/dream/dreamtest"
	"github.com/somni-dev/somni/internal/testutil"
)

// The disk-full tests run the data dir on a tmpfs of their own and fill it
// with one file before the step under test, so the disk is full when that
// step writes, whatever the scheduler does: nothing races the sidecar.

// moveKnowledge renames every note folder of from's knowledge into dir's:
// a rename needs no space, so notes arrive on a disk that is already full.
func moveKnowledge(t *testing.T, from, dir string) {
	t.Helper()
	src := filepath.Join(from, "memory", "knowledge")
	names, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.Rename(filepath.Join(src, n.Name()), filepath.Join(dir, "memory", "knowledge", n.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDiskFullRecall: notes read while the disk is full are recalled
// although the index cache cannot hold them, the failure is logged once,
// and once space is back the next sync writes the cache, which a restart
// then reads instead of the files.
func TestDiskFullRecall(t *testing.T) {
	const n = 200
	tests := []struct {
		name string
		// fill makes the disk full with n notes in memory/knowledge that
		// the index has not read yet, and starts the sidecar (s may be
		// one it already started); free gives the space back.
		fill func(t *testing.T, dir string) (s *proc, free func())
	}{
		{"full before the first sync", func(t *testing.T, dir string) (*proc, func()) {
			// A killed earlier run leaves the cache file and its WAL
			// behind, so opening it needs no space; the first sync's rows do.
			first := start(t, dir, nil)
			first.call("index.sync", map[string]any{"reason": "test"}, nil)
			first.kill()
			writeKnowledge(t, dir, n)
			free := testutil.FillDisk(t, dir)
			return start(t, dir, nil), free
		}},
		{"notes arrive on a full disk", func(t *testing.T, dir string) (*proc, func()) {
			s := start(t, dir, nil)
			s.call("index.sync", map[string]any{"reason": "test"}, nil)
			incoming := filepath.Join(dir, "incoming")
			writeKnowledge(t, incoming, n)
			free := testutil.FillDisk(t, dir)
			moveKnowledge(t, incoming, dir)
			return s, free
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := testutil.SmallDisk(t, 8<<20)
			s, free := tc.fill(t, dir)
			for range 3 { // each sync fails to write the cache; the log says so once
				s.call("index.sync", map[string]any{"reason": "test"}, nil)
			}
			got := s.tool("recall_memories", map[string]any{"query": "topic00042 runbook", "limit": 3})
			mustContain(t, "recall on a full disk", got, "bulk-00042")
			if p := s.pingIndex(); p.Index.Entries != n {
				t.Errorf("index on a full disk holds %d entries, want %d", p.Index.Entries, n)
			}

			free()
			s.call("index.sync", map[string]any{"reason": "test"}, nil)
			// No clean close: what is in the cache is what the sync wrote.
			// Killed, its stderr is complete: the log is read after that.
			s.kill()
			logs := s.stderr.String()
			if c := strings.Count(logs, "index cache not written"); c != 1 {
				t.Errorf("the cache failure was logged %d times, want once:\n%s", c, lastLines(logs, 30))
			}
			mustContain(t, "log once space is back", logs, "index cache written again")

			again := start(t, dir, nil)
			again.call("index.sync", map[string]any{"reason": "test"}, nil)
			mustContain(t, "recall after the restart", again.tool("recall_memories", map[string]any{"query": "topic00137 runbook", "limit": 3}), "bulk-00137")
			again.kill()
			// every note comes from the cache: scanned, none read again
			mustContain(t, "first sync after the restart", again.stderr.String(), fmt.Sprintf("scanned=%d loaded=0 ", n))
		})
	}
}

// TestDiskFullDreamLeavesNoFolder: a dream whose create_knowledge
// cannot write its file on a full disk leaves no entry folder behind, and
// the model is told the write failed.
func TestDiskFullDreamLeavesNoFolder(t *testing.T) {
	dir := testutil.SmallDisk(t, 4<<20)
	s := start(t, dir, nil)
	s.call("session.append", map[string]any{"sessionId": "chat-1", "role": "user", "text": "the staging bastion is bastion-07 now"}, nil)
	s.call("session.close", map[string]any{"sessionId": "chat-1"}, nil)
	testutil.FillDisk(t, dir)

	const name = "staging-bastion-host"
	model := dreamtest.NewModel(
		dreamtest.Step{Calls: []dreamtest.Call{{Name: "create_knowledge", Args: map[string]any{
			"name": name, "entry_type": "fact", "description": "The bastion host of staging",
			"body": "Staging is reached through bastion-07."}}}},
		dreamtest.Step{Content: "could not write: the disk is full"},
	)
	dreamHost(s, model)
	var run struct{ Status, Reason string }
	s.call("sleep.run", map[string]any{"trigger": "test"}, &run)

	replies := model.ToolReplies()
	if len(replies) != 1 || !strings.Contains(replies[0], "no space left") {
		t.Errorf("create_knowledge's reply on a full disk = %q, want the write's failure", replies)
	}
	if _, err := os.Lstat(filepath.Join(dir, "memory", "knowledge", name)); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(filepath.Join(dir, "memory", "knowledge"))
		t.Errorf("the failed create left memory/knowledge/%s behind (%v); knowledge holds %v", name, err, entries)
	}
}
