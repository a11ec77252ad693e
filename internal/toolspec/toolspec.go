// Package toolspec turns Go parameter structs into the JSON Schema a model
// sees in `tools.list`, and decodes a model's `args` back into those structs
// strictly, with defaults applied.
//
// A params struct declares each argument as an exported field:
//
//	type RecallArgs struct {
//		Query string `json:"query" desc:"what to look for"`
//		Types string `json:"types" desc:"comma list of entry types" default:""`
//		Limit int    `json:"limit" desc:"max results (1-20)" default:"5" clamp:"1,20"`
//	}
//
// Rules:
//   - `json:"name"` names the argument; fields without a json name or with
//     `json:"-"` are not arguments.
//   - An argument is required unless it has a `default` tag or its json tag
//     says `omitempty`. A default is shown in the schema, except an empty
//     string default: the Python sidecar's schemas leave that out (hosts and
//     tests compare against them), and `"default":""` tells the model nothing.
//     omitempty is never shown.
//   - null counts as absent; for a required string, "" counts as absent too.
//   - `clamp:"lo,hi"` (integers only) pulls out-of-range values into range
//     instead of failing: models often ask for 50 results or 0.
//   - Supported field types: string, bool, all int kinds, float32/64,
//     []string, and json.RawMessage for a free-form JSON object (schema type
//     "object"), and Text: a string that also accepts any other JSON value as
//     its compact JSON text (for free-form payloads such as a logged tool
//     call). Unknown extra arguments are ignored (models add junk).
//   - Values are decoded strictly: "5" for an integer argument is an error
//     naming the argument and the expected type; 5.0 is accepted.
package toolspec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/jsonfast"
	"github.com/somni-dev/somni/internal/textcut"
)

// Spec is one `tools.list` item.
type Spec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Parameters  Schema `json:"parameters"`
}

// Schema is the object schema of a tool's arguments.
type Schema struct {
	Properties []Property // in struct field order
	Required   []string
}

// Property is one argument's schema.
type Property struct {
	Name        string
	Type        string // string | integer | number | boolean | array
	Items       string // element type when Type is array
	Description string
	Default     any // nil ⇒ no default shown
}

