package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index/rank"
)

// run loads the sets and the embedders, then scores and prints the sets
// -sets names: the dialogues first, then the notes and conversations,
// then the same pools with a team pool beside them (-team-pool).
func run(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config) error {
	s, err := loadSets(cfg.dataDir, cfg.turnContext)
	if err != nil {
		return err
	}
	embs, noLocal := embedders(logger, cfg)
	defer func() {
		for _, e := range embs {
			e.Close()
		}
	}()
	if cfg.calibrate {
		return runCalibration(ctx, w, embs, s.notes, s.nq, s.turns, s.cq)
	}
	listHalf, err := halfOf(cfg.half)
	if err != nil {
		return err
	}
	if listHalf != "" {
		s.keep(listHalf)
	}
	sets := map[string]bool{}
	for _, name := range strings.Split(cfg.sets, ",") {
		sets[strings.TrimSpace(name)] = true
	}
	fmt.Fprint(w, "# somni recall eval\n\n")
	fmt.Fprint(w, noLocal)
	sum := &summary{}
	if listHalf != halfTune {
		// the summary is of the held-out half: printed last, after every set's own tables
		defer sum.report(w)
	}
	if err := runRealSets(ctx, w, logger, cfg, sets, embs, listHalf, sum); err != nil {
		return err
	}
	if sets["bench"] {
		if err := runBenchmarks(ctx, w, logger, cfg, filepath.Join(cfg.dataDir, "madial"), embs, listHalf, sum); err != nil {
			return err
		}
	}
	if sets["dialogues"] {
		ds, err := loadDialogues(cfg.dataDir)
		if err != nil {
			return err
		}
		if err := runDialogues(ctx, w, logger, cfg, ds, embs, listHalf, sum); err != nil {
			return err
		}
	}
	if sets["notes"] {
		if err := runNotes(ctx, w, logger, cfg, s, embs, listHalf); err != nil {
			return err
		}
	}
	return runTeamPools(ctx, w, logger, cfg, sets, s, embs, listHalf)
}

// halfOf is the half -half keeps: "" for all of them.
func halfOf(flag string) (string, error) {
	switch flag {
	case "all", "":
		return "", nil
	case "tune":
		return halfTune, nil
	case "held", "heldout":
		return halfHeld, nil
	}
	return "", fmt.Errorf("-half %q: want all, tune or heldout", flag)
}

// runNotes scores the curated notes (their queries, then the tool calls)
// and the conversation turns, and prints their tables.
func runNotes(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config, s *evalSets, embs []embed.Embedder, listHalf string) error {
	nqAll := append(append([]evalQuery(nil), s.nq...), s.tq...) // notes queries, then tool calls
	fmt.Fprintf(w, "## notes: %d entries, %d queries · conversation: %d turns, %d questions\n\n",
		len(s.notes), len(s.nq), len(s.turns), len(s.cq))
	noteRows, err := scoreSet(ctx, w, logger, cfg, s.notes, nqAll, embs, listHalf)
	if err != nil {
		return err
	}
	convRows, err := scoreSet(ctx, w, logger, cfg, s.turns, s.cq, embs, listHalf)
	if err != nil {
		return err
	}
	reportNotes(w, s, noteRows, convRows, listHalf)
	reportFooter(w, cfg.threshold)
	if cfg.ranks {
		reportRanks(w, s, noteRows, convRows, listHalf)
	}
	return nil
}

// runDialogues indexes each dialogue on its own (questions are asked of
// their own conversation, on its `now`) once per system and prints R@5 /
// R@10 per question kind, with each system's R@5 over BM25's; once with
// every turn a knowledge entry, once as the session log holds them.
func runDialogues(ctx context.Context, w io.Writer, logger *slog.Logger, cfg config, ds []*dialogue, embs []embed.Embedder, listHalf string, sum *summary) error {
	if len(ds) == 0 {
		return nil
	}
	for _, rep := range []struct {
		title, set string
		docs       func(*dialogue) []rank.Doc
	}{
		{"one knowledge entry each", "dialogues, a turn an entry", func(d *dialogue) []rank.Doc { return d.docs }},
		{"as session-log turns, each with the turn before it as context (search_recent_conversation)",
			"dialogues, session-log turns", func(d *dialogue) []rank.Doc { return rank.TurnDocs(d.turns) }},
	} {
		for _, lang := range dialogueLangs(ds) {
			var of []*dialogue
			for _, d := range ds {
				if d.lang == lang {
					of = append(of, d)
				}
			}
			sc, err := scoreDialogues(ctx, w, logger, cfg, of, rep.docs, embs, listHalf)
			if err != nil {
				return err
			}
			reportDialogues(w, sc, len(of), lang+", "+rep.title, listHalf)
			sum.addDialogues(sc, rep.set, lang)
		}
	}
	return nil
}

// dialogueLangs lists the dialogues' languages in first-seen order: each
// language is reported on its own, since a mean over both hides the one
// that loses.
func dialogueLangs(ds []*dialogue) []string {
	var out []string
	for _, d := range ds {
		if !slices.Contains(out, d.lang) {
			out = append(out, d.lang)
		}
	}
	return out
}
