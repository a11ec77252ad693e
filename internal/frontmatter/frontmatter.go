package frontmatter

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/textcut"
	"gopkg.in/yaml.v3"
)

// Meta is an ordered set of flat string key/value pairs from a Markdown file's header.
//
// Values are always kept as the text that was written: `123-456`, `0.5` or `2026-01-02`
// never change type, so a rewrite reproduces exactly what it read.
type Meta struct {
	keys []string
	vals map[string]string
	// raw is the value text exactly as read (quotes and all) for keys not changed since; rendering reuses it
	// so an untouched key is written back byte for byte.
	raw map[string]string
	// refs is set for raw values that define YAML anchors or use aliases (see yamlRefs).
	refs map[string]*yamlRefs
}

// yamlRefs records how a raw value takes part in YAML's anchors and aliases, so rendering can tell whether
// its original bytes still mean what they meant when read.
type yamlRefs struct {
	defines []string          // anchors the raw text defines
	uses    map[string]string // alias name → key whose raw text defined that anchor when read
	// resolved is the value as alias-free YAML text, written instead of raw when an anchor it uses is no
	// longer written before it (the defining key was changed, deleted or moved after it by the compat order).
	resolved string
}

// New returns an empty front-matter.
func New() *Meta {
	return &Meta{vals: map[string]string{}}
}

// Get returns the value of key and whether it is present.
func (f *Meta) Get(key string) (string, bool) {
	if f == nil {
		return "", false
	}
	v, ok := f.vals[key]
	return v, ok
}

// Value returns the value of key, or "" when it is absent.
func (f *Meta) Value(key string) string {
	v, _ := f.Get(key)
	return v
}

// Set stores value under key; a new key goes to the end, an existing key keeps its position.
func (f *Meta) Set(key, value string) {
	if f.vals == nil {
		f.vals = map[string]string{}
	}
	old, ok := f.vals[key]
	if !ok {
		f.keys = append(f.keys, key)
	}
	if ok && old != value {
		delete(f.raw, key)
		delete(f.refs, key)
	}
	f.vals[key] = value
}

// SetPlain stores a value that is written unquoted even though it contains ':' — for ISO timestamps, which
// YAML and the compat reader both read back verbatim. Other values fall back to Set's quoting.
func (f *Meta) SetPlain(key, value string) {
	if !isPlainYAMLValue(value) || strings.ContainsAny(value, "\n\"'#") {
		f.Set(key, value)
		return
	}
	f.setRaw(key, value, value)
}

// setRaw records value with the text it was read from.
func (f *Meta) setRaw(key, value, raw string) {
	f.Set(key, value)
	if raw == value && !needsQuote(value) {
		return // plain text renders identically anyway
	}
	if f.raw == nil {
		f.raw = map[string]string{}
	}
	f.raw[key] = raw
}

// RawValue is key's value as a header line writes it: the text as read
// (quotes and all) when unchanged since, else the value quoted as needed.
func (f *Meta) RawValue(key string) string {
	if r, ok := f.raw[key]; ok {
		return r
	}
	return QuoteValue(f.Value(key))
}

// Delete removes key if present.
func (f *Meta) Delete(key string) {
	if _, ok := f.vals[key]; !ok {
		return
	}
	delete(f.vals, key)
	delete(f.raw, key)
	delete(f.refs, key)
	for i, k := range f.keys {
		if k == key {
			f.keys = append(f.keys[:i:i], f.keys[i+1:]...)
			break
		}
	}
}

// Keys returns the keys in their original order (a copy).
func (f *Meta) Keys() []string {
	if f == nil {
		return nil
	}
	return append([]string(nil), f.keys...)
}

// Len returns the number of keys.
func (f *Meta) Len() int {
	if f == nil {
		return 0
	}
	return len(f.keys)
}

// Clone returns an independent copy.
func (f *Meta) Clone() *Meta {
	c := New()
	if f == nil {
		return c
	}
	for _, k := range f.keys {
		c.Set(k, f.vals[k])
	}
	for k, r := range f.raw {
		if c.raw == nil {
			c.raw = map[string]string{}
		}
		c.raw[k] = r
	}
	for k, r := range f.refs {
		if c.refs == nil {
			c.refs = map[string]*yamlRefs{}
		}
		c.refs[k] = r // never mutated after parsing, so sharing is safe
	}
	return c
}

