package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/somni-dev/somni/internal/doctor"
	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index"
	"github.com/somni-dev/somni/internal/index/rank"
	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/present"
	"github.com/somni-dev/somni/internal/sidecar"
	"github.com/somni-dev/somni/internal/worktools"
)

// cliContext is cancelled by Ctrl-C so a long sync can be interrupted.
func cliContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
}

// checkDataDir refuses a data dir that cannot be one: a file, always, and
// for the read-only commands (mustExist) a path that is not there, which
// they would otherwise create and then report as an empty memory. The
// refusal names the path and what to do.
func checkDataDir(dir string, mustExist bool) error {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if !mustExist {
			return nil
		}
		return fmt.Errorf("no somni memory at %s: check --data-dir (default %s, or $SOMNI_DATA_DIR) or start DSH with dsh-somni once",
			dir, filepath.Join("~", ".dsh", "somni"))
	case err != nil:
		return fmt.Errorf("cannot read the data dir %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("%s is a file, not a somni data dir: point --data-dir at the directory that holds memory/ and skills/", dir)
	}
	return nil
}

// cmdRecall prints ranked results for a query. It reads only: a person
// inspecting memory must not reinforce what they look at.
func cmdRecall(o *options, stdout, stderr io.Writer) int {
	query := strings.TrimSpace(strings.Join(o.args, " "))
	if query == "" {
		fmt.Fprint(stderr, "somni-sidecar recall: give a query, e.g. somni-sidecar recall \"deploy pitfalls\"\n")
		return 2
	}
	ctx, cancel := cliContext()
	defer cancel()
	srv, err := sidecar.New(o.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar recall: %v\n", err)
		return 1
	}
	defer srv.Close()
	ix, err := srv.Index(ctx)
	if err == nil {
		_, err = ix.Sync(ctx)
	}
	if err == nil {
		// one query from a terminal: rank the complete index; an embedder
		// that is failing leaves the rest to keywords, as the tool would
		if err = ix.WaitEmbedded(ctx); errors.Is(err, index.ErrEmbedBackoff) {
			err = nil
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar recall: %v\n", err)
		return 1
	}
	// The same types list as the recall tool: every kind and entry type named
	// counts, not only the last.
	limit := o.recallN
	types := worktools.ParseRecallTypes(o.recallTy)
	unknown, err := types.Unknown(func(t string) (bool, error) {
		hits, err := ix.Search(ctx, rank.Query{EntryType: t, Limit: 1})
		return len(hits) > 0, err
	})
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar recall: %v\n", err)
		return 1
	}
	if len(unknown) > 0 {
		fmt.Fprintf(stderr, "somni-sidecar recall: --types %q: no memory has that type; use %s\n",
			strings.Join(unknown, ","), worktools.RecallTypesHelp())
		return 2
	}
	hits, err := ix.Search(ctx, types.Narrow(rank.Query{Text: query, Limit: limit}))
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar recall: %v\n", err)
		return 1
	}
	// what the recall tool shows the model: no hit barely above noise
	hits = worktools.Evident(types.Filter(hits, limit))
	// A person at a terminal opens the files: absolute paths here, a team
	// pool's named by its origin.
	show := func(p string) string {
		if origin := srv.Origin(p); origin != "" {
			return origin + ": " + p
		}
		return p
	}
	fmt.Fprintln(stdout, present.RenderHits(rank.Shown(hits), present.RenderOptions{BodyChars: 200, ShowPath: show}))
	return 0
}

