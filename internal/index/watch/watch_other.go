//go:build !linux

package watch

import (
	"context"
	"errors"
	"log/slog"
)

// Watcher is not implemented here: the index scans by mtime instead.
type Watcher struct{}

// Start fails: file watching is only implemented on linux.
func Start([]string, *slog.Logger, *Changes) (*Watcher, error) {
	return nil, errors.New("file watching is only implemented on linux")
}

// StartContext fails as Start does.
func StartContext(context.Context, []string, *slog.Logger, *Changes) (*Watcher, error) {
	return Start(nil, nil, nil)
}

// Close does nothing.
func (*Watcher) Close() error { return nil }
