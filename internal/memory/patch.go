package memory

import (
	"bytes"
	"strings"

	"github.com/somni-dev/somni/internal/frontmatter"
)

// render is what Save writes for e. An entry read from disk whose body is
// unchanged gets only its changed header lines rewritten in the bytes that
// were read (a reinforcement or decay touches score/stability/dates, and a
// person's key order, comments and spacing stay as they wrote them); any
// other change renders the document in the compat format.
func (e *Entry) render() []byte {
	if raw := e.version.Data(); raw != nil && e.framed {
		if out, ok := patchHeader(raw, e.Meta, e.Body); ok {
			return out
		}
	}
	return frontmatter.Render(e.Meta, e.Body)
}

// patchHeader rewrites, in raw, the header lines of keys whose value in meta
// differs from raw's, and appends keys raw lacks before the closing `---`.
// It declines (false) when the body changed, a key was deleted, or a changed
// key's value spans more than its own line (YAML block values).
func patchHeader(raw []byte, meta *frontmatter.Meta, body string) ([]byte, bool) {
	old, err := frontmatter.Parse("", raw)
	if err != nil || !old.HasFrontMatter || old.Body != body {
		return nil, false
	}
	for _, k := range old.Meta.Keys() {
		if _, ok := meta.Get(k); !ok {
			return nil, false
		}
	}
	changed := map[string]bool{}
	for _, k := range meta.Keys() {
		if v, ok := old.Meta.Get(k); !ok || v != meta.Value(k) {
			changed[k] = true
		}
	}
	if len(changed) == 0 {
		return raw, true
	}
	text := string(raw)
	lines := strings.SplitAfter(text, "\n")
	var out bytes.Buffer
	out.Grow(len(raw) + 64)
	out.WriteString(lines[0]) // the opening ---
	done := map[string]bool{}
	closed := false
	i := 1
	for ; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimRight(line, " \t\r\n")
		if trimmed == frontmatter.Delim {
			closed = true
			break
		}
		key, _, isKey := strings.Cut(trimmed, ":")
		if isKey && key == strings.TrimSpace(key) && changed[key] && !done[key] {
			if i+1 < len(lines) && isContinuation(lines[i+1]) {
				return nil, false
			}
			out.WriteString(headerLine(meta, key))
			out.WriteString(lineEnd(line))
			done[key] = true
			continue
		}
		out.WriteString(line)
	}
	if !closed {
		return nil, false
	}
	for _, k := range meta.OrderedKeys() {
		if changed[k] && !done[k] {
			if _, had := old.Meta.Get(k); had {
				return nil, false // present but not on a line of its own
			}
			out.WriteString(headerLine(meta, k))
			out.WriteString("\n")
		}
	}
	for ; i < len(lines); i++ {
		out.WriteString(lines[i])
	}
	return out.Bytes(), true
}

// isContinuation reports a line that continues the previous key's value.
func isContinuation(line string) bool {
	return strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "- ")
}

func headerLine(meta *frontmatter.Meta, key string) string { return key + ": " + meta.RawValue(key) }

func lineEnd(line string) string {
	if strings.HasSuffix(line, "\r\n") {
		return "\r\n"
	}
	if strings.HasSuffix(line, "\n") {
		return "\n"
	}
	return ""
}