// cmdDoctor reports problems and exits 1 when there are any.
func cmdDoctor(o *options, stdout, stderr io.Writer) int {
	ctx, cancel := cliContext()
	defer cancel()
	st, err := memory.Open(memory.Config{DataDir: o.cfg.DataDir, MemoryDir: o.cfg.MemoryDir, SkillDir: o.cfg.SkillDir,
		Logger: o.cfg.Logger.With(sidecar.LoggerKey, "somni.memory")})
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar doctor: %v\n", err)
		return 1
	}
	findings, err := sidecar.Doctor(ctx, st)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar doctor: %v\n", err)
		return 1
	}
	inst := sidecar.CheckInstall(ctx, o.cfg)
	inst.Verbose = o.verbose
	syncLine, syncFindings := sidecar.SyncCheck(st.DataDir())
	findings = append(append(inst.Findings, syncFindings...), findings...)
	if o.jsonOut {
		if findings == nil {
			findings = []sidecar.Finding{}
		}
		b, _ := json.MarshalIndent(findings, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		for _, l := range inst.Lines() {
			fmt.Fprintln(stdout, l)
		}
		// Not a finding: pending and claimed hits are the journal working.
		fmt.Fprintln(stdout, doctor.UsageSummary(st))
		if syncLine != "" {
			fmt.Fprintln(stdout, syncLine)
		}
		for _, f := range findings {
			fmt.Fprintln(stdout, f.String())
		}
		if len(findings) == 0 {
			fmt.Fprintf(stdout, "ok: no problems in %s\n", st.DataDir())
		} else {
			fmt.Fprintf(stdout, "%d problem(s) in %s\n", len(findings), st.DataDir())
		}
	}
	if len(findings) > 0 {
		return 1
	}
	return 0
}

func cmdStats(o *options, stdout, stderr io.Writer) int {
	ctx, cancel := cliContext()
	defer cancel()
	srv, err := sidecar.New(o.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar stats: %v\n", err)
		return 1
	}
	defer srv.Close()
	st, err := srv.CollectStats(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar stats: %v\n", err)
		return 1
	}
	if o.jsonOut {
		b, _ := json.MarshalIndent(st, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	fmt.Fprintf(stdout, "data dir:        %s\n", st.DataDir)
	kinds := make([]string, 0, len(st.Entries))
	for k := range st.Entries {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(stdout, "%-16s %d\n", k+":", st.Entries[k])
	}
	fmt.Fprintf(stdout, "unparsable:      %d\n", st.Unparsable)
	fmt.Fprintf(stdout, "session logs:    %d (%d pending)\n", st.SessionLogs, st.PendingLogs)
	if ix := st.Index; ix != nil {
		embedder := ix.EmbedderLabel
		if o.verbose || embedder == "" {
			embedder = strings.TrimSpace(embedder + " [" + ix.Embedder + "]")
		}
		fmt.Fprintf(stdout, "index:           %d entries, embedder %s, semantic ready %v\n", ix.Entries, embedder, ix.SemanticReady)
	}
	return 0
}

// embedReport is what `embed` prints: the embedder that made the vectors
// (which may be a fallback, said in degraded) and one vector per text.
type embedReport struct {
	sidecar.EmbedInfo
	Vectors [][]float32 `json:"vectors"`
}

// cmdEmbed embeds texts with the configured embedder and prints them as
// JSON: a way to check an install ("does this machine embed locally?") and
// to compare builds. It touches no data dir.
func cmdEmbed(o *options, stdin io.Reader, stdout, stderr io.Writer) int {
	texts := o.args
	if len(texts) == 0 {
		sc := bufio.NewScanner(io.LimitReader(stdin, maxEmbedInput))
		sc.Buffer(make([]byte, 64<<10), maxEmbedInput)
		for sc.Scan() {
			if t := strings.TrimSpace(sc.Text()); t != "" {
				texts = append(texts, t)
			}
		}
		if err := sc.Err(); err != nil {
			fmt.Fprintf(stderr, "somni-sidecar embed: read stdin: %v\n", err)
			return 1
		}
	}
	if len(texts) > maxEmbedTexts {
		fmt.Fprintf(stderr, "somni-sidecar embed: %d texts; at most %d at a time\n", len(texts), maxEmbedTexts)
		return 2
	}
	ctx, cancel := cliContext()
	defer cancel()
	emb, err := embed.New(o.cfg.Embed, o.cfg.Logger)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar embed: %v\n", err)
		return 1
	}
	defer emb.Close()
	if err := embed.WaitReady(ctx, emb); err != nil {
		fmt.Fprintf(stderr, "somni-sidecar embed: %v\n", err)
		return 1
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar embed: %v\n", err)
		return 1
	}
	rep := embedReport{EmbedInfo: sidecar.DescribeEmbedder(o.cfg.Embed.Provider, emb), Vectors: vecs}
	b, err := json.Marshal(rep)
	if err != nil {
		fmt.Fprintf(stderr, "somni-sidecar embed: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, string(b))
	return 0
}

// Bounds on what `embed` reads.
const (
	maxEmbedInput = 4 << 20 // bytes of stdin
	maxEmbedTexts = 1024
)
