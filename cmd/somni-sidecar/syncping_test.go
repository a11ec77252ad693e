package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pingSync is ping's sync object, nil when ping left it out.
type pingSync struct {
	Sync *struct {
		Failed bool   `json:"failed"`
		Said   string `json:"said"`
		InStep bool   `json:"inStep"`
		LastAt string `json:"lastAt"`
		Remote string `json:"remote"`
	} `json:"sync"`
}

// TestSyncPingCarriesState: ping says where git sync stands, so the
// plugin can tell the user when the automatic rounds fail — in step after
// the laptop's rounds, failed with the round's sentence once the remote is
// gone and the sidecar's own round ran, and nothing about sync on a data
// dir sync init never set up.
func TestSyncPingCarriesState(t *testing.T) {
	a, _, remote := twoMachines(t)
	s := start(t, a, []string{"--sync-interval", "1s"}, syncEnv...)
	var p pingSync
	s.call("ping", map[string]any{}, &p)
	if p.Sync == nil || !p.Sync.InStep || p.Sync.Failed || p.Sync.LastAt == "" || p.Sync.Remote != "" {
		t.Fatalf("ping after clean rounds: %+v", p.Sync)
	}
	if err := os.RemoveAll(remote); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for {
		s.call("ping", map[string]any{}, &p)
		if p.Sync != nil && p.Sync.Failed {
			break
		}
		if time.Since(t0) > followDeadline {
			t.Fatalf("ping never said the sync failed in %s: %+v", followDeadline, p.Sync)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if p.Sync.InStep || !strings.Contains(p.Sync.Said, "cannot reach "+remote) || strings.Contains(p.Sync.Said, "\n") {
		t.Fatalf("ping after a failed round: %+v", *p.Sync)
	}
	t.Logf("ping said the round failed %s after the remote went: %s", time.Since(t0).Round(time.Millisecond), p.Sync.Said)

	plain := filepath.Join(t.TempDir(), "plain")
	note(t, plain, "x", "A memory that never synced.")
	q := start(t, plain, []string{"--sync-interval", "1s"}, syncEnv...)
	var r pingSync
	q.call("ping", map[string]any{}, &r)
	if r.Sync != nil {
		t.Fatalf("ping speaks of sync on a data dir sync init never set up: %+v", *r.Sync)
	}
}
