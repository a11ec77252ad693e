// Command somni-eval measures recall quality on the bilingual eval sets in
// testdata/recall: hit@k per query tier, associative-hint precision and
// false hints, for every available embedder beside a plain BM25 baseline
// computed in the same run. `make eval` runs it.
//
//	main.go      flags, the sets and the systems, the report tables
//	dialogue.go  the dated multi-session dialogue set
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/somni-dev/somni/internal/assoc"
	"github.com/somni-dev/somni/internal/embed"
	"github.com/somni-dev/somni/internal/index"
)

func main() {
	dir := flag.String("data", "testdata/recall", "directory holding notes.json and conversation.txt")
	calibrate := flag.Bool("calibrate", false, "print cosine distributions of unrelated and gold pairs per embedder")
	modelDir := flag.String("embed-model-dir", os.Getenv("SOMNI_EMBED_MODEL_PATH"), "local embedder model folder")
	verbose := flag.Bool("v", false, "list misses")
	flag.StringVar(&listHalfFlag, "half", "all", "all | tune | heldout: evaluate and list only this half of the queries (the halves are fixed per tier by a hash of the query text)")
	flag.StringVar(&explainQ, "explain", "", "print the ranking signals of queries containing this text (* = every query)")
	flag.BoolVar(&ranks, "ranks", false, "print each query's rank of its first gold entry per system")
	flag.Float64Var(&threshold, "threshold", assoc.DefaultThreshold, "hint threshold of the gate (sweeps)")
	flag.BoolVar(&margins, "margins", false, "print each hinted-for cue's best gold and other hybrid score against the threshold")
	flag.StringVar(&turnContext, "turn-context", "prev", "prev | none: whether a turn carries the previous turn as context (index.TurnDocs), or not (ablation)")
	flag.Float64Var(&calFloor, "floor", 0, "override every vector embedder's cosine floor (tuning)")
	flag.Float64Var(&calSpan, "span", 0, "override every vector embedder's cosine span (tuning)")
	flag.StringVar(&setsFlag, "sets", "notes,dialogues", "comma list of the sets to run: notes (curated notes, tool calls and short conversations), dialogues")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := run(context.Background(), os.Stdout, logger, *dir, *modelDir, *calibrate, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "somni-eval:", err)
		os.Exit(1)
	}
}

// setsFlag is -sets: which eval sets run.
var setsFlag string

// threshold is -threshold, the gate's hint threshold.
var threshold float64

// calFloor/calSpan override embedder calibrations when set (-floor/-span).
var calFloor, calSpan float64

// listHalfFlag keeps one half of the queries (-half), so tuning never
// looks at held-out misses; ranks is -ranks, explainQ is -explain.
var (
	listHalfFlag string
	ranks        bool
	explainQ     string
)

// explain prints how s ranks the queries containing sub (-explain): the
// top 8 with their signals, gold entries marked.
func explain(ctx context.Context, w io.Writer, s *system, qs []evalQuery, sub string) {
	if s.hits == nil {
		return
	}
	for _, q := range qs {
		if sub != "*" && !strings.Contains(q.Q, sub) {
			continue
		}
		gold := map[string]bool{}
		for _, g := range q.Gold {
			gold[g] = true
		}
		hits, err := s.hits(ctx, q.Q, 8)
		if err != nil {
			fmt.Fprintf(w, "explain %s: %v\n", s.name, err)
			return
		}
		fmt.Fprintf(w, "[%s] %q (gold %v)\n", s.name, q.Q, q.Gold)
		for _, h := range hits {
			mark := " "
			if gold[h.Doc.Path] {
				mark = "*"
			}
			fmt.Fprintf(w, " %s %-18s hyb %.3f cos %.3f kw %.3f lit %v pin %v terms %v | %.70s\n", mark, h.Doc.Path,
				h.Hybrid, h.Cos, h.Keyword, h.Literal, h.Pinned, h.Terms, strings.ReplaceAll(index.EmbedText(h.Doc), "\n", " / "))
		}
	}
}

// turnContext is -turn-context: "none" strips index.TurnDocs' context.
var turnContext string

// noteFolders is where the store keeps a note of each kind, relative to the
// data dir: the eval's paths must be the paths recall reports.
var noteFolders = map[string]string{"knowledge": "memory/knowledge/", "episode": "memory/episodes/", "skill": "skills/agent_learned_skills/"}