// ParseError reports a file that cannot be read as front-matter + body; such files are skipped, never rewritten.
type ParseError struct {
	Path   string
	Line   int // 1-based line in the file; 0 when the problem is not tied to a line
	Reason string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Reason)
}

// Document is a parsed Markdown file: optional front-matter and the body that follows it.
type Document struct {
	// Meta holds the front-matter (empty, never nil, when the file has none).
	Meta *Meta
	// Body is everything after the closing `---` line, minus the single blank separator line.
	Body string
	// HasFrontMatter is false for files that do not start with a `---` line.
	HasFrontMatter bool
}

// Parse parses a file's bytes leniently: YAML first, then the flat `key: value` form.
// path is used only for error messages. Failures are *ParseError.
func Parse(path string, data []byte) (*Document, error) {
	if !utf8.Valid(data) {
		return nil, &ParseError{Path: path, Line: firstInvalidUTF8Line(data), Reason: "invalid UTF-8"}
	}
	header, body, framed, closed := splitFrontMatter(string(data))
	if !framed {
		return &Document{Meta: New(), Body: body}, nil
	}
	if !closed {
		return nil, &ParseError{Path: path, Line: 1, Reason: "front-matter opened by --- is never closed"}
	}
	if line, r, ok := headerControlChar(header); ok {
		// YAML refuses them and the flat reader would carry them into prompts and rewrites; a person
		// should look at such a file, so it becomes a Problem.
		return nil, &ParseError{Path: path, Line: line + 1, Reason: fmt.Sprintf("front-matter contains control character %U", r)}
	}
	if strings.HasPrefix(body, "\n") {
		body = body[1:]
	} else if strings.HasPrefix(body, "\r\n") {
		body = body[2:]
	}
	meta, err := parseHeader(path, header)
	if err != nil {
		return nil, err
	}
	return &Document{Meta: meta, Body: body, HasFrontMatter: true}, nil
}

// headerControlChar finds the first C0 control character or DEL in the header lines (1-based line), allowing
// tab, which YAML accepts inside values, and the CR of a CRLF line end.
func headerControlChar(lines []string) (int, rune, bool) {
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		for _, r := range line {
			if (r < 0x20 && r != '\t') || r == 0x7f {
				return i + 1, r, true
			}
		}
	}
	return 0, 0, false
}

// hasControl reports control characters (C0, DEL, C1), which are never written into a header unescaped.
func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

func firstInvalidUTF8Line(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[size:]
	}
	return 0
}

// parseHeader turns the lines between the --- markers into a Meta.
func parseHeader(path string, lines []string) (*Meta, error) {
	if fm, ok := parseSimpleFlat(lines); ok {
		// Every line is a plain `key: value` whose YAML reading is the same text: skip the YAML parser.
		return fm, nil
	}
	if fm, ok, err := parseYAMLHeader(path, lines); err != nil || ok {
		return fm, err
	}
	return parseFlatHeader(path, lines)
}

// parseSimpleFlat handles the common case cheaply; it declines (ok=false) whenever YAML could read a line differently.
func parseSimpleFlat(lines []string) (*Meta, bool) {
	fm := New()
	for _, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || k == "" || !isPlainKey(k) || (len(v) > 0 && v[0] != ' ') {
			return nil, false
		}
		v = strings.TrimSpace(v)
		if !isPlainYAMLValue(v) {
			return nil, false
		}
		if _, dup := fm.Get(k); dup {
			return nil, false
		}
		fm.setRaw(k, v, v)
	}
	return fm, true
}

func isPlainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return k[0] != '-'
}

// isPlainYAMLValue reports values that YAML reads as exactly their own text.
func isPlainYAMLValue(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	if strings.Contains(v, ": ") || strings.Contains(v, " #") || hasControl(v) {
		return false
	}
	return !strings.HasSuffix(v, ":")
}