// MarshalJSON writes `{type:"object", properties:{…}, required:[…]}` with
// properties in declaration order (models read the first ones first).
func (s Schema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i, p := range s.Properties {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.Name)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteString(`},"required":`)
	req := s.Required
	if req == nil {
		req = []string{}
	}
	r, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	b.Write(r)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MarshalJSON writes `{type, description, default?}` (plus items for arrays).
func (p Property) MarshalJSON() ([]byte, error) {
	type items struct {
		Type string `json:"type"`
	}
	v := struct {
		Type        string `json:"type"`
		Items       *items `json:"items,omitempty"`
		Description string `json:"description"`
		Default     any    `json:"default,omitempty"`
	}{Type: p.Type, Description: p.Description, Default: p.Default}
	if p.Items != "" {
		v.Items = &items{Type: p.Items}
	}
	return json.Marshal(v)
}

// ErrUnknownTool is returned (wrapped) by Registry.Call for a name it lacks.
var ErrUnknownTool = errors.New("unknown tool")

// ArgError is a bad tool call: the caller's fault, worth a -32602.
type ArgError struct {
	Tool string
	Arg  string // "" when the whole args value is wrong
	Msg  string
}

func (e *ArgError) Error() string {
	if e.Arg == "" {
		return fmt.Sprintf("%s: %s", e.Tool, e.Msg)
	}
	return fmt.Sprintf("%s: argument %q: %s", e.Tool, e.Arg, e.Msg)
}

// field is the decoding plan for one argument.
type field struct {
	index    []int
	prop     Property
	kind     reflect.Kind
	anyText  bool // Text: non-string JSON becomes its JSON text
	required bool
	def      reflect.Value // valid when a default tag exists
	clampLo  int64
	clampHi  int64
	clamped  bool
}

// Params is the compiled form of one params struct type.
type Params[P any] struct {
	fields []field
	schema Schema
}

// Compile builds the schema and decoder for P, which must be a struct.
func Compile[P any]() (*Params[P], error) {
	t := reflect.TypeFor[P]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("toolspec: params type %s is not a struct", t)
	}
	ps := &Params[P]{}
	for _, sf := range reflect.VisibleFields(t) {
		if !sf.IsExported() || sf.Anonymous {
			continue
		}
		tag, ok := sf.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !ok || name == "" || name == "-" {
			continue
		}
		f := field{index: sf.Index, kind: sf.Type.Kind()}
		f.prop = Property{Name: name, Description: sf.Tag.Get("desc")}
		switch {
		case sf.Type == rawMessageType:
			f.prop.Type = "object"
		case sf.Type == textType:
			f.prop.Type, f.anyText = "string", true
		default:
			switch f.kind {
			case reflect.String:
				f.prop.Type = "string"
			case reflect.Bool:
				f.prop.Type = "boolean"
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				f.prop.Type = "integer"
			case reflect.Float32, reflect.Float64:
				f.prop.Type = "number"
			case reflect.Slice:
				if sf.Type.Elem().Kind() != reflect.String {
					return nil, fmt.Errorf("toolspec: %s.%s: only []string slices are supported", t, sf.Name)
				}
				f.prop.Type, f.prop.Items = "array", "string"
			default:
				return nil, fmt.Errorf("toolspec: %s.%s: unsupported type %s", t, sf.Name, sf.Type)
			}
		}
		if f.prop.Description == "" {
			return nil, fmt.Errorf("toolspec: %s.%s: missing desc tag (the model needs it)", t, sf.Name)
		}
		if c, ok := sf.Tag.Lookup("clamp"); ok {
			if f.prop.Type != "integer" {
				return nil, fmt.Errorf("toolspec: %s.%s: clamp only applies to integers", t, sf.Name)
			}
			lo, hi, _ := strings.Cut(c, ",")
			var err1, err2 error
			f.clampLo, err1 = strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
			f.clampHi, err2 = strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
			if err1 != nil || err2 != nil || f.clampLo > f.clampHi {
				return nil, fmt.Errorf("toolspec: %s.%s: bad clamp %q, want \"lo,hi\"", t, sf.Name, c)
			}
			f.clamped = true
		}
		if d, ok := sf.Tag.Lookup("default"); ok {
			v := reflect.New(sf.Type).Elem()
			if err := f.set(v, defaultJSON(f.prop.Type, d)); err != nil {
				return nil, fmt.Errorf("toolspec: %s.%s: bad default %q: %s", t, sf.Name, d, err.Msg)
			}
			f.def = v
			if !(f.prop.Type == "string" && d == "") {
				f.prop.Default = v.Interface()
			}
		} else if !strings.Contains(","+opts+",", ",omitempty,") {
			f.required = true
			ps.schema.Required = append(ps.schema.Required, name)
		}
		ps.fields = append(ps.fields, f)
		ps.schema.Properties = append(ps.schema.Properties, f.prop)
	}
	return ps, nil
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// Text is a string argument that accepts any JSON value; non-strings are
// kept as their compact JSON text.
type Text string

var textType = reflect.TypeFor[Text]()

// defaultJSON turns a default tag into the JSON literal it stands for.
func defaultJSON(typ, d string) json.RawMessage {
	switch typ {
	case "string":
		b, _ := json.Marshal(d)
		return b
	case "array":
		if d == "" {
			return json.RawMessage("[]")
		}
		parts := strings.Split(d, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		b, _ := json.Marshal(parts)
		return b
	default:
		return json.RawMessage(d)
	}
}

// Schema returns the compiled argument schema.
func (ps *Params[P]) Schema() Schema { return ps.schema }

// Decode parses args (an object; null or empty counts as {}) into a P with
// defaults applied. Errors are *ArgError with Tool left empty.
func (ps *Params[P]) Decode(args json.RawMessage) (P, error) {
	var out P
	args = bytes.TrimSpace(args)
	m := map[string]json.RawMessage{}
	if len(args) > 0 && string(args) != "null" {
		if args[0] != '{' {
			return out, &ArgError{Msg: "arguments must be a JSON object, got " + jsonKind(args)}
		}
		if err := jsonfast.Unmarshal(args, &m); err != nil {
			return out, &ArgError{Msg: "arguments are not valid JSON: " + err.Error()}
		}
	}
	rv := reflect.ValueOf(&out).Elem()
	for i := range ps.fields {
		f := &ps.fields[i]
		dst := rv.FieldByIndex(f.index)
		raw, ok := m[f.prop.Name]
		if ok && string(bytes.TrimSpace(raw)) == "null" {
			ok = false
		}
		if ok {
			if err := f.set(dst, raw); err != nil {
				err.Arg = f.prop.Name
				return out, err
			}
			if f.required && f.kind == reflect.String && strings.TrimSpace(dst.String()) == "" {
				ok = false
			}
		}
		if !ok {
			if f.required {
				return out, &ArgError{Arg: f.prop.Name, Msg: "is required"}
			}
			if f.def.IsValid() {
				dst.Set(f.def)
			}
		}
		if f.clamped {
			n := dst.Int()
			dst.SetInt(min(max(n, f.clampLo), f.clampHi))
		}
	}
	return out, nil
}

// set decodes one JSON value into v according to f's type, strictly.
func (f *field) set(v reflect.Value, raw json.RawMessage) *ArgError {
	raw = bytes.TrimSpace(raw)
	want := f.prop.Type
	bad := func() *ArgError {
		return &ArgError{Msg: fmt.Sprintf("expected %s, got %s", want, jsonKind(raw))}
	}
	switch f.prop.Type {
	case "string":
		var s string
		if f.anyText && len(raw) > 0 && raw[0] != '"' {
			var buf bytes.Buffer
			if json.Compact(&buf, raw) != nil {
				return bad()
			}
			v.SetString(buf.String())
			return nil
		}
		if len(raw) == 0 || raw[0] != '"' {
			return bad()
		}
		if plain, ok := plainString(raw); ok {
			v.SetString(plain)
			return nil
		}
		if json.Unmarshal(raw, &s) != nil {
			return bad()
		}
		v.SetString(s)
	case "boolean":
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return bad()
		}
		v.SetBool(b)
	case "integer":
		if jsonKind(raw) != "number" {
			return bad()
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			fl, ferr := strconv.ParseFloat(string(raw), 64)
			if ferr != nil || fl != math.Trunc(fl) || math.Abs(fl) > 1<<53 {
				return &ArgError{Msg: "expected integer, got " + clipInput(string(raw))}
			}
			n = int64(fl)
		}
		if v.OverflowInt(n) {
			return &ArgError{Msg: fmt.Sprintf("integer %d out of range", n)}
		}
		v.SetInt(n)
	case "number":
		if jsonKind(raw) != "number" {
			return bad()
		}
		fl, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || v.OverflowFloat(fl) {
			return &ArgError{Msg: "expected number, got " + clipInput(string(raw))}
		}
		v.SetFloat(fl)
	case "object":
		var m map[string]json.RawMessage
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
			return bad()
		}
		v.SetBytes(append([]byte(nil), raw...))
	case "array":
		var ss []string
		if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &ss) != nil {
			return &ArgError{Msg: fmt.Sprintf("expected array of strings, got %s", jsonKind(raw))}
		}
		v.Set(reflect.ValueOf(ss).Convert(v.Type()))
	}
	return nil
}

