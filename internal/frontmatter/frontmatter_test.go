package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/somni-dev/somni/internal/testutil"

	"gopkg.in/yaml.v3"
)

func TestParseDocumentRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantKeys []string
		want     map[string]string
		body     string
		rendered string // "" ⇒ same as in
	}{
		{
			name:     "compat order and unknown keys",
			in:       "---\nname: a\ndescription: d\ntype: fact\nstability: 1\nscore: 0.5\ncreated: 2026-01-02\nlast_used: 2026-01-02\nlast_decay: 2026-01-02\nrelated: b\nticket: 123-456\n---\n\nbody\n",
			wantKeys: []string{"name", "description", "type", "stability", "score", "created", "last_used", "last_decay", "related", "ticket"},
			want:     map[string]string{"ticket": "123-456", "score": "0.5", "created": "2026-01-02"},
			body:     "body\n",
		},
		{
			name:     "out of order standard keys are reordered, unknown keys keep order",
			in:       "---\nzeta: 1\nscore: 0.3\nalpha: x\nname: n\n---\n\nb",
			wantKeys: []string{"zeta", "score", "alpha", "name"},
			body:     "b",
			rendered: "---\nname: n\nscore: 0.3\nzeta: 1\nalpha: x\n---\n\nb",
		},
		{
			name: "chinese values",
			in:   "---\nname: 团队成员\ndescription: 项目团队共有五个人，刘超负责网关\n---\n\n团队：刘超。\n",
			want: map[string]string{"name": "团队成员", "description": "项目团队共有五个人，刘超负责网关"},
			body: "团队：刘超。\n",
		},
		{
			name:     "compat double-quote escaping that is not valid YAML-ish",
			in:       "---\nname: q\ndescription: \"a: b \\\"c\\\" \\\\ d\\nline2\"\n---\n\nx\n",
			want:     map[string]string{"description": "a: b \"c\" \\ d\nline2"},
			body:     "x\n",
			rendered: "---\nname: q\ndescription: \"a: b \\\"c\\\" \\\\ d\\nline2\"\n---\n\nx\n",
		},
		{
			name: "flat fallback when YAML fails",
			in:   "---\nname: x\ndescription: foo: bar: baz\n---\n\nbody",
			want: map[string]string{"description": "foo: bar: baz"},
			body: "body",
			// the value contains ':' so it is written quoted
			rendered: "---\nname: x\ndescription: \"foo: bar: baz\"\n---\n\nbody",
		},
		{
			name:     "yaml list value kept as flow text",
			in:       "---\nname: l\ntags:\n  - a\n  - b\n---\n\nb",
			want:     map[string]string{"tags": "[a, b]"},
			body:     "b",
			rendered: "---\nname: l\ntags: [a, b]\n---\n\nb", // unquoted: still a list to YAML readers
		},
		{
			name:     "no front-matter",
			in:       "[user] 2026-01-01T00:00:00\nhello\n",
			body:     "[user] 2026-01-01T00:00:00\nhello\n",
			rendered: "---\n---\n\n[user] 2026-01-01T00:00:00\nhello\n",
		},
		{
			name: "body keeps leading blank lines and trailing spaces",
			in:   "---\nname: s\n---\n\n\n  indented  \n\n",
			body: "\n  indented  \n\n",
		},
		{
			name: "tab inside a quoted value and CRLF line ends are not control characters to refuse",
			in:   "---\r\nname: t\r\nnote: \"a\tb\"\r\n---\r\n\r\nb",
			want: map[string]string{"name": "t", "note": "a\tb"},
			body: "b",
			// CR is dropped from the header lines (the body keeps its bytes); the untouched value keeps its tab
			rendered: "---\nname: t\nnote: \"a\tb\"\n---\n\nb",
		},
		{
			name: "single-quoted yaml",
			in:   "---\nname: 'it''s'\n---\n\nb",
			want: map[string]string{"name": "it's"},
			body: "b",
			// untouched values are written back exactly as read
		},
		{
			name: "empty value and hash",
			in:   "---\nname: h\nempty:\nnote: \"#1 priority\"\n---\n\nb",
			want: map[string]string{"empty": "", "note": "#1 priority"},
			body: "b",
			// empty renders as `empty: ` — trailing space is fine for both readers
			rendered: "---\nname: h\nempty: \nnote: \"#1 priority\"\n---\n\nb",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse("x.md", []byte(tt.in))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if tt.wantKeys != nil && strings.Join(doc.Meta.Keys(), ",") != strings.Join(tt.wantKeys, ",") {
				t.Errorf("keys = %v, want %v", doc.Meta.Keys(), tt.wantKeys)
			}
			for k, v := range tt.want {
				if got := doc.Meta.Value(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if doc.Body != tt.body {
				t.Errorf("body = %q, want %q", doc.Body, tt.body)
			}
			want := tt.rendered
			if want == "" {
				want = tt.in
			}
			out := string(doc.Render())
			if out != want {
				t.Errorf("render:\n%q\nwant\n%q", out, want)
			}
			// Rendering is a fixed point: parse(render(x)) renders identically.
			doc2, err := Parse("x.md", []byte(out))
			if err != nil {
				t.Fatalf("reparse: %v", err)
			}
			if string(doc2.Render()) != out {
				t.Errorf("not a fixed point:\n%q\n%q", doc2.Render(), out)
			}
			for _, k := range doc.Meta.Keys() {
				if doc2.Meta.Value(k) != doc.Meta.Value(k) {
					t.Errorf("value %s changed on round trip: %q → %q", k, doc.Meta.Value(k), doc2.Meta.Value(k))
				}
			}
		})
	}
}

