package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/somni-dev/somni/internal/testutil"
)

// dot is the cosine of two unit vectors.
func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// namedEmbedder is an embedder under another ID.
type namedEmbedder struct {
	Embedder
	id string
}

func (n namedEmbedder) ID() string { return n.id }

func TestHashEmbedder(t *testing.T) {
	ctx := context.Background()
	vecs, err := Hash().Embed(ctx, []string{
		"postgres listens on port 5432",
		"the postgres database port",
		"buy milk and eggs tomorrow",
		"数据库连接池满了",
		"连接池配置太小导致数据库超时",
		"",
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs[:5] {
		if len(v) != HashDim {
			t.Fatalf("dim %d", len(v))
		}
		if n := dot(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("vec %d norm² %.6f", i, n)
		}
	}
	if dot(vecs[5], vecs[5]) != 0 {
		t.Error("empty text should embed to zero")
	}
	cases := []struct {
		a, b, c int // cos(a,b) must exceed cos(a,c)
	}{{0, 1, 2}, {3, 4, 2}, {1, 0, 3}}
	for _, tc := range cases {
		if dot(vecs[tc.a], vecs[tc.b]) <= dot(vecs[tc.a], vecs[tc.c]) {
			t.Errorf("cos(%d,%d)=%.3f not above cos(%d,%d)=%.3f", tc.a, tc.b, dot(vecs[tc.a], vecs[tc.b]),
				tc.a, tc.c, dot(vecs[tc.a], vecs[tc.c]))
		}
	}
	if cal := CalibrationOf(Hash()); cal != hashCalibration {
		t.Errorf("hash calibration %+v", cal)
	}
}

// fakeEmbeddings serves an OpenAI-compatible /embeddings endpoint with
// vectors derived from the text length, returned in reverse order to
// check that the client reorders by index.
func fakeEmbeddings(t *testing.T, wantKey string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.Error(w, "not found", 404)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+wantKey {
			http.Error(w, `{"error":{"message":"bad key"}}`, 401)
			return
		}
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if req.Model == "broken" {
			http.Error(w, `{"error":{"message":"model overloaded"}}`, 503)
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, item{"embedding", i, []float32{float32(len(req.Input[i])), 3, 4}})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
}

func TestHTTPEmbedder(t *testing.T) {
	srv := fakeEmbeddings(t, "sekrit")
	defer srv.Close()
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"ok", Config{Provider: "http", BaseURL: srv.URL + "/v1", Model: "m1", APIKey: "sekrit"}, ""},
		{"bad key", Config{Provider: "http", BaseURL: srv.URL + "/v1", Model: "m1", APIKey: ""}, "401"},
		{"server error", Config{Provider: "http", BaseURL: srv.URL + "/v1", Model: "broken", APIKey: "sekrit"}, "overloaded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(tc.cfg, testutil.QuietLogger())
			if err != nil {
				t.Fatal(err)
			}
			if e.ID() != "http:"+tc.cfg.Model {
				t.Errorf("ID %q", e.ID())
			}
			texts := make([]string, 70) // crosses the 64-text batch
			for i := range texts {
				texts[i] = strings.Repeat("x", i)
			}
			vecs, err := e.Embed(context.Background(), texts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(vecs) != 70 {
				t.Fatalf("%d vecs", len(vecs))
			}
			for i, v := range vecs {
				l := max(i, 1) // empty input is sent as one space
				n := math.Sqrt(float64(l*l + 25))
				if math.Abs(float64(v[0])-float64(l)/n) > 1e-5 || math.Abs(float64(v[1])-3/n) > 1e-5 {
					t.Fatalf("vec %d = %v: wrong order or not normalised", i, v)
				}
			}
		})
	}
}

func TestNew(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	saved := localFactory
	defer func() { localFactory = saved }()
	tests := []struct {
		name    string
		cfg     Config
		factory func(Config) (Embedder, error)
		wantID  string
		wantErr bool
		wantLog string
		wantDeg string
	}{
		{name: "off", cfg: Config{Provider: "off"}, wantID: "off"},
		{name: "hash", cfg: Config{Provider: "hash"}, wantID: Hash().ID()},
		{name: "local fails", cfg: Config{Provider: "local", ModelDir: "/nope"},
			factory: func(Config) (Embedder, error) { return nil, errors.New("no model.onnx") },
			wantID:  Hash().ID(), wantLog: "no model.onnx", wantDeg: "using hash: no model.onnx"},
		{name: "local ok", cfg: Config{Provider: ""},
			factory: func(Config) (Embedder, error) { return namedEmbedder{Embedder: Hash(), id: "local:x"}, nil },
			wantID:  "local:x"},
		{name: "http without model", cfg: Config{Provider: "http", BaseURL: "http://x"}, wantErr: true},
		{name: "unknown", cfg: Config{Provider: "magic"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs.Reset()
			localFactory = tc.factory
			e, err := New(tc.cfg, logger)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want error, got %v", e.ID())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.ID() != tc.wantID {
				t.Errorf("ID %q, want %q", e.ID(), tc.wantID)
			}
			if got := Degradation(e); !strings.Contains(got, tc.wantDeg) || (tc.wantDeg == "" && got != "") {
				t.Errorf("Degradation %q, want %q", got, tc.wantDeg)
			}
			if !strings.Contains(logs.String(), tc.wantLog) || (tc.wantLog == "" && logs.Len() > 0) {
				t.Errorf("log %q, want %q", logs.String(), tc.wantLog)
			}
		})
	}
}

// TestNoisy: hints are withheld exactly for USE-lite representations the
// eval has not let through; the other embedders do not judge themselves.
func TestNoisy(t *testing.T) {
	uselite := func(name, version string) Embedder {
		return &localEmbedder{cfg: localModelConfig{Name: name, Family: localFamilyUSELite}, fuseVersion: version}
	}
	bert := func(name string) Embedder {
		return &localEmbedder{cfg: localModelConfig{Name: name, Family: localFamilyBERT}}
	}
	for _, tc := range []struct {
		name  string
		e     Embedder
		noisy bool
	}{
		{"raw use-lite", uselite("use-lite", ""), true},                           // 4/12 false hints
		{"use-lite+cjk1", uselite("use-lite", "cjk1"), true},                      // 1/12 false hints vs hash 0/12
		{"use-lite+dense2", uselite("use-lite", "dense2"), false},                 // 0/12, precision 1.00, like hash
		{"use-lite+dense2+cedict1", uselite("use-lite", "dense2+cedict1"), false}, // 0/24, precision 0.95
		{"use-lite+dense2+cedict2", uselite("use-lite", "dense2+cedict2"), true},  // not measured yet
		{"use-lite+dense3", uselite("use-lite", "dense3"), true},                  // not measured yet
		{"another use-lite folder", uselite("use-lite-v2", "dense2"), true},
		{"USE-lite family elsewhere", uselite("my-encoder", "dense2"), false},
		{"bert", bert("bge-small-zh-v1.5"), false},
		{"bert in a use-lite folder", bert("use-lite-bert"), true},
		{"hash", Hash(), false},
		{"off", Off(), false},
		{"http", &httpEmbedder{model: "bge-m3"}, false},
		{"fallback", fallback{Embedder: Hash(), reason: "no model"}, false},
		{"nil", nil, false},
	} {
		if got := IsNoisy(tc.e); got != tc.noisy {
			t.Errorf("%s: IsNoisy = %v, want %v", tc.name, got, tc.noisy)
		}
	}
}