// parseYAMLHeader reads the header as YAML. ok=false declines (the flat reader gets a try); an error is a
// header YAML reads but that must not be used, such as an alias bomb.
func parseYAMLHeader(path string, lines []string) (*Meta, bool, error) {
	src := strings.Join(lines, "\n")
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, false, nil
	}
	fm := New()
	if doc.Kind == 0 { // empty header
		return fm, true, nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false, nil
	}
	m := doc.Content[0]
	if err := checkAliasExpansion(path, m); err != nil {
		return nil, false, err
	}
	owner := anchorOwners(m)
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, vn := m.Content[i], m.Content[i+1]
		if kn.Kind != yaml.ScalarNode || kn.Value == "" {
			return nil, false, nil
		}
		if _, dup := fm.Get(kn.Value); dup {
			return nil, false, nil
		}
		nextLine := len(lines) + 1
		if i+2 < len(m.Content) {
			nextLine = m.Content[i+2].Line
		}
		if kn.Tag == "!!merge" || usesYAMLReferences(vn) {
			// Anchors, aliases, tags and merge keys are kept as the bytes that were read rather than
			// resolved: the file is hand-edited and kept in git, so an untouched key must not show up in a
			// diff, and expanding an alias into a copy would silently stop a later edit of the anchor
			// from reaching it. Get returns the resolved value; rendering falls back to it only when
			// the anchor is no longer written above the alias.
			val, resolved, err := resolvedYAML(vn)
			if err != nil {
				return nil, false, nil
			}
			raw, ok := rawValueText(lines, kn.Line, nextLine)
			if !ok {
				fm.setRaw(kn.Value, val, resolved)
				continue
			}
			fm.setRaw(kn.Value, val, raw)
			if fm.raw[kn.Value] != raw { // plain text that renders as itself needs no bookkeeping
				continue
			}
			if fm.refs == nil {
				fm.refs = map[string]*yamlRefs{}
			}
			fm.refs[kn.Value] = yamlRefsOf(kn.Value, vn, owner, resolved)
			continue
		}
		var val string
		switch vn.Kind {
		case yaml.ScalarNode:
			val = vn.Value // the text as written: `~`, `0.50` or `123-456` stay what they were
		default:
			// A nested list or map: keep it as one line of flow-style YAML text so nothing is lost.
			vn.Style = yaml.FlowStyle
			out, err := yaml.Marshal(vn)
			if err != nil {
				return nil, false, nil
			}
			val = strings.TrimSpace(string(out))
			if !strings.ContainsAny(val, "\r\n") {
				// Written back as the flow text itself, unquoted, so it stays a list or map for YAML readers;
				// quoting it would turn it into a string.
				fm.setRaw(kn.Value, val, val)
				continue
			}
		}
		if vn.Kind == yaml.ScalarNode && vn.Line == kn.Line && nextLine == kn.Line+1 && kn.Line >= 1 && kn.Line <= len(lines) {
			_, raw, _ := strings.Cut(lines[kn.Line-1], ":")
			fm.setRaw(kn.Value, val, strings.TrimSpace(raw))
		} else {
			fm.Set(kn.Value, val)
		}
	}
	return fm, true, nil
}

// maxAliasExpansion bounds how many more values a header's aliases may stand for than it spells out.
// Real front-matter shares a date or a short list; the bound only stops exponential alias bombs.
const maxAliasExpansion = 10000

// checkAliasExpansion refuses a header whose aliases expand to more than maxAliasExpansion extra values, or
// that contains an alias to a value enclosing it. Sizes are memoised, so a bomb is measured in linear time.
func checkAliasExpansion(path string, m *yaml.Node) error {
	size := map[*yaml.Node]int{}
	const inProgress = -1
	var expand func(n *yaml.Node) (int, error)
	expand = func(n *yaml.Node) (int, error) {
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return 0, fmt.Errorf("alias *%s has no anchor", n.Value)
			}
			return expand(n.Alias)
		}
		switch s := size[n]; {
		case s == inProgress:
			return 0, fmt.Errorf("anchor &%s contains an alias to itself", n.Anchor)
		case s > 0:
			return s, nil
		}
		size[n] = inProgress
		total := 1
		for _, c := range n.Content {
			s, err := expand(c)
			if err != nil {
				return 0, err
			}
			total = min(total+s, maxAliasExpansion+1) // saturate: a bomb's true size overflows int
		}
		size[n] = total
		return total, nil
	}
	spelled, expanded := 0, 0
	for i := 0; i+1 < len(m.Content); i += 2 {
		spelled += countNodes(m.Content[i]) + countNodes(m.Content[i+1])
		for _, n := range m.Content[i : i+2] {
			s, err := expand(n)
			if err != nil {
				return &ParseError{Path: path, Line: m.Content[i].Line + 1, Reason: "front-matter " + err.Error()}
			}
			expanded = min(expanded+s, spelled+maxAliasExpansion+1)
		}
		if expanded-spelled > maxAliasExpansion {
			return &ParseError{Path: path, Line: m.Content[i].Line + 1,
				Reason: fmt.Sprintf("front-matter aliases expand to more than %d values (an alias bomb?); fix the file by hand", maxAliasExpansion)}
		}
	}
	return nil
}

