package embed

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recEmbedder records how each text reached it ("embed:", "query:",
// "weighted:" and the text) and answers with hash vectors, or fails with
// err, or spoils its answer as bad says.
type recEmbedder struct {
	mu    sync.Mutex
	calls []string
	err   error
	bad   func(vecs [][]float32) [][]float32 // nil: the vectors as they are
	floor atomic.Value                       // float64; nil: not Calibrated
}

func (r *recEmbedder) ID() string   { return "rec" }
func (r *recEmbedder) Close() error { return nil }

func (r *recEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return r.answer(ctx, "embed:", texts)
}

func (r *recEmbedder) answer(ctx context.Context, how string, texts []string) ([][]float32, error) {
	r.mu.Lock()
	for _, t := range texts {
		r.calls = append(r.calls, how+t)
	}
	r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	vecs, err := Hash().Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if r.bad != nil {
		vecs = r.bad(vecs)
	}
	return vecs, nil
}

func (r *recEmbedder) called() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// queryForm is recEmbedder with a query form (QueryEmbedder).
type queryForm struct{ *recEmbedder }

func (q queryForm) EmbedQueries(ctx context.Context, qs []string) ([][]float32, error) {
	return q.answer(ctx, "query:", qs)
}

// weighted is recEmbedder with weighted queries (TermWeighted).
type weighted struct{ *recEmbedder }

func (w weighted) EmbedQueryWeighted(ctx context.Context, q string, _ TermWeights) ([]float32, error) {
	v, err := w.answer(ctx, "weighted:", []string{q})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// calibrated is recEmbedder knowing its floor, which may change after
// construction, as a BERT model's does once its background load has
// measured it.
type calibrated struct{ *recEmbedder }

func (c calibrated) Calibration() Calibration {
	return Calibration{Floor: c.floor.Load().(float64), Span: 0.3}
}

// fixedClock is a clock a test moves by hand.
type fixedClock struct{ ns atomic.Int64 }

func newClock() *fixedClock {
	c := &fixedClock{}
	c.ns.Store(time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fixedClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fixedClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func nanFirst(vecs [][]float32) [][]float32 {
	vecs[0][0] = float32(math.NaN())
	return vecs
}

func infLast(vecs [][]float32) [][]float32 {
	vecs[len(vecs)-1][1] = float32(math.Inf(1))
	return vecs
}

func dropOne(vecs [][]float32) [][]float32 { return vecs[1:] }

var errServerDown = errors.New("embedding server down")

func TestGuardQuery(t *testing.T) {
	idf := func(string) float64 { return 1 }
	tests := []struct {
		name      string
		wrap      func(*recEmbedder) Embedder // nil: Off
		err       error                       // the embedder fails with it
		bad       func([][]float32) [][]float32
		text      string
		w         TermWeights
		cancelled bool // the caller's ctx ended before the call
		down      bool // backing off before the call
		wantCalls []string
		wantVec   bool
		wantErr   string
		wantDown  bool
	}{
		{name: "stored texts only: Embed", wrap: plain, text: "kafka migration",
			wantCalls: []string{"embed:kafka migration"}, wantVec: true},
		{name: "query form: EmbedQueries", wrap: withQueryForm, text: "kafka migration",
			wantCalls: []string{"query:kafka migration"}, wantVec: true},
		{name: "term-weighted with weights", wrap: withWeights, text: "kafka migration", w: idf,
			wantCalls: []string{"weighted:kafka migration"}, wantVec: true},
		{name: "term-weighted without weights: Embed", wrap: withWeights, text: "kafka migration",
			wantCalls: []string{"embed:kafka migration"}, wantVec: true},
		{name: "off: no vector, no error", text: "kafka migration"},
		{name: "blank text: no call", wrap: plain, text: " \n\t"},
		{name: "backing off: no call", wrap: plain, text: "kafka migration", down: true, wantDown: true},
		{name: "embedder fails: backs off", wrap: plain, err: errServerDown, text: "kafka migration",
			wantCalls: []string{"embed:kafka migration"},
			wantErr:   "embed query (keyword-only for 30s): embedding server down", wantDown: true},
		{name: "NaN component: backs off", wrap: withQueryForm, bad: nanFirst, text: "kafka migration",
			wantCalls: []string{"query:kafka migration"},
			wantErr:   "embed query (keyword-only for 30s): vector 0 has a non-finite component", wantDown: true},
		{name: "no vector: backs off", wrap: plain, bad: dropOne, text: "kafka migration",
			wantCalls: []string{"embed:kafka migration"},
			wantErr:   "embed query (keyword-only for 30s): got 0 vectors for 1 texts", wantDown: true},
		{name: "caller's ctx ended: no backoff", wrap: plain, text: "kafka migration", cancelled: true,
			wantCalls: []string{"embed:kafka migration"}, wantErr: "embed query: hash embed: context canceled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recEmbedder{err: tc.err, bad: tc.bad}
			var emb Embedder = Off()
			if tc.wrap != nil {
				emb = tc.wrap(rec)
			}
			g := NewGuard(emb, nil, newClock().now)
			if tc.down {
				g.MarkDown()
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.cancelled {
				cancel()
			}
			defer cancel()
			v, err := g.Query(ctx, tc.text, tc.w)
			if got := errText(err); got != tc.wantErr {
				t.Errorf("err = %q, want %q", got, tc.wantErr)
			}
			if (v != nil) != tc.wantVec {
				t.Errorf("vector %v, want one: %v", v != nil, tc.wantVec)
			}
			if got := rec.called(); strings.Join(got, "|") != strings.Join(tc.wantCalls, "|") {
				t.Errorf("calls %q, want %q", got, tc.wantCalls)
			}
			if g.Down() != tc.wantDown {
				t.Errorf("down = %v, want %v", g.Down(), tc.wantDown)
			}
		})
	}
}

func plain(r *recEmbedder) Embedder         { return r }
func withQueryForm(r *recEmbedder) Embedder { return queryForm{r} }
func withWeights(r *recEmbedder) Embedder   { return weighted{r} }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestGuardTexts: a batch comes back checked, its errors as they came
// (the caller wraps them), and it never starts the backoff itself.
func TestGuardTexts(t *testing.T) {
	texts := []string{"kafka migration", "redis eviction"}
	tests := []struct {
		name    string
		err     error
		bad     func([][]float32) [][]float32
		wantErr string
	}{
		{name: "good vectors"},
		{name: "embedder fails", err: errServerDown, wantErr: "embedding server down"},
		{name: "one vector short", bad: dropOne, wantErr: "got 1 vectors for 2 texts"},
		{name: "NaN component", bad: nanFirst, wantErr: "vector 0 has a non-finite component"},
		{name: "infinite component", bad: infLast, wantErr: "vector 1 has a non-finite component"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recEmbedder{err: tc.err, bad: tc.bad}
			g := NewGuard(queryForm{rec}, nil, newClock().now)
			vecs, err := g.Texts(context.Background(), texts)
			if got := errText(err); got != tc.wantErr {
				t.Errorf("err = %q, want %q", got, tc.wantErr)
			}
			if tc.err != nil && !errors.Is(err, errServerDown) {
				t.Errorf("err %v does not wrap the embedder's", err)
			}
			if tc.wantErr == "" && len(vecs) != len(texts) || tc.wantErr != "" && vecs != nil {
				t.Errorf("%d vectors with err %v", len(vecs), err)
			}
			if got := rec.called(); strings.Join(got, "|") != "embed:kafka migration|embed:redis eviction" {
				t.Errorf("calls %q, want both texts as stored texts, never the query form", got)
			}
			if g.Down() {
				t.Errorf("Texts started the backoff: that is the caller's call")
			}
		})
	}
}

// TestGuardBackoff: after a failure the embedder is left alone for
// Backoff, queries answering nil at once, and asked again after it.
func TestGuardBackoff(t *testing.T) {
	ctx := context.Background()
	clock := newClock()
	rec := &recEmbedder{err: errServerDown}
	g := NewGuard(rec, nil, clock.now)
	steps := []struct {
		name      string
		advance   time.Duration
		recovered bool
		wantCalls int // calls so far
		wantVec   bool
		wantDown  bool
	}{
		{"failure starts the backoff", 0, false, 1, false, true},
		{"within it: not asked", time.Second, false, 1, false, true},
		{"recovered, still backing off: not asked", Backoff - 2*time.Second, true, 1, false, true},
		{"backoff over: asked again", time.Second, true, 2, true, false},
	}
	for _, st := range steps {
		clock.advance(st.advance)
		if st.recovered {
			rec.err = nil
		}
		v, err := g.Query(ctx, "kafka migration", nil)
		if err != nil && st.advance != 0 {
			t.Errorf("%s: err %v, want none while backing off", st.name, err)
		}
		if got := len(rec.called()); got != st.wantCalls {
			t.Errorf("%s: %d embedding calls, want %d", st.name, got, st.wantCalls)
		}
		if (v != nil) != st.wantVec || g.Down() != st.wantDown {
			t.Errorf("%s: vector %v down %v, want %v %v", st.name, v != nil, g.Down(), st.wantVec, st.wantDown)
		}
	}
	g.MarkDown()
	clock.advance(Backoff - 1)
	if !g.Down() {
		t.Errorf("MarkDown: up again before Backoff")
	}
	clock.advance(1)
	if g.Down() {
		t.Errorf("MarkDown: still down after Backoff")
	}
}

// TestGuardCalibration: a configured calibration wins over the embedder's
// own; without one the embedder's is read at every call, since a model may
// measure it only after it loaded.
func TestGuardCalibration(t *testing.T) {
	tests := []struct {
		name      string
		emb       func(*recEmbedder) Embedder
		override  *Calibration
		floor     float64 // the embedder's own floor after construction
		wantFloor float64
		wantSpan  float64
	}{
		{"embedder's own, read per call", func(r *recEmbedder) Embedder { return calibrated{r} }, nil, 0.99, 0.99, 0.3},
		{"configured wins", func(r *recEmbedder) Embedder { return calibrated{r} }, &Calibration{Floor: 0.1, Span: 0.5}, 0.99, 0.1, 0.5},
		{"configured without a span: ignored", func(r *recEmbedder) Embedder { return calibrated{r} }, &Calibration{Floor: 0.1}, 0.99, 0.99, 0.3},
		{"not calibrated: default", plain, nil, 0, DefaultCalibration.Floor, DefaultCalibration.Span},
		{"nil embedder: off, default", func(*recEmbedder) Embedder { return nil }, nil, 0, DefaultCalibration.Floor, DefaultCalibration.Span},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recEmbedder{}
			rec.floor.Store(DefaultCalibration.Floor)
			override := tc.override
			g := NewGuard(tc.emb(rec), override, newClock().now)
			if override != nil {
				override.Floor = 0.7 // the guard keeps its own copy
			}
			rec.floor.Store(tc.floor)
			if got := g.Calibration(); got != (Calibration{Floor: tc.wantFloor, Span: tc.wantSpan}) {
				t.Errorf("Calibration() = %+v, want floor %v span %v", got, tc.wantFloor, tc.wantSpan)
			}
			if g.Embedder() == nil {
				t.Errorf("Embedder() is nil: a nil embedder must become Off")
			}
		})
	}
}
