package memory

import (
	"errors"
	"strings"
	"testing"
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
			doc, err := ParseDocument("x.md", []byte(tt.in))
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
			doc2, err := ParseDocument("x.md", []byte(out))
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
		"中文：冒号", "tab\there", "yes", "null", "~", "true", "2026-01-02", "x---y", "!tag", "&anchor", "`tick`"}
	for _, v := range values {
		t.Run(v, func(t *testing.T) {
			m := NewFrontMatter()
			m.Set("name", "n")
			m.Set("v", v)
			out := RenderDocument(m, "body\n")
			doc, err := ParseDocument("x", out)
			if err != nil {
				t.Fatalf("parse %q: %v", out, err)
			}
			if got := doc.Meta.Value("v"); got != v {
				t.Errorf("round trip %q → %q (rendered %q)", v, got, out)
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDocument("f.md", []byte(tt.in))
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
	m := NewFrontMatter()
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
