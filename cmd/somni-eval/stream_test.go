package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/assoc"
)

func TestOrderTally(t *testing.T) {
	gold, old := []string{"new"}, []string{"old1", "old2"}
	for _, tc := range []struct {
		top  []string
		want orderTally
	}{
		{[]string{"x", "new", "old1"}, orderTally{latest: 1}},
		{[]string{"new"}, orderTally{latest: 1}},
		{[]string{"old2", "x", "new"}, orderTally{old: 1}},
		{[]string{"old1"}, orderTally{old: 1}},
		{[]string{"x", "y"}, orderTally{neither: 1}},
		{nil, orderTally{neither: 1}},
	} {
		var got orderTally
		got.add(tc.top, gold, old)
		if got != tc.want {
			t.Errorf("%v: %+v, want %+v", tc.top, got, tc.want)
		}
	}
}

// TestRealSetsReport runs the real-pool sets on the miniatures with the
// off and hash embedders: each set's tables, the summary's real-pool
// tables with the order of versions, and a line for a missing folder.
func TestRealSetsReport(t *testing.T) {
	run1 := func(benchDir string) string {
		cfg := config{dataDir: filepath.Join("testdata", "tiny"), modelDir: filepath.Join(t.TempDir(), "no-model"),
			half: "all", threshold: assoc.DefaultThreshold, turnContext: "prev", sets: "realmem,lifebench,memorycode",
			benchDir: benchDir, size: realSizes["full"]}
		var out bytes.Buffer
		if err := run(context.Background(), &out, slog.New(slog.NewTextHandler(io.Discard, nil)), cfg); err != nil {
			t.Fatalf("run: %v", err)
		}
		return out.String()
	}
	got := run1(filepath.Join("testdata", "bench"))
	for _, want := range []string{
		"## RealMem en: 1 pools, 8 entries, 2 questions",
		"## LifeBench zh: 2 pools, 7 entries, 4 questions",
		"## MemoryCode en: 2 pools, 10 entries, 3 questions",
		"| system | incremental (",
		"| hybrid/off |", "| hybrid/hash-v2-256 |",
		"## summary, sets with real pools (RealMem, LifeBench, MemoryCode), held-out half",
		"Latest version of an updated instruction above every earlier one",
		"| MemoryCode | ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	missing := run1(filepath.Join(t.TempDir(), "none"))
	for _, title := range []string{"RealMem", "LifeBench zh", "MemoryCode"} {
		if !strings.Contains(missing, "_"+title+" skipped: no ") {
			t.Errorf("no skip line for %s:\n%s", title, missing)
		}
	}
}
