package toolspec

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

type recallArgs struct {
	Query string   `json:"query" desc:"what to look for"`
	Types string   `json:"types" desc:"comma list of entry types" default:""`
	Limit int      `json:"limit" desc:"max results (1-20)" default:"5" clamp:"1,20"`
	Deep  bool     `json:"deep" desc:"search archives too" default:"false"`
	Boost float64  `json:"boost,omitempty" desc:"score boost"`
	Tags  []string `json:"tags" desc:"tag filter" default:"a, b"`
	skip  string   //nolint:unused // unexported: never an argument
	Note  string   `json:"-"`
}

func TestSchema(t *testing.T) {
	ps, err := Compile[recallArgs]()
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(Spec{Name: "recall_memories", Description: "Recall.", Parameters: ps.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"recall_memories","description":"Recall.","parameters":{"type":"object","properties":{` +
		`"query":{"type":"string","description":"what to look for"},` +
		`"types":{"type":"string","description":"comma list of entry types"},` +
		`"limit":{"type":"integer","description":"max results (1-20)","default":5},` +
		`"deep":{"type":"boolean","description":"search archives too","default":false},` +
		`"boost":{"type":"number","description":"score boost"},` +
		`"tags":{"type":"array","items":{"type":"string"},"description":"tag filter","default":["a","b"]}` +
		`},"required":["query"]}}`
	if string(got) != want {
		t.Fatalf("schema\n got %s\nwant %s", got, want)
	}
}

func TestEmptyRequiredIsArray(t *testing.T) {
	type noArgs struct{}
	ps, err := Compile[noArgs]()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ps.Schema())
	if string(b) != `{"type":"object","properties":{},"required":[]}` {
		t.Fatalf("got %s", b)
	}
}

func TestDecode(t *testing.T) {
	ps, err := Compile[recallArgs]()
	if err != nil {
		t.Fatal(err)
	}
	def := recallArgs{Limit: 5, Tags: []string{"a", "b"}}
	with := func(f func(*recallArgs)) recallArgs { r := def; f(&r); return r }
	tests := []struct {
		name    string
		args    string
		want    recallArgs
		wantArg string // "" with wantErr ⇒ whole-args error
		wantErr string
	}{
		{"defaults", `{"query":"tea"}`, with(func(r *recallArgs) { r.Query = "tea" }), "", ""},
		{"all set", `{"query":"茶","types":"fact","limit":7,"deep":true,"boost":0.5,"tags":["x"]}`,
			recallArgs{Query: "茶", Types: "fact", Limit: 7, Deep: true, Boost: 0.5, Tags: []string{"x"}}, "", ""},
		{"escaped string", `{"query":"say \"hi\"\n\u4f60"}`, with(func(r *recallArgs) { r.Query = "say \"hi\"\n你" }), "", ""},
		{"integral float ok", `{"query":"q","limit":3.0}`, with(func(r *recallArgs) { r.Query, r.Limit = "q", 3 }), "", ""},
		{"clamp high", `{"query":"q","limit":50}`, with(func(r *recallArgs) { r.Query, r.Limit = "q", 20 }), "", ""},
		{"clamp zero", `{"query":"q","limit":0}`, with(func(r *recallArgs) { r.Query, r.Limit = "q", 1 }), "", ""},
		{"clamp negative", `{"query":"q","limit":-4}`, with(func(r *recallArgs) { r.Query, r.Limit = "q", 1 }), "", ""},
		{"null optional takes default", `{"query":"q","limit":null}`, with(func(r *recallArgs) { r.Query = "q" }), "", ""},
		{"extra args ignored", `{"query":"q","reason":"because","limit":2}`, with(func(r *recallArgs) { r.Query, r.Limit = "q", 2 }), "", ""},
		{"missing required", `{"limit":2}`, recallArgs{}, "query", "is required"},
		{"null required", `{"query":null}`, recallArgs{}, "query", "is required"},
		{"empty required", `{"query":"  "}`, recallArgs{}, "query", "is required"},
		{"args null", `null`, recallArgs{}, "query", "is required"},
		{"args empty", ``, recallArgs{}, "query", "is required"},
		{"args array", `["q"]`, recallArgs{}, "", "must be a JSON object, got array"},
		{"args string", `"q"`, recallArgs{}, "", "must be a JSON object, got string"},
		{"args broken", `{"query":`, recallArgs{}, "", "not valid JSON"},
		{"int as string", `{"query":"q","limit":"5"}`, recallArgs{}, "limit", "expected integer, got string"},
		{"fractional int", `{"query":"q","limit":2.5}`, recallArgs{}, "limit", "expected integer, got 2.5"},
		{"string as number", `{"query":5}`, recallArgs{}, "query", "expected string, got number"},
		{"bool as string", `{"query":"q","deep":"yes"}`, recallArgs{}, "deep", "expected boolean, got string"},
		{"number as object", `{"query":"q","boost":{}}`, recallArgs{}, "boost", "expected number, got object"},
		{"array of ints", `{"query":"q","tags":[1]}`, recallArgs{}, "tags", "expected array of strings"},
		// A runaway literal is named, not echoed whole (see the length check).
		{"huge fractional int", `{"query":"q","limit":1.` + strings.Repeat("5", 100000) + `}`, recallArgs{}, "limit", "expected integer, got 1.555"},
		{"huge bad number", `{"query":"q","boost":1e` + strings.Repeat("9", 100000) + `}`, recallArgs{}, "boost", "expected number, got 1e999"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ps.Decode(json.RawMessage(tc.args))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("got %+v, want %+v", got, tc.want)
				}
				return
			}
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("want *ArgError, got %v", err)
			}
			if ae.Arg != tc.wantArg || !strings.Contains(ae.Msg, tc.wantErr) {
				t.Fatalf("got arg %q msg %q, want arg %q msg containing %q", ae.Arg, ae.Msg, tc.wantArg, tc.wantErr)
			}
			if len(ae.Msg) > 300 {
				t.Fatalf("message is %d bytes: %.100s…", len(ae.Msg), ae.Msg)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	type noDesc struct {
		Q string `json:"q"`
	}
	type badDefault struct {
		N int `json:"n" desc:"n" default:"five"`
	}
	type badType struct {
		M map[string]int `json:"m" desc:"m"`
	}
	type badClamp struct {
		S string `json:"s" desc:"s" clamp:"1,2"`
	}
	type reversedClamp struct {
		N int `json:"n" desc:"n" clamp:"9,1"`
	}
	tests := []struct {
		name    string
		compile func() error
		want    string
	}{
		{"not a struct", func() error { _, err := Compile[int](); return err }, "not a struct"},
		{"missing desc", func() error { _, err := Compile[noDesc](); return err }, "missing desc"},
		{"bad default", func() error { _, err := Compile[badDefault](); return err }, "bad default"},
		{"unsupported type", func() error { _, err := Compile[badType](); return err }, "unsupported type"},
		{"clamp on string", func() error { _, err := Compile[badClamp](); return err }, "clamp only"},
		{"reversed clamp", func() error { _, err := Compile[reversedClamp](); return err }, "bad clamp"},
	}
	for _, tc := range tests {
		err := tc.compile()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

type env struct{ user string }

func TestRegistry(t *testing.T) {
	type addArgs struct {
		What     string `json:"what" desc:"the intention"`
		Priority string `json:"priority" desc:"high, mid or low" default:"mid"`
	}
	add := MustTool("add_intention", "Remember to do something.", func(_ context.Context, e env, p addArgs) (string, error) {
		return e.user + ":" + p.What + ":" + p.Priority, nil
	})
	fail := MustTool("fail", "Always fails.", func(context.Context, env, struct{}) (string, error) {
		return "", errors.New("store unavailable")
	})
	// A tool that validates an argument itself leaves Tool empty; the
	// registry names it so the message reads like a decoding error.
	check := MustTool("check", "Validates its own argument.", func(context.Context, env, struct{}) (string, error) {
		return "", &ArgError{Arg: "id", Msg: "not an id"}
	})
	r, err := NewRegistry(add, fail, check)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewRegistry(add, add); err == nil {
		t.Fatal("duplicate tool names accepted")
	}
	specs := r.Specs()
	if len(specs) != 3 || specs[0].Name != "add_intention" || specs[1].Name != "fail" {
		t.Fatalf("specs out of order: %+v", specs)
	}
	tests := []struct {
		name, tool, args string
		want             string
		badCall          bool
		wantErr          string
	}{
		{"ok with default", "add_intention", `{"what":"buy tea"}`, "u1:buy tea:mid", false, ""},
		{"ok explicit", "add_intention", `{"what":"buy tea","priority":"high"}`, "u1:buy tea:high", false, ""},
		{"unknown tool", "nope", `{}`, "", true, `unknown tool: "nope"`},
		{"huge unknown name clipped", strings.Repeat("n", 100000), `{}`, "", true, `unknown tool: "nnnn`},
		{"missing arg", "add_intention", `{}`, "", true, `add_intention: argument "what": is required`},
		{"wrong type", "add_intention", `{"what":1}`, "", true, `add_intention: argument "what": expected string, got number`},
		{"args not object", "add_intention", `[]`, "", true, `add_intention: arguments must be a JSON object`},
		{"tool failure is not a bad call", "fail", `{}`, "", false, "store unavailable"},
		{"tool's own arg error names the tool", "check", `{}`, "", true, `check: argument "id": not an id`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Call(context.Background(), tc.tool, env{"u1"}, json.RawMessage(tc.args))
			if tc.wantErr == "" {
				if err != nil || got != tc.want {
					t.Fatalf("got %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if len(err.Error()) > 300 {
				t.Fatalf("error is %d bytes", len(err.Error()))
			}
			if IsBadCall(err) != tc.badCall {
				t.Fatalf("IsBadCall = %v, want %v", IsBadCall(err), tc.badCall)
			}
		})
	}
}

func TestObjectArgument(t *testing.T) {
	type callArgs struct {
		Name string          `json:"name" desc:"tool name"`
		Args json.RawMessage `json:"args" desc:"tool arguments" default:"{}"`
	}
	ps, err := Compile[callArgs]()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(ps.Schema())
	if want := `{"type":"object","properties":{"name":{"type":"string","description":"tool name"},"args":{"type":"object","description":"tool arguments","default":{}}},"required":["name"]}`; string(b) != want {
		t.Fatalf("schema %s", b)
	}
	tests := []struct {
		args, want, err string
	}{
		{`{"name":"x","args":{"q":"茶"}}`, `{"q":"茶"}`, ""},
		{`{"name":"x"}`, `{}`, ""},
		{`{"name":"x","args":null}`, `{}`, ""},
		{`{"name":"x","args":"q"}`, "", `expected object, got string`},
		{`{"name":"x","args":[1]}`, "", `expected object, got array`},
	}
	for _, tc := range tests {
		got, err := ps.Decode(json.RawMessage(tc.args))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || string(got.Args) != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.args, got.Args, err, tc.want)
		}
	}
}

func TestTextArgument(t *testing.T) {
	type toolArgs struct {
		Call Text `json:"call,omitempty" desc:"the call"`
	}
	ps, err := Compile[toolArgs]()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"call":"ls -la"}`, "ls -la"},
		{`{"call":{"cmd": "ls", "n": [1, 2]}}`, `{"cmd":"ls","n":[1,2]}`},
		{`{"call":42}`, "42"},
		{`{}`, ""},
	}
	for _, tc := range tests {
		got, err := ps.Decode(json.RawMessage(tc.args))
		if err != nil || string(got.Call) != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.args, got.Call, err, tc.want)
		}
	}
}
