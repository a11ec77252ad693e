package embed

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// badEmbeddings answers every request with the body reply returns for
// the request's input, or hangs until the test ends when hang is set.
func badEmbeddings(t *testing.T, hang bool, reply func(n int) any) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if hang {
			select {
			case <-stop:
			case <-r.Context().Done():
			}
			return
		}
		json.NewEncoder(w).Encode(reply(len(req.Input)))
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv, &calls
}

func embResp(vecs ...[]float32) any {
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := []item{}
	for i, v := range vecs {
		data = append(data, item{"embedding", i, v})
	}
	return map[string]any{"object": "list", "data": data, "model": "m"}
}

// TestHTTPEmbedderRejectsBadResponses: a server answering with vectors
// the index cannot compare (mixed or zero dimensions, too few) is an
// error, never stored; a hung server times out instead of stalling recall.
func TestHTTPEmbedderRejectsBadResponses(t *testing.T) {
	tests := []struct {
		name    string
		hang    bool
		reply   func(n int) any
		wantErr string
	}{
		{"ok", false, func(n int) any {
			vs := make([][]float32, n)
			for i := range vs {
				vs[i] = []float32{1, 2, 3}
			}
			return embResp(vs...)
		}, ""},
		{"mixed dims", false, func(n int) any { return embResp([]float32{1, 2, 3}, []float32{1, 2}) }, "dimension"},
		{"empty vector", false, func(n int) any { return embResp([]float32{}, []float32{}) }, "dimension"},
		{"too few", false, func(n int) any { return embResp([]float32{1, 2}) }, "got 1 vectors for 2"},
		{"hangs", true, nil, "deadline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := badEmbeddings(t, tc.hang, tc.reply)
			e, err := NewHTTP(Config{BaseURL: srv.URL, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			e.(*httpEmbedder).timeout = 50 * time.Millisecond
			vecs, err := e.Embed(context.Background(), []string{"alpha", "beta"})
			if tc.wantErr == "" {
				if err != nil || len(vecs) != 2 || len(vecs[1]) != 3 {
					t.Fatalf("vecs %v err %v", vecs, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q (vecs %v)", err, tc.wantErr, vecs)
			}
		})
	}
}
