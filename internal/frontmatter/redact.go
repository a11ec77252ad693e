package frontmatter

import (
	"strconv"
	"strings"

	"github.com/somni-dev/somni/internal/redact"
)

// Redact is a file's bytes as they may reach disk: every secret package
// redact finds is replaced by redact.Marker, in the header as well as the
// body. ok is false when nothing was found, and then out is data itself: a
// file without secrets is written exactly as typed.
//
// A header is not a set of values. A comment line (`# aws_secret_access_key:
// …`) and a comment after a value are bytes a reader never gets as a value,
// and a value such as `Hunter2-Staging-42` is a secret only beside its key
// (`password:`), as a KEY=value line is. So the header is redacted as the
// text it is, key and value on one line, and each value again behind its
// key (`key: value`), which also sees a value that YAML spreads over lines
// away from its key. The redacted header is written between the bytes that
// were around it when it still reads as those redacted values; else the
// header is rendered from them, comments dropped.
func Redact(path string, data []byte) (out []byte, ok bool) {
	text := string(data)
	doc, err := Parse(path, data)
	if err != nil || !doc.HasFrontMatter {
		if red := redact.Text(text); red != text {
			return []byte(red), true
		}
		return data, false
	}
	hs, he, bs, _, _ := frameOf(text)
	header, rest := text[hs:he], text[bs:]
	body := redact.Text(doc.Body)
	red := redact.Text(header)
	values, keysChanged, valuesChanged := redactedValues(doc.Meta)
	if red == header && !valuesChanged && !keysChanged && body == doc.Body {
		return data, false
	}
	if !keysChanged {
		red = quoteRedactedValues(header, red)
		cand := text[:hs] + red + text[he:bs] + rest[:len(rest)-len(doc.Body)] + body
		if readsAs(path, cand, doc.Meta.keys, values, readsAsYAML(splitLines(header))) {
			return []byte(cand), true
		}
	}
	return Render(redactedMeta(doc.Meta, values), body), true
}

// redactedValues is each value of m redacted with its key in view. keysChanged
// reports a key that is (part of) a secret itself.
func redactedValues(m *Meta) (values map[string]string, keysChanged, valuesChanged bool) {
	values = make(map[string]string, len(m.keys))
	for _, k := range m.keys {
		v := m.vals[k]
		values[k] = valueBehindKey(k, v)
		valuesChanged = valuesChanged || values[k] != v
		keysChanged = keysChanged || redact.Text(k) != k
	}
	return values, keysChanged, valuesChanged
}

// valueBehindKey is v redacted as the line `k: v` reads. When the line's
// key part changes too (a key that is itself a secret) the value is judged
// on its own; redactedMeta renames the key.
func valueBehindKey(k, v string) string {
	line := k + ": " + v
	red := redact.Text(line)
	if red == line {
		return v
	}
	if rest, ok := strings.CutPrefix(red, k+": "); ok {
		return rest
	}
	return redact.Text(v)
}

// quoteRedactedValues double-quotes, in red (header redacted line by line
// from orig), each plain value that its marker made into other YAML:
// `password: [REDACTED]` would be a list. Quoted, it is a string again, as
// the store writes any such value (QuoteValue); a comment after it stays.
func quoteRedactedValues(orig, red string) string {
	ol, rl := strings.Split(orig, "\n"), strings.Split(red, "\n")
	if len(ol) != len(rl) {
		return red // a secret across lines (a key block): left to readsAs
	}
	for i, line := range rl {
		k, ov, ok := strings.Cut(ol[i], ":")
		if line == ol[i] || !ok || k == "" || !isPlainKey(k) || !strings.HasPrefix(line, k+":") {
			continue
		}
		cr := ""
		if strings.HasSuffix(line, "\r") {
			line, cr = line[:len(line)-1], "\r"
		}
		oldVal, _ := cutComment(strings.TrimSuffix(ov, "\r"))
		newVal, comment := cutComment(line[len(k)+1:])
		oldVal, newVal = strings.TrimSpace(oldVal), strings.TrimSpace(newVal)
		if oldVal == newVal || !isPlainYAMLValue(oldVal) || isPlainYAMLValue(newVal) {
			continue
		}
		rl[i] = k + ": " + QuoteValue(newVal) + comment + cr
	}
	return strings.Join(rl, "\n")
}

// cutComment splits a plain value's text from the comment after it (` # …`,
// blanks before the # included).
func cutComment(v string) (value, comment string) {
	for i := 1; i < len(v); i++ {
		if v[i] == '#' && (v[i-1] == ' ' || v[i-1] == '\t') {
			j := i
			for j > 0 && (v[j-1] == ' ' || v[j-1] == '\t') {
				j--
			}
			return v[:j], v[j:]
		}
	}
	return v, ""
}

// readsAs reports whether text parses to exactly keys with values, and as
// YAML when the header it came from did (a marker must not turn a header
// other YAML tools read into one only the flat reader takes).
func readsAs(path, text string, keys []string, values map[string]string, wasYAML bool) bool {
	doc, err := Parse(path, []byte(text))
	if err != nil || !doc.HasFrontMatter || doc.Meta.Len() != len(keys) {
		return false
	}
	for _, k := range keys {
		if v, ok := doc.Meta.Get(k); !ok || v != values[k] {
			return false
		}
	}
	if wasYAML {
		hs, he, _, _, _ := frameOf(text)
		return readsAsYAML(splitLines(text[hs:he]))
	}
	return true
}

func readsAsYAML(lines []string) bool {
	if _, ok := parseSimpleFlat(lines); ok {
		return true
	}
	_, ok, err := parseYAMLHeader("", lines)
	return ok && err == nil
}

// splitLines is header text (each line with its line end) as the lines
// splitFrontMatter gives.
func splitLines(header string) []string {
	if header == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(header, "\n"), "\n")
}

// redactedMeta is m with values, rendered afresh: no comment line and no
// text as read survives unless its `key: text` line holds no secret, and a
// key that is a secret is renamed to its redacted spelling made a plain key.
// A line that still redacts once rendered (a secret only the quoting
// shows) is the marker alone.
func redactedMeta(m *Meta, values map[string]string) *Meta {
	out := New()
	for _, k := range m.keys {
		key := k
		if red := redact.Text(k); red != k {
			key = freeKey(out, plainKeySpelling(red))
		}
		v := values[k]
		raw, hasRaw := m.raw[k]
		if hasRaw && v == m.vals[k] && m.refs[k] == nil && redact.Text(k+": "+raw) == k+": "+raw {
			out.setRaw(key, v, raw)
		} else {
			out.Set(key, v)
		}
		if line := key + ": " + out.RawValue(key); redact.Text(line) != line {
			out.Set(key, redact.Marker)
		}
	}
	return out
}

// plainKeySpelling turns a redacted key ("[REDACTED]_x") into one every
// reader takes as written ("REDACTED_x").
func plainKeySpelling(k string) string {
	b := []byte(k)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if s := strings.Trim(string(b), "_-"); s != "" {
		return s
	}
	return "redacted"
}

// freeKey is k, or k_2, k_3 … when m has it already.
func freeKey(m *Meta, k string) string {
	for i, key := 2, k; ; i++ {
		if _, taken := m.Get(key); !taken {
			return key
		}
		key = k + "_" + strconv.Itoa(i)
	}
}