// plainString decodes a JSON string literal without escapes directly; the
// common case (chat text) then skips a reflective json.Unmarshal.
func plainString(raw json.RawMessage) (string, bool) {
	n := len(raw)
	if n < 2 || raw[n-1] != '"' {
		return "", false
	}
	body := raw[1 : n-1]
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// jsonKind names the JSON type of raw for error messages.
func jsonKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "number"
	}
	return "invalid JSON"
}

// Tool is one callable tool whose handler gets an environment of type E
// (whatever per-call context the caller supplies, e.g. session and user ids).
type Tool[E any] struct {
	spec Spec
	call func(ctx context.Context, env E, args json.RawMessage) (string, error)
}

// NewTool compiles P and binds it to fn.
func NewTool[E, P any](name, description string, fn func(ctx context.Context, env E, p P) (string, error)) (*Tool[E], error) {
	ps, err := Compile[P]()
	if err != nil {
		return nil, fmt.Errorf("toolspec: tool %s: %w", name, err)
	}
	if name == "" || description == "" {
		return nil, fmt.Errorf("toolspec: tool %q needs a name and a description", name)
	}
	return &Tool[E]{
		spec: Spec{Name: name, Description: description, Parameters: ps.Schema()},
		call: func(ctx context.Context, env E, args json.RawMessage) (string, error) {
			p, err := ps.Decode(args)
			if err == nil {
				var out string
				out, err = fn(ctx, env, p)
				if err == nil {
					return out, nil
				}
			}
			// Decoding errors and the tool's own argument checks alike
			// name the tool, so every bad call reads the same way.
			var ae *ArgError
			if errors.As(err, &ae) && ae.Tool == "" {
				ae.Tool = name
			}
			return "", err
		},
	}, nil
}