type noteSet struct {
	Notes []struct {
		ID             string   `json:"id"`
		Kind           string   `json:"kind"`
		Type           string   `json:"type"`
		Name           string   `json:"name"`
		Description    string   `json:"description"`
		Body           string   `json:"body"`
		Related        []string `json:"related"`
		Tags           []string `json:"tags"`
		When           string   `json:"when"`
		AppliesWhen    string   `json:"applies_when"`
		NotAppliesWhen string   `json:"not_applies_when"`
	} `json:"notes"`
	Queries []evalQuery `json:"queries"`
}

type evalQuery struct {
	Tier string   `json:"tier"`
	Q    string   `json:"q"`
	Gold []string `json:"gold"` // doc paths after loading
	Half string   `json:"-"`    // halfTune or halfHeld (assignHalves)
	// Tool and Args make the query a tool call (tool-calls.json): hints go
	// through assoc.Gate.Action and Q is its cue (assoc.ActionCue).
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// halfKey is the text a query's half is hashed from: the query, or for a
// tool call the tool name and its arguments re-encoded with sorted keys,
// so the half does not depend on how the cue is derived.
func (q evalQuery) halfKey() string {
	if q.Tool == "" {
		return q.Q
	}
	var m map[string]any
	if json.Unmarshal(q.Args, &m) == nil {
		if b, err := json.Marshal(m); err == nil {
			return q.Tool + " " + string(b)
		}
	}
	return q.Tool + " " + string(q.Args)
}

// loadNotes reads the curated notes set; gold ids become doc paths.
func loadNotes(dir string) ([]index.Doc, []evalQuery, error) {
	b, err := os.ReadFile(filepath.Join(dir, "notes.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("read notes: %w", err)
	}
	var ns noteSet
	if err := json.Unmarshal(b, &ns); err != nil {
		return nil, nil, fmt.Errorf("parse notes.json: %w", err)
	}
	paths := map[string]string{}
	var docs []index.Doc
	for _, n := range ns.Notes {
		sub := noteFolders[n.Kind]
		if sub == "" {
			return nil, nil, fmt.Errorf("note %s: unknown kind %q", n.ID, n.Kind)
		}
		d := index.Doc{Path: sub + n.Name + "/SKILL.md", Kind: n.Kind, Name: n.Name, Description: n.Description,
			Body: n.Body, Type: n.Type, Score: 0.5, Related: n.Related, Tags: n.Tags,
			AppliesWhen: n.AppliesWhen, NotAppliesWhen: n.NotAppliesWhen}
		if n.When != "" {
			if d.When, err = time.Parse(time.RFC3339, n.When); err != nil {
				return nil, nil, fmt.Errorf("note %s: when: %w", n.ID, err)
			}
		}
		if _, dup := paths[n.ID]; dup {
			return nil, nil, fmt.Errorf("duplicate note id %s", n.ID)
		}
		paths[n.ID] = d.Path
		docs = append(docs, d)
	}
	for i, q := range ns.Queries {
		for j, g := range q.Gold {
			p, ok := paths[g]
			if !ok {
				return nil, nil, fmt.Errorf("query %q: unknown gold id %s", q.Q, g)
			}
			ns.Queries[i].Gold[j] = p
		}
	}
	return docs, ns.Queries, nil
}

// loadToolCalls reads tool-calls.json: tool calls of tier "touch" (their
// arguments name a host, port, file or identifier of the gold notes) and
// "ordinary" (everyday coding calls that touch nothing remembered). Gold
// ids are notes.json ids, mapped to paths like the notes queries'.
func loadToolCalls(dir string, notes []index.Doc, nq []evalQuery) ([]evalQuery, error) {
	b, err := os.ReadFile(filepath.Join(dir, "tool-calls.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read tool calls: %w", err)
	}
	var set struct {
		Calls []evalQuery `json:"calls"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("parse tool-calls.json: %w", err)
	}
	paths, err := noteIDs(dir)
	if err != nil {
		return nil, err
	}
	for i, c := range set.Calls {
		if c.Tool == "" || (c.Tier != "touch" && c.Tier != "ordinary") {
			return nil, fmt.Errorf("tool call %d: want a tool and tier touch or ordinary", i)
		}
		if (c.Tier == "touch") != (len(c.Gold) > 0) {
			return nil, fmt.Errorf("tool call %d (%s): touching calls and only they have gold", i, c.Tool)
		}
		for j, g := range c.Gold {
			p, ok := paths[g]
			if !ok {
				return nil, fmt.Errorf("tool call %d: unknown gold id %s", i, g)
			}
			set.Calls[i].Gold[j] = p
		}
		set.Calls[i].Q = assoc.ActionCue(c.Tool, c.Args)
	}
	return set.Calls, nil
}

// noteIDs maps notes.json ids to the doc paths loadNotes gives them.
func noteIDs(dir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "notes.json"))
	if err != nil {
		return nil, fmt.Errorf("read notes: %w", err)
	}
	var ns noteSet
	if err := json.Unmarshal(b, &ns); err != nil {
		return nil, fmt.Errorf("parse notes.json: %w", err)
	}
	out := map[string]string{}
	for _, n := range ns.Notes {
		out[n.ID] = noteFolders[n.Kind] + n.Name + "/SKILL.md"
	}
	return out, nil
}

var turnLine = regexp.MustCompile(`^([UA]): (.+)$`)

// loadConversation reads conversation.txt: each U:/A: line is one entry,
// each Q: line a question with the 1-based turn numbers that answer it.
func loadConversation(dir string) ([]index.Doc, []evalQuery, error) {
	f, err := os.Open(filepath.Join(dir, "conversation.txt"))
	if err != nil {
		return nil, nil, fmt.Errorf("read conversation: %w", err)
	}
	defer f.Close()
	var turns []index.Turn
	var qs []evalQuery
	session, turn := "", 0
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "# "):
		case strings.HasPrefix(line, "## "):
			session, turn = strings.TrimSpace(line[3:]), 0
		case strings.HasPrefix(line, "Q: "):
			q, refs, ok := strings.Cut(line[3:], "=>")
			if !ok || session == "" {
				return nil, nil, fmt.Errorf("conversation.txt:%d: want 'Q: question => n,m'", ln)
			}
			eq := evalQuery{Tier: "conversation", Q: strings.TrimSpace(q)}
			for _, r := range strings.Split(refs, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(r))
				if err != nil || n < 1 || n > turn {
					return nil, nil, fmt.Errorf("conversation.txt:%d: bad turn %q", ln, r)
				}
				eq.Gold = append(eq.Gold, fmt.Sprintf("session-log/%s#%d", session, n))
			}
			qs = append(qs, eq)
		default:
			m := turnLine.FindStringSubmatch(line)
			if m == nil || session == "" {
				return nil, nil, fmt.Errorf("conversation.txt:%d: unexpected line", ln)
			}
			turn++
			turns = append(turns, index.Turn{Path: fmt.Sprintf("session-log/%s#%d", session, turn),
				Session: session, Role: map[string]string{"U": "user", "A": "agent"}[m[1]], Text: m[2]})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("read conversation: %w", err)
	}
	// the same representation search_recent_conversation ranks
	docs := index.TurnDocs(turns)
	if turnContext == "none" {
		for i := range docs {
			docs[i].Context = ""
		}
	}
	return docs, qs, nil
}

// system is one ranking method under evaluation.
type system struct {
	name   string
	search func(ctx context.Context, q string, k int) ([]string, error)
	hits   func(ctx context.Context, q string, k int) ([]index.Hit, error) // nil for the baseline
	gate   *assoc.Gate                                                     // nil for the baseline
	quiet  bool                                                            // hints withheld in production with this embedder
	close  func()
}

// indexSystem builds a real index (SQLite cache in a temp dir) over docs.
// now is the index's clock (zero: the real one): a dialogue's questions
// are asked on its own day, so "last May" means what the asker meant.
func indexSystem(ctx context.Context, name string, emb embed.Embedder, docs []index.Doc, logger *slog.Logger, now time.Time) (*system, error) {
	tmp, err := os.MkdirTemp("", "somni-eval-")
	if err != nil {
		return nil, err
	}
	var cal *embed.Calibration
	if calSpan > 0 {
		cal = &embed.Calibration{Floor: calFloor, Span: calSpan}
	}
	opts := index.Options{Path: filepath.Join(tmp, "index.sqlite"), Source: index.NewMemSource(docs...),
		Embedder: emb, Logger: logger, ScanInterval: -1, Calibration: cal}
	if !now.IsZero() {
		opts.Now = func() time.Time { return now }
	}
	ix, err := index.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	if _, err := ix.Sync(ctx); err != nil {
		return nil, err
	}
	if err := ix.WaitEmbedded(ctx); err != nil {
		return nil, fmt.Errorf("embed %s: %w", name, err)
	}
	g := assoc.New(ix, assoc.Config{Threshold: threshold, AllowNoisy: true, Kinds: []string{index.KindKnowledge, index.KindSkill, index.KindEpisode, index.KindConversation}}, logger)
	return &system{
		name: name,
		search: func(ctx context.Context, q string, k int) ([]string, error) {
			hits, err := ix.Search(ctx, index.Query{Text: q, Limit: k})
			if err != nil {
				return nil, err
			}
			out := make([]string, len(hits))
			for i, h := range hits {
				out[i] = h.Doc.Path
			}
			return out, nil
		},
		hits: func(ctx context.Context, q string, k int) ([]index.Hit, error) {
			return ix.Search(ctx, index.Query{Text: q, Limit: k})
		},
		gate:  g,
		quiet: embed.IsNoisy(emb),
		close: func() { ix.Close(); os.RemoveAll(tmp) },
	}, nil
}

// plainTokens is the baseline's textbook analyzer: lowercase, split on
// anything that is not a letter or digit, CJK runs as overlapping bigrams
// (Lucene's CJK analyzer), no stopwords, no stemming.
func plainTokens(s string) []string {
	var out []string
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) > 0 {
			out = append(out, string(word))
			word = word[:0]
		}
	}
	flushCJK := func() {
		switch {
		case len(cjk) == 1:
			out = append(out, string(cjk))
		case len(cjk) > 1:
			for i := 0; i+2 <= len(cjk); i++ {
				out = append(out, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushCJK()
			word = append(word, r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	return out
}

// bm25System is the textbook baseline: Okapi BM25 (k1 1.2, b 0.75) over
// name+description+body as one field with plainTokens; no field weights,
// no pinning, no literal bonus, no candidate rules, no vectors.
//
// withContext appends each doc's Context (the previous turn) to that one
// field: the baseline given the same turn representation as the index.
func bm25System(docs []index.Doc, withContext bool) *system {
	type doc struct {
		path string
		tf   map[string]int
		dl   int
	}
	var ds []doc
	df := map[string]int{}
	total := 0
	for _, d := range docs {
		x := doc{path: d.Path, tf: map[string]int{}}
		text := d.Name + "\n" + d.Description + "\n" + d.Body
		if withContext {
			text += "\n" + d.Context
		}
		for _, t := range plainTokens(text) {
			x.tf[t]++
			x.dl++
		}
		for t := range x.tf {
			df[t]++
		}
		total += x.dl
		ds = append(ds, x)
	}
	avg := float64(total) / float64(len(ds))
	n := float64(len(ds))
	name := "bm25 baseline"
	if withContext {
		name += " (+ previous turn)"
	}
	return &system{name: name, search: func(_ context.Context, q string, k int) ([]string, error) {
		seen := map[string]bool{}
		type scored struct {
			path  string
			score float64
		}
		var res []scored
		scores := make([]float64, len(ds))
		for _, t := range plainTokens(q) {
			if seen[t] {
				continue
			}
			seen[t] = true
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			for i, d := range ds {
				if tf := float64(d.tf[t]); tf > 0 {
					scores[i] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(d.dl)/avg))
				}
			}
		}
		for i, s := range scores {
			if s > 0 {
				res = append(res, scored{ds[i].path, s})
			}
		}
		sort.SliceStable(res, func(i, j int) bool { return res[i].score > res[j].score })
		var out []string
		for i := 0; i < len(res) && i < k; i++ {
			out = append(out, res[i].path)
		}
		return out, nil
	}, close: func() {}}
}

// tally is one system's results on one slice of a query set.
type tally struct {
	hit1, hit3, hit5 map[string][2]int // tier → hits, total
	hints            int               // hints given on non-absent cues
	good             int               // of which gold
	falseAbs         int               // absent cues that produced a hint
	absent           int
	hinted           map[string][2]int // tier → cues whose hints include a gold entry, cues
	toolHints        [2]int            // hints on touching tool calls, of which gold
}

func newTally() *tally {
	return &tally{hit1: map[string][2]int{}, hit3: map[string][2]int{}, hit5: map[string][2]int{}, hinted: map[string][2]int{}}
}

// row is one system's results on one set: the whole set and each half.
type row struct {
	name  string
	quiet bool
	by    map[string]*tally // "all", halfTune, halfHeld
	ranks []int             // per query: 1-based rank of the first gold entry in the top 5, 0 when absent
}

// Query halves: scorer changes are tuned on halfTune only; halfHeld is
// reported to show whether a change generalises.
const (
	halfTune = "tune"
	halfHeld = "held-out"
)

// assignHalves splits the queries deterministically into two halves by an
// FNV-1a hash of the query text (not file order, which follows the
// conversations): an even hash tunes, an odd one is held out. The parity
// rule keeps every query in its half when queries are added to a set.
func assignHalves(qs []evalQuery) {
	for i := range qs {
		qs[i].Half = halfHeld
		if fnv32(qs[i].halfKey())%2 == 0 {
			qs[i].Half = halfTune
		}
	}
}

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// evaluate runs every query of qs through s; -v listings are limited to
// queries of listHalf ("" = all).
func evaluate(ctx context.Context, s *system, qs []evalQuery, verbose bool, listHalf string, w io.Writer) (row, error) {
	r := row{name: s.name, quiet: s.quiet, by: map[string]*tally{"all": newTally(), halfTune: newTally(), halfHeld: newTally()}}
	for i, q := range qs {
		if q.Tool != "" && s.gate == nil {
			r.ranks = append(r.ranks, 0)
			continue // tool calls measure hints only
		}
		res, err := s.search(ctx, q.Q, 5)
		if err != nil {
			return r, err
		}
		gold := map[string]bool{}
		for _, g := range q.Gold {
			gold[g] = true
		}
		list := verbose && (listHalf == "" || listHalf == q.Half)
		rank := 0
		for j, p := range res {
			if gold[p] {
				rank = j + 1
				break
			}
		}
		r.ranks = append(r.ranks, rank)
		ts := []*tally{r.by["all"], r.by[q.Half]}
		if q.Tier != "absent" && q.Tool == "" {
			for _, t := range ts {
				for k, m := range map[int]map[string][2]int{1: t.hit1, 3: t.hit3, 5: t.hit5} {
					v := m[q.Tier]
					v[1]++
					if rank > 0 && rank <= k {
						v[0]++
					}
					m[q.Tier] = v
				}
			}
			if list && rank != 1 {
				fmt.Fprintf(w, "  miss [%s] %s %q → %v (want %v)\n", s.name, q.Tier, q.Q, head(res, 3), q.Gold)
			}
		}
		if s.gate == nil {
			continue
		}
		var hint assoc.Result
		if q.Tool != "" {
			hint, err = s.gate.Action(ctx, fmt.Sprintf("eval-%d", i), q.Tool, q.Args)
		} else {
			hint, err = s.gate.Thought(ctx, fmt.Sprintf("eval-%d", i), q.Q)
		}
		if err != nil {
			return r, err
		}
		if margins && len(q.Gold) > 0 && (listHalf == "" || listHalf == q.Half) {
			printMargin(ctx, w, s, q, hint)
		}
		if q.Tier == "ordinary" {
			for _, t := range ts {
				v := t.hinted["ordinary"] // hinted ordinary calls (all false), calls
				v[1]++
				if len(hint.Items) > 0 {
					v[0]++
				}
				t.hinted["ordinary"] = v
			}
			if list && len(hint.Items) > 0 {
				fmt.Fprintf(w, "  false hint [%s] tool call %q → %s\n", s.name, q.Q, hint.Items[0].Name)
			}
			continue
		}
		if q.Tier == "absent" {
			for _, t := range ts {
				t.absent++
				if len(hint.Items) > 0 {
					t.falseAbs++
				}
			}
			if list && len(hint.Items) > 0 {
				fmt.Fprintf(w, "  false hint [%s] %q → %s\n", s.name, q.Q, hint.Items[0].Name)
			}
			continue
		}
		found := false
		for _, it := range hint.Items {
			found = found || gold[it.Path]
		}
		for _, t := range ts {
			v := t.hinted[q.Tier]
			v[1]++
			if found {
				v[0]++
			}
			t.hinted[q.Tier] = v
		}
		if list && !found {
			fmt.Fprintf(w, "  no hint [%s] %s %q\n", s.name, q.Tier, q.Q)
		}
		for _, it := range hint.Items {
			for _, t := range ts {
				if q.Tool != "" {
					t.toolHints[0]++
					if gold[it.Path] {
						t.toolHints[1]++
					}
					continue
				}
				t.hints++
				if gold[it.Path] {
					t.good++
				}
			}
			if list && !gold[it.Path] {
				fmt.Fprintf(w, "  wrong hint [%s] %q → %s\n", s.name, q.Q, it.Name)
			}
		}
	}
	return r, nil
}

// margins is -margins: print where each cue's gold entry lands against
// the hint threshold.
var margins bool

// printMargin prints the best gold hybrid among the top 8 and the best
// other one, so near misses of the threshold are visible.
func printMargin(ctx context.Context, w io.Writer, s *system, q evalQuery, hint assoc.Result) {
	hits, err := s.hits(ctx, q.Q, 8)
	if err != nil {
		return
	}
	gold := map[string]bool{}
	for _, g := range q.Gold {
		gold[g] = true
	}
	g, o := -1.0, -1.0
	for _, h := range hits {
		if gold[h.Doc.Path] {
			g = max(g, h.Hybrid)
		} else {
			o = max(o, h.Hybrid)
		}
	}
	hinted := "no hint"
	for _, it := range hint.Items {
		if gold[it.Path] {
			hinted = "HINT"
		}
	}
	fmt.Fprintf(w, "  margin [%s] %s/%s gold %.3f other %.3f %s %q\n", s.name, q.Tier, q.Half, g, o, hinted, q.Q)
}

// frac is "hits/total (share)".
func frac(v [2]int) string {
	if v[1] == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.2f)", v[0], v[1], float64(v[0])/float64(v[1]))
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func pct(v [2]int) string {
	if v[1] == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(v[0])/float64(v[1]))
}

// embedders lists the embedders this machine can run: off and hash
// always, http when SOMNI_EMBED_BASE_URL/MODEL are set, local when it loads.
func embedders(logger *slog.Logger, modelDir string) []embed.Embedder {
	out := []embed.Embedder{embed.Off(), embed.Hash()}
	if os.Getenv("SOMNI_EMBED_BASE_URL") != "" && os.Getenv("SOMNI_EMBED_MODEL") != "" {
		e, err := embed.New(embed.Config{Provider: "http", BaseURL: os.Getenv("SOMNI_EMBED_BASE_URL"),
			Model: os.Getenv("SOMNI_EMBED_MODEL"), APIKeyEnv: "SOMNI_EMBED_API_KEY"}, logger)
		if err == nil {
			out = append(out, e)
		} else {
			logger.Warn("http embedder not usable", "err", err)
		}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if modelDir == "" {
		modelDir = "models/use-lite"
	}
	// only the model itself loads files: the hash fallback New returns when
	// it cannot load is already in the list
	if e, err := embed.New(embed.Config{Provider: "local", ModelDir: modelDir}, quiet); err == nil {
		if _, model := e.(embed.FileBacked); model {
			out = append(out, e)
		}
	}
	return out
}

func run(ctx context.Context, w io.Writer, logger *slog.Logger, dir, modelDir string, calibrate, verbose bool) error {
	notes, nq, err := loadNotes(dir)
	if err != nil {
		return err
	}
	turns, cq, err := loadConversation(dir)
	if err != nil {
		return err
	}
	tq, err := loadToolCalls(dir, notes, nq)
	if err != nil {
		return err
	}
	assignHalves(nq)
	assignHalves(cq)
	assignHalves(tq)
	embs := embedders(logger, modelDir)
	defer func() {
		for _, e := range embs {
			e.Close()
		}
	}()
	if calibrate {
		return runCalibration(ctx, w, embs, notes, nq, turns, cq)
	}
	listHalf := ""
	switch listHalfFlag {
	case "all", "":
	case "tune":
		listHalf = halfTune
	case "held", "heldout":
		listHalf = halfHeld
	default:
		return fmt.Errorf("-half %q: want all, tune or heldout", listHalfFlag)
	}
	if listHalf != "" {
		nq, cq, tq = keepHalf(nq, listHalf), keepHalf(cq, listHalf), keepHalf(tq, listHalf)
	}
	sets := map[string]bool{}
	for _, name := range strings.Split(setsFlag, ",") {
		sets[strings.TrimSpace(name)] = true
	}
	fmt.Fprint(w, "# somni recall eval\n\n")
	if sets["dialogues"] {
		ds, err := loadDialogues(dir)
		if err != nil {
			return err
		}
		if err := runDialogues(ctx, w, logger, ds, embs, listHalf, verbose); err != nil {
			return err
		}
	}
	if !sets["notes"] {
		return nil
	}
	nqAll := append(append([]evalQuery(nil), nq...), tq...) // notes queries, then tool calls
	fmt.Fprintf(w, "## notes: %d entries, %d queries · conversation: %d turns, %d questions\n\n",
		len(notes), len(nq), len(turns), len(cq))
	var noteRows, convRows []row
	for _, set := range []struct {
		docs []index.Doc
		qs   []evalQuery
		rows *[]row
	}{{notes, nqAll, &noteRows}, {turns, cq, &convRows}} {
		systems := []*system{bm25System(set.docs, false)}
		if set.docs[len(set.docs)-1].Context != "" {
			systems = append(systems, bm25System(set.docs, true))
		}
		for _, e := range embs {
			s, err := indexSystem(ctx, "hybrid/"+e.ID(), e, set.docs, logger, time.Time{})
			if err != nil {
				return fmt.Errorf("%s: %w", e.ID(), err)
			}
			systems = append(systems, s)
		}
		for _, s := range systems {
			if explainQ != "" {
				explain(ctx, w, s, set.qs, explainQ)
			}
			r, err := evaluate(ctx, s, set.qs, verbose, listHalf, w)
			s.close()
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			*set.rows = append(*set.rows, r)
		}
	}
	for _, part := range []struct{ key, title string }{
		{"all", "all queries"},
		{halfHeld, fmt.Sprintf("held-out half (%d notes queries, %d questions, %d tool calls)", countHalf(nq, halfHeld), countHalf(cq, halfHeld), countCalls(tq, halfHeld))},
		{halfTune, fmt.Sprintf("tuning half (%d notes queries, %d questions, %d tool calls)", countHalf(nq, halfTune), countHalf(cq, halfTune), countCalls(tq, halfTune))},
	} {
		if listHalf != "" && part.key != listHalf {
			continue // -half: only that half was evaluated
		}
		fmt.Fprintf(w, "## curated notes, %s (hit@1 / hit@3 per tier)\n\n", part.title)
		fmt.Fprintln(w, "| system | exact | domain | generic | cross-lingual | all | paraphrase | false hints (absent) | hint precision | hints |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
		for _, r := range noteRows {
			t := r.by[part.key]
			all1, all3 := sum(t.hit1, noteTiers...), sum(t.hit3, noteTiers...)
			fmt.Fprintf(w, "| %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s | %s | %s |\n", r.name,
				pct(t.hit1["exact"]), pct(t.hit3["exact"]), pct(t.hit1["domain"]), pct(t.hit3["domain"]),
				pct(t.hit1["generic"]), pct(t.hit3["generic"]), pct(t.hit1["cross"]), pct(t.hit3["cross"]),
				pct(all1), pct(all3), pct(t.hit1["paraphrase"]), pct(t.hit3["paraphrase"]),
				hintCell(r, t), precCell(r, t), hintCount(r, t))
		}
		fmt.Fprintf(w, "\n## hint recall, %s (cues whose hints include a gold entry)\n\n", part.title)
		fmt.Fprintln(w, "| system | exact | domain | generic | cross-lingual | paraphrase | tool calls touching memory | false hints, ordinary tool calls | per 50 | tool-call hint precision |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
		for _, r := range noteRows {
			if strings.HasPrefix(r.name, "bm25 baseline") {
				continue
			}
			t := r.by[part.key]
			o := t.hinted["ordinary"]
			per50 := "–"
			if o[1] > 0 {
				per50 = fmt.Sprintf("%.1f", 50*float64(o[0])/float64(o[1]))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %d/%d | %s | %s |\n", r.name,
				pct(t.hinted["exact"]), pct(t.hinted["domain"]), pct(t.hinted["generic"]), pct(t.hinted["cross"]),
				pct(t.hinted["paraphrase"]), frac(t.hinted["touch"]), o[0], o[1], per50, pct([2]int{t.toolHints[1], t.toolHints[0]}))
		}
		fmt.Fprintf(w, "\n## conversation turns, %s (hit@1 / hit@3 / hit@5)\n\n", part.title)
		fmt.Fprintln(w, "| system | hit@1 | hit@3 | hit@5 | hint precision | hints |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|")
		for _, r := range convRows {
			t := r.by[part.key]
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.name, pct(t.hit1["conversation"]),
				pct(t.hit3["conversation"]), pct(t.hit5["conversation"]), precCell(r, t), hintCount(r, t))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Hints are measured with the gate forced on (threshold %.2f, gap %.2f, max %d, fresh session per cue);\n",
		threshold, assoc.DefaultGap, assoc.DefaultMaxItems)
	fmt.Fprintln(w, "embedders marked (quiet) have hints withheld in production because of their false-hint rate.")
	if ranks {
		for _, set := range []struct {
			qs   []evalQuery
			rows []row
		}{{nq, noteRows}, {cq, convRows}} {
			fmt.Fprintln(w)
			fmt.Fprint(w, "rank of first gold in top 5 (0 = none)")
			for _, r := range set.rows {
				fmt.Fprintf(w, "\t%s", r.name)
			}
			fmt.Fprintln(w)
			for i, q := range set.qs {
				if q.Tier == "absent" || listHalf != "" && q.Half != listHalf {
					continue
				}
				fmt.Fprintf(w, "%s/%s %q", q.Tier, q.Half, q.Q)
				for _, r := range set.rows {
					fmt.Fprintf(w, "\t%d", r.ranks[i])
				}
				fmt.Fprintln(w)
			}
		}
	}
	return nil
}

// keepHalf drops the queries of the other half (-half).
func keepHalf(qs []evalQuery, half string) []evalQuery {
	var out []evalQuery
	for _, q := range qs {
		if q.Half == half {
			out = append(out, q)
		}
	}
	return out
}

func countCalls(qs []evalQuery, half string) int {
	n := 0
	for _, q := range qs {
		if q.Half == half {
			n++
		}
	}
	return n
}

func countHalf(qs []evalQuery, half string) int {
	n := 0
	for _, q := range qs {
		if q.Half == half && q.Tier != "absent" {
			n++
		}
	}
	return n
}

// noteTiers are the curated notes' tiers with a gold entry; "absent" cues
// only count false hints.
var noteTiers = []string{"exact", "domain", "generic", "cross"}

func sum(m map[string][2]int, tiers ...string) [2]int {
	var s [2]int
	for _, t := range tiers {
		s[0] += m[t][0]
		s[1] += m[t][1]
	}
	return s
}

func hintCell(r row, t *tally) string {
	if t.absent == 0 {
		return "–"
	}
	s := fmt.Sprintf("%d/%d", t.falseAbs, t.absent)
	if r.quiet {
		s += " (quiet)"
	}
	return s
}

func precCell(r row, t *tally) string {
	if t.hints == 0 {
		if strings.HasPrefix(r.name, "bm25 baseline") {
			return "–"
		}
		return "no hints"
	}
	return fmt.Sprintf("%.2f", float64(t.good)/float64(t.hints))
}

func hintCount(r row, t *tally) string {
	if strings.HasPrefix(r.name, "bm25 baseline") {
		return "–"
	}
	return strconv.Itoa(t.hints)
}

// runCalibration prints, per vector embedder, the cosine distribution of
// unrelated pairs (absent-topic cue × every note; question × turns of
// other conversations) and of gold (query, entry) pairs
// over both eval sets: the floor should sit above unrelated noise, the
// span should bring typical gold pairs near saturation.
func runCalibration(ctx context.Context, w io.Writer, embs []embed.Embedder, notes []index.Doc, nq []evalQuery, turns []index.Doc, cq []evalQuery) error {
	for _, e := range embs {
		if embed.IsOff(e) {
			continue
		}
		var unrelated, gold []float64
		for _, set := range []struct {
			docs []index.Doc
			qs   []evalQuery
		}{{notes, nq}, {turns, cq}} {
			texts := make([]string, 0, len(set.docs))
			for _, d := range set.docs {
				texts = append(texts, index.EmbedText(d))
			}
			qtexts := make([]string, 0, len(set.qs))
			for _, q := range set.qs {
				qtexts = append(qtexts, q.Q)
			}
			vecs, err := e.Embed(ctx, texts)
			if err != nil {
				return fmt.Errorf("%s: %w", e.ID(), err)
			}
			// queries in the form searches use (a BERT query instruction)
			embedQ := e.Embed
			if qe, ok := e.(embed.QueryEmbedder); ok {
				embedQ = qe.EmbedQueries
			}
			qvecs, err := embedQ(ctx, qtexts)
			if err != nil {
				return fmt.Errorf("%s: %w", e.ID(), err)
			}
			if len(vecs) != len(texts) || len(qvecs) != len(qtexts) {
				return errors.New("embedder returned wrong count")
			}
			vecs = append(vecs, qvecs...)
			for qi, q := range set.qs {
				qv := vecs[len(set.docs)+qi]
				isGold := map[string]bool{}
				for _, g := range q.Gold {
					isGold[g] = true
				}
				for di, d := range set.docs {
					c := cos(qv, vecs[di])
					switch {
					case isGold[d.Path]:
						gold = append(gold, c)
					case q.Tier == "absent" || q.Tier == "conversation" && session(d.Path) != session(q.Gold[0]):
						// truly unrelated: absent-topic cues against every note, and
						// questions against turns of other conversations (non-gold
						// notes of a present topic are often related, so excluded)
						unrelated = append(unrelated, c)
					}
				}
			}
		}
		sort.Float64s(unrelated)
		sort.Float64s(gold)
		fmt.Fprintf(w, "%s: unrelated n=%d mean %.3f p50 %.3f p90 %.3f p99 %.3f p99.5 %.3f p99.9 %.3f max %.3f\n", e.ID(), len(unrelated),
			mean(unrelated), q(unrelated, .5), q(unrelated, .9), q(unrelated, .99), q(unrelated, .995), q(unrelated, .999), unrelated[len(unrelated)-1])
		fmt.Fprintf(w, "%s: gold      n=%d mean %.3f p10 %.3f p50 %.3f p90 %.3f\n", e.ID(), len(gold),
			mean(gold), q(gold, .1), q(gold, .5), q(gold, .9))
		cal := embed.CalibrationOf(e)
		fmt.Fprintf(w, "%s: calibration in use floor %.2f span %.2f\n", e.ID(), cal.Floor, cal.Span)
	}
	return nil
}

// session is the conversation a turn path belongs to.
func session(p string) string { s, _, _ := strings.Cut(p, "#"); return s }

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func q(sorted []float64, p float64) float64 {
	return sorted[int(math.Min(float64(len(sorted)-1), p*float64(len(sorted))))]
}
