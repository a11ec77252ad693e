package jsonfast

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type params struct {
	SessionID string  `json:"sessionId"`
	Limit     int     `json:"limit"`
	Score     float64 `json:"score"`
	Flag      bool    `json:"flag"`
	Tags      []string
}

// TestSameAsEncodingJSON: on every input, Unmarshal accepts what
// encoding/json accepts, refuses what it refuses with its message, and
// decodes the same values.
func TestSameAsEncodingJSON(t *testing.T) {
	inputs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"session.append","params":{"sessionId":"s","text":"中文 \u0000 \ud83d\ude00"}}`,
		`{"ID":7,"METHOD":"x"}`, // keys match fields case-insensitively
		`{"id":1,"id":2}`,       // the last duplicate wins
		` {"id":1} `,
		`{"id":1}x`, `{"id":1}{}`, `{"id":}`, `{"id":1,}`, `{id:1}`, `{"id":1`, `{"id":"\x"}`,
		`{"id":"\ud800"}`, `{"id":01}`, `{"id":1.}`, `{"id":-}`, `{"id":1e}`, `{"id":NaN}`, `{"id":tru}`,
		`{"params":[1,2,]}`, `{"params":{"a":1}}}`, `[]`, `null`, `""`, ``, `{"a":"` + "\x01" + `"}`,
		`{"sessionId":5}`, `{"limit":"5"}`, `{"limit":1.5}`, `{"limit":99999999999999999999}`,
		`{"score":1e400}`, `{"flag":"true"}`, `{"Tags":["a",1]}`, `{"Tags":null,"limit":null}`,
		`{"sessionId":"s","extra":{"deep":[[[[]]]]}}`, "{\"sessionId\":\"a\tb\"}", "{\"sessionId\":\"\xff\xfe\"}",
	}
	// Nesting encoding/json refuses (over 10,000 levels), and just under it.
	for _, depth := range []int{4999, 5001, 10_001, 20_000} {
		inputs = append(inputs, `{"params":`+strings.Repeat(`{"a":`, depth)+"1"+strings.Repeat("}", depth)+"}",
			strings.Repeat("[", depth)+strings.Repeat("]", depth))
	}
	for _, in := range inputs {
		for _, mk := range []func() any{
			func() any { return new(envelope) },
			func() any { return new(params) },
			func() any { return &map[string]json.RawMessage{} },
			func() any { return new(any) },
		} {
			want, got := mk(), mk()
			wantErr := json.Unmarshal([]byte(in), want)
			gotErr := Unmarshal([]byte(in), got)
			if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
				t.Errorf("%q into %T: error %v, encoding/json %v", in, want, gotErr, wantErr)
				continue
			}
			if wantErr == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("%q into %T: %+v, encoding/json %+v", in, want, got, want)
			}
		}
	}
}
