package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/somni-dev/somni/internal/embed"
)

// realSize is how much of the public sets with real pools a run takes:
// always whole pools as each set defines them, but not every pool. The
// default takes what the outside measurement took, except MemoryCode's
// every third dialogue of its 210 (the local embedder needs 15 minutes
// for all 100k turns on the 2-core machine; a third keeps every length
// and 1,306 tasks); "outside" takes all 210, "full" everything, "quick"
// one pool of each (a smoke run).
type realSize struct {
	personas, rmSessions int // RealMem: first personas by file name, first sessions that ask (0 = all)
	users                int // LifeBench: first users by folder name (0 = all)
	minSessions, stride  int // MemoryCode: dialogues of at least so many sessions, every stride-th of them
}

// realSizes are -size's values.
var realSizes = map[string]realSize{
	"default": {personas: 3, rmSessions: 10, users: 3, minSessions: 10, stride: 3},
	"outside": {personas: 3, rmSessions: 10, users: 3, minSessions: 10, stride: 1},
	"full":    {stride: 1},
	"quick":   {personas: 1, rmSessions: 10, users: 1, minSessions: 10, stride: 10},
}

// realLoader loads one set at size from its folder.
type realLoader struct {
	set, folder, title string
	load               func(dir string, sz realSize) (*realSet, error)
}

// realLoaders are the sets with real pools, by their -sets name.
var realLoaders = []realLoader{
	{"realmem", "realmem", "RealMem", func(dir string, sz realSize) (*realSet, error) {
		return loadRealMem(dir, sz.personas, sz.rmSessions)
	}},
	{"lifebench", "lifebench-zh", "LifeBench zh", func(dir string, sz realSize) (*realSet, error) {
		return loadLifeBench(dir, sz.users)
	}},
	{"memorycode", "memorycode", "MemoryCode", func(dir string, sz realSize) (*realSet, error) {
		return loadMemoryCode(dir, sz.minSessions, sz.stride)
	}},
}

// runRealSets loads, scores and reports each set -sets names, skipping
// with a line a set whose folder is missing.
func runRealSets(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config, sets map[string]bool, embs []embed.Embedder, listHalf string, sum *summary) error {
	for _, l := range realLoaders {
		if !sets[l.set] {
			continue
		}
		dir, skip, err := benchFolder(cfg.benchDir, l.folder, l.title)
		if err != nil {
			return err
		}
		if skip != "" {
			fmt.Fprint(w, skip)
			continue
		}
		start := time.Now()
		rs, err := l.load(dir, cfg.size)
		if err != nil {
			return err
		}
		ss, err := scoreStreams(ctx, w, logger, cfg, rs, embs, listHalf)
		if err != nil {
			return err
		}
		if cfg.progress != nil {
			fmt.Fprintf(cfg.progress, "somni-eval: %s: %d pools, %d entries, %d questions, %s\n", l.title,
				len(rs.streams), rs.entries(), rs.questions(listHalf), time.Since(start).Round(time.Second))
		}
		reportStreams(w, ss, listHalf)
		sum.addStreams(ss)
	}
	return nil
}
