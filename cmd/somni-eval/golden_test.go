package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/somni-dev/somni/internal/assoc"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from this run")

// TestGoldenReport runs the whole eval on testdata/tiny with the off and
// hash embedders only and compares the report with its golden file, so a
// change to loading, scoring or the tables shows up as a diff here
// instead of as drifted README numbers.
func TestGoldenReport(t *testing.T) {
	for _, tc := range []struct {
		name           string
		verbose, ranks bool
	}{
		{name: "report"},
		{name: "verbose-ranks", verbose: true, ranks: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runTiny(t, tc.verbose, tc.ranks)
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("report differs from %s (go test -update rewrites it after an intended change)\n--- got\n%s", golden, got)
			}
		})
	}
}

// runTiny runs the eval on the tiny set with no model folder, so only the
// off and hash embedders take part and the result is the same everywhere.
func runTiny(t *testing.T, verbose, withRanks bool) []byte {
	t.Helper()
	cfg := config{dataDir: filepath.Join("testdata", "tiny"), modelDir: filepath.Join(t.TempDir(), "no-model"),
		verbose: verbose, ranks: withRanks, half: "all", threshold: assoc.DefaultThreshold, turnContext: "prev", sets: "notes,dialogues"}
	var out bytes.Buffer
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := run(context.Background(), &out, logger, cfg); err != nil {
		t.Fatalf("run: %v", err)
	}
	return out.Bytes()
}
