package cache

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"
)

// TestPageCacheBounded: the file's connection runs with the bounded page
// cache, not SQLite's 2,000 KiB default, which stayed resident after the
// start's load.
func TestPageCacheBounded(t *testing.T) {
	st, _, _, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.sqlite"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var kib int
	if err := st.db.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&kib); err != nil {
		t.Fatal(err)
	}
	if kib != -pageCacheKiB {
		t.Fatalf("cache_size %d, want -%d (KiB)", kib, pageCacheKiB)
	}
}
