package testutil

import (
	"io"
	"log/slog"
	"os"
	"testing"
	"time"
)

// FixedNow is the clock of the fixture tests: the day after the newest
// pydata session log, so the fixture's logs are all of earlier days.
var FixedNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.Local)

// QuietLogger discards every record: the tests check results, and a store's
// warnings about the fixture's deliberately broken file would bury a failure.
func QuietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// ReadFile returns the content of p, failing the test when it cannot be read.
func ReadFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