// MustTool is NewTool for static tool tables; it panics on a programming
// error in the params struct, which tests catch at once.
func MustTool[E, P any](name, description string, fn func(ctx context.Context, env E, p P) (string, error)) *Tool[E] {
	t, err := NewTool(name, description, fn)
	if err != nil {
		panic(err)
	}
	return t
}

// Spec returns the tool's `tools.list` item.
func (t *Tool[E]) Spec() Spec { return t.spec }

// Registry holds tools by name in registration order.
type Registry[E any] struct {
	tools  []*Tool[E]
	byName map[string]*Tool[E]
}

// NewRegistry returns a registry of tools; duplicate names are an error.
func NewRegistry[E any](tools ...*Tool[E]) (*Registry[E], error) {
	r := &Registry[E]{byName: map[string]*Tool[E]{}}
	for _, t := range tools {
		if _, dup := r.byName[t.spec.Name]; dup {
			return nil, fmt.Errorf("toolspec: duplicate tool %q", t.spec.Name)
		}
		r.byName[t.spec.Name] = t
		r.tools = append(r.tools, t)
	}
	return r, nil
}

// Specs lists every tool's schema in registration order.
func (r *Registry[E]) Specs() []Spec {
	out := make([]Spec, len(r.tools))
	for i, t := range r.tools {
		out[i] = t.spec
	}
	return out
}

// Has reports whether name is registered.
func (r *Registry[E]) Has(name string) bool { _, ok := r.byName[name]; return ok }

// Call decodes args for the named tool and runs it. A bad call yields an
// *ArgError or ErrUnknownTool (both wrapped); other errors are the tool's.
func (r *Registry[E]) Call(ctx context.Context, name string, env E, args json.RawMessage) (string, error) {
	t, ok := r.byName[name]
	if !ok {
		return "", fmt.Errorf("%w: %q", ErrUnknownTool, clipInput(name))
	}
	return t.call(ctx, env, args)
}

// IsBadCall reports whether err is the caller's fault (unknown tool or bad
// arguments) rather than a failure inside the tool.
func IsBadCall(err error) bool {
	var ae *ArgError
	return errors.Is(err, ErrUnknownTool) || errors.As(err, &ae)
}

// maxInputEcho bounds how much of a caller's bad value an error repeats.
const maxInputEcho = 64

// clipInput shortens a caller's value for an error message, so a runaway
// argument is named rather than echoed back whole.
func clipInput(s string) string { return textcut.ClipBytes(s, maxInputEcho, "…") }