func TestQuoteValueRoundTrip(t *testing.T) {
	values := []string{"plain", "123-456", "0.500", "a: b", `say "hi"`, "back\\slash", "multi\nline", "--- dash", "# hash",
		"[list]", "{map}", "*star", "> gt", "| pipe", "it's", " leading", "trailing ", "-lead", "?q", "@at", "%pct",
		"中文：冒号", "tab\there", "yes", "null", "~", "true", "2026-01-02", "x---y", "!tag", "&anchor", "`tick`",
		"nul\x00byte", "esc\x1b[31m", "bell\a", "\x01lead", "del\x7f", "nel\u0085", "cr\rlf"}
	for _, v := range values {
		t.Run(v, func(t *testing.T) {
			m := New()
			m.Set("name", "n")
			m.Set("v", v)
			out := Render(m, "body\n")
			doc, err := Parse("x", out)
			if err != nil {
				t.Fatalf("parse %q: %v", out, err)
			}
			if got := doc.Meta.Value("v"); got != v {
				t.Errorf("round trip %q → %q (rendered %q)", v, got, out)
			}
			if i := bytes.IndexFunc(out, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }); i >= 0 {
				t.Errorf("control character written raw at %d: %q", i, out)
			}
			plain := New()
			plain.SetPlain("v", v)
			if out := Render(plain, ""); bytes.IndexFunc(out, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }) >= 0 {
				t.Errorf("SetPlain wrote a control character raw: %q", out)
			}
		})
	}
}

func TestParseDocumentErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
	}{
		{"unclosed", "---\nname: x\nbody without end\n", 1},
		{"no colon line", "---\nname: x\ndescription: [unclosed\nthis has no colon\n---\n\nb", 4},
		{"invalid utf8", "---\nname: x\n---\n\nbad \xff byte\n", 5},
		{"empty key", "---\nname: x\n: value\n---\n\nb", 3},
		{"NUL in a value", "---\nname: x\ndescription: a\x00b\n---\n\nb", 3},
		{"NUL in a quoted value", "---\nname: x\ndescription: \"a\x00b\"\n---\n\nb", 3},
		{"escape sequence", "---\nname: x\ntype: fact\nnote: \x1b[31mred\n---\n\nb", 4},
		{"bare carriage return", "---\nname: x\rtype: fact\n---\n\nb", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.md", []byte(tt.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
			if pe.Line != tt.line || pe.Path != "f.md" || pe.Reason == "" {
				t.Errorf("got %+v, want line %d", pe, tt.line)
			}
		})
	}
}

func TestFrontMatterOps(t *testing.T) {
	m := New()
	m.Set("b", "1")
	m.Set("a", "2")
	m.Set("b", "3")
	if got := strings.Join(m.Keys(), ","); got != "b,a" {
		t.Fatalf("keys %s", got)
	}
	if v, ok := m.Get("b"); !ok || v != "3" {
		t.Fatalf("get b = %q %v", v, ok)
	}
	m.Delete("b")
	m.Delete("missing")
	if _, ok := m.Get("b"); ok || m.Len() != 1 || m.Keys()[0] != "a" {
		t.Fatalf("after delete: %v", m.Keys())
	}
	c := m.Clone()
	c.Set("a", "changed")
	if m.Value("a") != "2" {
		t.Fatal("clone shares state")
	}
}

// yamlMeaning is what a YAML reader makes of a rendered file's header: the test of "meaning intact".
func yamlMeaning(t *testing.T, file []byte) map[string]any {
	t.Helper()
	doc, err := Parse("m.md", file)
	if err != nil || !doc.HasFrontMatter {
		t.Fatalf("parse %q: %v", file, err)
	}
	header, _, _ := strings.Cut(strings.TrimPrefix(string(file), "---\n"), "\n---\n")
	var m map[string]any
	if err := yaml.Unmarshal([]byte(header), &m); err != nil {
		t.Fatalf("rendered header is not YAML: %v\n%s", err, header)
	}
	return m
}

func TestYAMLAnchorsAliasesTagsRoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		edit     func(*Meta)
		want     map[string]string // Get values after parse
		rendered string            // "" ⇒ same as in
		meaning  string            // YAML the rendered header must mean; "" ⇒ the input's header
	}{
		{
			name: "flow list anchor and alias",
			in:   "---\nname: a\ntags: &t [a,b]\nother: *t\n---\n\nb",
			want: map[string]string{"tags": "[a, b]", "other": "[a, b]"},
		},
		{
			name: "block list anchor",
			in:   "---\nname: a\ntags: &t\n  - a\n  - b\nalso: *t\n---\n\nb",
			want: map[string]string{"tags": "[a, b]", "also": "[a, b]"},
		},
		{
			name: "scalar anchor shared by the dates",
			in:   "---\nname: a\ncreated: &d 2026-01-02\nlast_used: *d\nlast_decay: *d\n---\n\nb",
			want: map[string]string{"created": "2026-01-02", "last_used": "2026-01-02", "last_decay": "2026-01-02"},
		},
		{
			name: "tags",
			in:   "---\nname: a\nn: !!str 123\nbin: !!binary |\n  aGVsbG8=\n---\n\nb",
			want: map[string]string{"n": "123"},
		},
		{
			name: "merge keys",
			in:   "---\nname: a\nbase: &b {x: 1, y: 2}\nmerged:\n  <<: *b\n  y: 3\n<<: *b\n---\n\nb",
			want: map[string]string{"base": "{x: 1, y: 2}"},
		},
		{
			name:     "alias moved before its anchor by the compat order is resolved",
			in:       "---\nzeta: &z hello\nname: *z\n---\n\nb",
			want:     map[string]string{"name": "hello", "zeta": "hello"},
			rendered: "---\nname: hello\nzeta: &z hello\n---\n\nb",
		},
		{
			name:     "changed anchor: aliases keep the value they had",
			in:       "---\nname: a\ndescription: &d old text\nsummary: *d\nlist: &l [x]\nmore: [*l, *d]\n---\n\nb",
			edit:     func(m *Meta) { m.Set("description", "new"); m.Delete("list") },
			want:     map[string]string{"summary": "old text", "more": "[[x], old text]"},
			rendered: "---\nname: a\ndescription: new\nsummary: old text\nmore: [[x], old text]\n---\n\nb",
			meaning:  "name: a\ndescription: new\nsummary: old text\nmore: [[x], old text]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse("x.md", []byte(tt.in))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			for k, v := range tt.want {
				if got := doc.Meta.Value(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if tt.edit != nil {
				doc.Meta = doc.Meta.Clone() // edits must work on clones too
				tt.edit(doc.Meta)
			}
			out := doc.Render()
			want := tt.rendered
			if want == "" {
				want = tt.in
			}
			if string(out) != want {
				t.Errorf("render:\n%q\nwant\n%q", out, want)
			}
			meaning := tt.meaning
			if meaning == "" {
				meaning, _, _ = strings.Cut(strings.TrimPrefix(tt.in, "---\n"), "\n---\n")
			}
			var wantMeaning map[string]any
			if err := yaml.Unmarshal([]byte(meaning), &wantMeaning); err != nil {
				t.Fatal(err)
			}
			if got := yamlMeaning(t, out); !reflect.DeepEqual(got, wantMeaning) {
				t.Errorf("meaning changed:\n%#v\nwant\n%#v", got, wantMeaning)
			}
			doc2, err := Parse("x.md", out)
			if err != nil {
				t.Fatalf("reparse: %v", err)
			}
			if string(doc2.Render()) != string(out) {
				t.Errorf("not a fixed point:\n%q\n%q", doc2.Render(), out)
			}
		})
	}
}

func TestParseDocumentAliasBombs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
	}{
		{"billion laughs", testutil.BillionLaughs(), 7}, // l4 (file line 7) is where the expansion passes the bound
		{"alias to its own anchor", "---\nname: x\nloop: &a [x, *a]\n---\n\nb", 3},
		{"alias to an enclosing map", "---\nname: x\nloop: &m {k: [*m]}\n---\n\nb", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The line says where the expansion was stopped: an unbounded
			// one would never return (billion laughs is 10⁹ nodes).
			_, err := Parse("bomb.md", []byte(tt.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
			if pe.Line != tt.line || !strings.Contains(pe.Reason, "front-matter") {
				t.Errorf("got %+v, want line %d", pe, tt.line)
			}
		})
	}
	// Sharing short values is what anchors are for; it stays well inside the bound.
	var b strings.Builder
	b.WriteString("---\nname: ok\nbase: &b [a, b, c, d, e, f, g, h, i, j]\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "k%d: *b\n", i)
	}
	b.WriteString("---\n\nbody\n")
	doc, err := Parse("ok.md", []byte(b.String()))
	if err != nil || doc.Meta.Value("k99") != "[a, b, c, d, e, f, g, h, i, j]" {
		t.Fatalf("shared list: %v %q", err, doc.Meta.Value("k99"))
	}
}