// countNodes counts the nodes of n as written, an alias counting once.
func countNodes(n *yaml.Node) int {
	total := 1
	if n.Kind != yaml.AliasNode {
		for _, c := range n.Content {
			total += countNodes(c)
		}
	}
	return total
}

// anchorOwners maps every anchored node of the top-level mapping m to the key whose value defines it.
func anchorOwners(m *yaml.Node) map[*yaml.Node]string {
	owner := map[*yaml.Node]string{}
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		if n.Anchor != "" {
			owner[n] = key
		}
		if n.Kind != yaml.AliasNode {
			for _, c := range n.Content {
				walk(c, key)
			}
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		walk(m.Content[i+1], m.Content[i].Value)
	}
	return owner
}

// usesYAMLReferences reports a value that holds an anchor, alias, explicit tag or merge key anywhere.
func usesYAMLReferences(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode || n.Style&yaml.TaggedStyle != 0 || n.Tag == "!!merge" {
		return true
	}
	for _, c := range n.Content {
		if usesYAMLReferences(c) {
			return true
		}
	}
	return false
}

// yamlRefsOf lists the anchors key's value vn defines and the aliases it uses from other keys.
func yamlRefsOf(key string, vn *yaml.Node, owner map[*yaml.Node]string, resolved string) *yamlRefs {
	r := &yamlRefs{uses: map[string]string{}, resolved: resolved}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Anchor != "" {
			r.defines = append(r.defines, n.Anchor)
		}
		if n.Kind == yaml.AliasNode {
			if k := owner[n.Alias]; k != key {
				r.uses[n.Value] = k
			}
			return
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(vn)
	return r
}

// anchorsWritten reports whether every alias r uses would name the same anchor in the output so far.
func (r *yamlRefs) anchorsWritten(written map[string]string) bool {
	for alias, key := range r.uses {
		if written[alias] != key {
			return false
		}
	}
	return true
}

// resolvedYAML returns vn's value as Get reports it (a scalar's text, a collection's flow text) and as
// one line of alias-free YAML. Callers have bounded the expansion with checkAliasExpansion.
func resolvedYAML(vn *yaml.Node) (val, text string, err error) {
	r := resolveAliases(vn)
	out, err := yaml.Marshal(r)
	if err != nil {
		return "", "", fmt.Errorf("render resolved value: %w", err)
	}
	text = strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", "\n  ")
	if r.Kind == yaml.ScalarNode {
		return r.Value, text, nil
	}
	return text, text, nil
}

// resolveAliases returns a copy of n with aliases replaced by what they name, anchors and comments dropped,
// collections in flow style and block scalars double-quoted, so it fits on the key's line.
func resolveAliases(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	c := *n
	c.Anchor, c.HeadComment, c.LineComment, c.FootComment = "", "", "", ""
	switch c.Kind {
	case yaml.ScalarNode:
		if c.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			c.Style = c.Style&yaml.TaggedStyle | yaml.DoubleQuotedStyle
		}
	case yaml.SequenceNode, yaml.MappingNode:
		c.Style = c.Style&yaml.TaggedStyle | yaml.FlowStyle
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, e := range n.Content {
			c.Content[i] = resolveAliases(e)
		}
	}
	return &c
}

// rawValueText returns the text after the key on line keyLine through the line before nextLine, minus
// trailing blank and comment lines (they belong to the next key), as Render writes it back.
func rawValueText(lines []string, keyLine, nextLine int) (string, bool) {
	if keyLine < 1 || keyLine > len(lines) || nextLine <= keyLine || nextLine > len(lines)+1 {
		return "", false
	}
	_, first, ok := strings.Cut(lines[keyLine-1], ":")
	if !ok {
		return "", false
	}
	rest := lines[keyLine : nextLine-1]
	for len(rest) > 0 {
		t := strings.TrimSpace(rest[len(rest)-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		rest = rest[:len(rest)-1]
	}
	first = strings.TrimSpace(first)
	if len(rest) == 0 {
		return first, first != ""
	}
	return first + "\n" + strings.Join(rest, "\n"), true
}

// parseFlatHeader is the compat fallback: `key: value` lines, with the writer's double-quote escaping.
func parseFlatHeader(path string, lines []string) (*Meta, error) {
	fm := New()
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		if !ok {
			return nil, &ParseError{Path: path, Line: i + 2, Reason: fmt.Sprintf("front-matter line is not `key: value`: %q", textcut.Clip(trimmed, 60, "…"))}
		}
		if k == "" {
			return nil, &ParseError{Path: path, Line: i + 2, Reason: "front-matter line has an empty key"}
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = unescapeDoubleQuoted(v[1 : len(v)-1])
		} else if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			v = strings.ReplaceAll(v[1:len(v)-1], "''", "'")
		}
		// A repeated key: the last value wins, like the original reader. The raw text is not kept: this
		// header is not YAML, so rewrites normalise its quoting to the compat form.
		fm.Delete(k)
		fm.Set(k, v)
	}
	return fm, nil
}

func unescapeDoubleQuoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '"', '\\', '/':
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// compatKeyOrder is the order the original writer uses for the standard keys.
var compatKeyOrder = []string{"name", "description", "type", "stability", "score", "created", "last_used", "last_decay"}

func isCompatKey(k string) bool {
	for _, c := range compatKeyOrder {
		if c == k {
			return true
		}
	}
	return false
}

// OrderedKeys returns the keys in written order: the standard keys in compat order, then the rest as read.
func (f *Meta) OrderedKeys() []string {
	out := make([]string, 0, f.Len())
	for _, k := range compatKeyOrder {
		if _, ok := f.Get(k); ok {
			out = append(out, k)
		}
	}
	for _, k := range f.keys {
		if !isCompatKey(k) {
			out = append(out, k)
		}
	}
	return out
}

// Render writes the document in the compat format: `---`, header lines, `---`, a blank line, the body.
func (d *Document) Render() []byte {
	return Render(d.Meta, d.Body)
}

// Render renders meta and body in the compat format; the body is written byte for byte.
func Render(meta *Meta, body string) []byte {
	var b bytes.Buffer
	b.Grow(64*meta.Len() + len(body) + 16)
	b.WriteString(Delim + "\n")
	anchors := map[string]string{} // anchor → key whose raw text last defined it above
	for _, k := range meta.OrderedKeys() {
		v, ok := meta.raw[k]
		if !ok {
			v = QuoteValue(meta.vals[k])
		} else if r := meta.refs[k]; r != nil {
			if r.anchorsWritten(anchors) {
				for _, a := range r.defines {
					anchors[a] = k
				}
			} else {
				v = r.resolved
			}
		}
		b.WriteString(k)
		if !strings.HasPrefix(v, "\n") { // a block value kept as read starts on the next line
			b.WriteString(": ")
		} else {
			b.WriteByte(':')
		}
		b.WriteString(v)
		b.WriteByte('\n')
	}
	b.WriteString(Delim + "\n\n")
	b.WriteString(body)
	return b.Bytes()
}

// QuoteValue returns v as written in a header: double-quoted with `\` `"` and newlines escaped when it
// contains characters the compat reader or YAML would misread, else verbatim. Other control characters
// are written as YAML `\xNN` escapes: raw, YAML readers refuse them and a NUL would cut the file short
// for C tools.
func QuoteValue(v string) string {
	if !needsQuote(v) {
		return v
	}
	var b strings.Builder
	b.Grow(len(v) + 8)
	b.WriteByte('"')
	for _, r := range v {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsControl(r): // C0, DEL and C1 are all below U+0100
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func needsQuote(v string) bool {
	if v == "" {
		return false
	}
	if strings.ContainsAny(v, ":\"'#[{*>|") || strings.Contains(v, Delim) || hasControl(v) {
		return true
	}
	// Leading/trailing blanks would be trimmed by every reader; a leading YAML indicator would change the type.
	if v[0] == ' ' || v[len(v)-1] == ' ' {
		return true
	}
	switch v[0] {
	case '-', '?', ',', ']', '}', '&', '!', '%', '@', '`':
		return true
	}
	return false
}
