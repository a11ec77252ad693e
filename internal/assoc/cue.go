package assoc

import (
	"encoding/json"
	"strings"
	"unicode"

	"github.com/somni-dev/somni/internal/textseg"
)

// memoryTools never trigger hints: the model is already recalling.
var memoryTools = map[string]bool{
	"recall_memories": true, "search_episodes": true, "search_recent_conversation": true,
	"search_knowledge": true, "add_intention": true, "complete_intention": true,
	"cancel_intention": true, "list_intentions": true, "share_memory": true,
}

// builtinCueKeys are the arguments that carry the intent of each built-in
// tool of the DeepSeek Harness (rc.8: dsh-tool-bash, -pwsh, -fs, -fs-search,
// -str-replace-editor, -web), read off their registered schemas. The other
// arguments are prose the model writes about the call (bash's
// description), text it is writing (write's content, edit's strings) or
// knobs (offset, limit, timeoutMs), and would only dilute the cue.
var builtinCueKeys = map[string][]string{
	"bash":               {"command"},
	"pwsh":               {"command"},
	"read":               {"file_path"},
	"read_image":         {"file_path"},
	"write":              {"file_path"},
	"edit":               {"file_path"},
	"str_replace_editor": {"path"}, // its command is view/create/…, not a cue
	"glob":               {"pattern", "path"},
	"grep":               {"pattern", "path", "include"},
	"web_fetch":          {"url"},
	"web_search":         {"queries"},
}

// cueKeys are the arguments that carry the intent of a tool the table
// above does not know (an MCP server's, another plugin's), in order.
var cueKeys = []string{"command", "cmd", "query", "queries", "url", "file_path", "path", "pattern"}

// pathKeys are the arguments that name a file, a folder or a page: their
// words are a cue of their own (PathWordsCue).
var pathKeys = map[string]bool{"file_path": true, "path": true, "url": true}

// argStrings is an argument's text: a string, or the strings of a list
// (web_search's queries).
func argStrings(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		if s := strings.TrimSpace(x); s != "" {
			out = append(out, s)
		}
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && strings.TrimSpace(s) != "" {
				out = append(out, strings.TrimSpace(s))
			}
		}
	}
	return out
}

// keysOf is the cue arguments of a tool, in order.
func keysOf(toolName string) []string {
	if keys, ok := builtinCueKeys[toolName]; ok {
		return keys
	}
	return cueKeys
}

// ActionCue derives the cue of a tool call: every non-empty cue argument
// of the tool (builtinCueKeys, else cueKeys), in that order and
// space-separated; else "<tool>: <compact args JSON>". Memory tools yield
// "". Every argument counts, not the first: a grep's pattern (the symbol
// searched for) must not be dropped because the call also names a path.
func ActionCue(toolName string, args json.RawMessage) string {
	if memoryTools[toolName] {
		return ""
	}
	var m map[string]any
	if len(args) > 0 && json.Unmarshal(args, &m) == nil {
		var parts []string
		for _, k := range keysOf(toolName) {
			parts = append(parts, argStrings(m[k])...)
		}
		if len(parts) > 0 {
			return strings.Join(parts, " ")
		}
	}
	compact := strings.TrimSpace(string(args))
	if m != nil {
		if b, err := json.Marshal(m); err == nil {
			compact = string(b)
		}
	}
	if compact == "" || compact == "null" {
		compact = "{}"
	}
	return toolName + ": " + compact
}

// PathWordsCue is the second cue of a tool call that names a file, folder
// or page: the meaningful words of its name ("staging postgres" of
// …/docs/staging-postgres-notes.md), "" when it has none that are
// specific. A path as a whole is a poor query: its folders (home, the
// user's name, src, docs) and extension are words no memory is about, and
// each one the memory lacks lowers its keyword score, so reading
// staging-postgres-notes.md stayed under the gate against a note on
// staging Postgres that never names the file.
func PathWordsCue(toolName string, args json.RawMessage) string {
	if memoryTools[toolName] {
		return ""
	}
	var m map[string]any
	if len(args) == 0 || json.Unmarshal(args, &m) != nil {
		return ""
	}
	var ws words
	for _, k := range keysOf(toolName) {
		for _, s := range argStrings(m[k]) {
			switch {
			case pathKeys[k]:
				ws.add(PathWords(s))
			case textKeys[k]:
				ws.addText(s)
			}
		}
	}
	return ws.String()
}

// textKeys are the arguments of free text (a command line, a search)
// whose fields may name files: `cat docs/staging-postgres-notes.md`.
var textKeys = map[string]bool{"command": true, "cmd": true, "query": true, "queries": true}

// TextPathWordsCue is PathWordsCue for free text (what the user said, a
// command line): the words of each field that names a file or folder.
func TextPathWordsCue(text string) string {
	var ws words
	ws.addText(text)
	return ws.String()
}

// words collects path words once each, in order.
type words struct {
	seen map[string]bool
	list []string
}

func (ws *words) add(w []string) {
	if ws.seen == nil {
		ws.seen = map[string]bool{}
	}
	for _, x := range w {
		if !ws.seen[x] {
			ws.seen[x] = true
			ws.list = append(ws.list, x)
		}
	}
}

// addText adds the path words of every field of text that looks like a
// file or folder: a path with a slash or a name.ext.
func (ws *words) addText(text string) {
	for _, f := range strings.Fields(text) {
		f = strings.Trim(f, "\"'`()[]{}<>,;!?")
		if strings.HasPrefix(f, "-") || !looksLikePath(f) {
			continue
		}
		ws.add(PathWords(f))
	}
}

func (ws *words) String() string { return strings.Join(ws.list, " ") }

// looksLikePath reports a field naming a file or folder: it has a slash,
// or ends in an extension after a name with a letter (notes.md, not 1.5).
func looksLikePath(f string) bool {
	if strings.ContainsAny(f, "/\\") {
		return true
	}
	dot := strings.LastIndexByte(f, '.')
	return dot > 0 && isExt(f[dot+1:]) && strings.IndexFunc(f[:dot], unicode.IsLetter) >= 0
}

// minPathWords is how many meaningful words a name needs to be a cue: a
// name made of two or more words (staging-postgres-notes, kafka_consumer_
// rebalance, StagingRedisAuth) names a topic; one word (Button.tsx,
// architecture.md, handler.go) is the everyday vocabulary of code, and
// would hint whatever memory mentions it.
const minPathWords = 2

// PathWords returns the meaningful words of the last named component of a
// path or URL: split on - _ . and camelCase, lowercased, without the
// extension, numbers, words under three letters, stopwords and the
// generic parts of paths (genericPathWords). A component with no such
// word (README.md, index.ts, a user's home) passes to the folder above,
// two at most. Fewer than minPathWords words yield nil.
func PathWords(p string) []string {
	p = strings.TrimSpace(p)
	if i := strings.Index(p, "://"); i >= 0 { // a URL: its path, not its host
		p = p[i+3:]
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[j+1:]
		} else {
			p = ""
		}
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	comps := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
	for n, i := 0, len(comps)-1; i >= 0 && n < 3; i-- {
		if i > 0 && isHomeDir(comps[i-1]) {
			break // a user's name, and everything above it
		}
		ws := nameWords(comps[i], i == len(comps)-1)
		if len(ws) == 0 {
			n++
			continue
		}
		if len(ws) < minPathWords {
			return nil
		}
		return ws
	}
	return nil
}

// isHomeDir reports a folder whose children are user names.
func isHomeDir(c string) bool { return c == "home" || c == "Users" || c == "users" }

// nameWords splits one path component into its meaningful words; last
// says it is the file's own name, whose extension is dropped.
func nameWords(c string, last bool) []string {
	if last {
		if dot := strings.LastIndexByte(c, '.'); dot > 0 && isExt(c[dot+1:]) {
			c = c[:dot]
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.FieldsFunc(c, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r))
	}) {
		for _, w := range splitCamel(part) {
			w = strings.ToLower(w)
			if len(w) < 3 || isNumber(w) || genericPathWords[w] || textseg.IsStopword(w) || seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// isExt reports a file extension: 1–5 ASCII letters or digits (md, tsx,
// yaml, mp4).
func isExt(s string) bool {
	if len(s) == 0 || len(s) > 5 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// splitCamel cuts an identifier at lower→upper and letter↔digit changes
// and before the last capital of a run (HTTPServer → HTTP Server).
func splitCamel(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		if unicode.IsLower(prev) && unicode.IsUpper(cur) ||
			unicode.IsUpper(prev) && unicode.IsUpper(cur) && unicode.IsLower(next) ||
			unicode.IsDigit(prev) != unicode.IsDigit(cur) {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

// genericPathWords are the parts of paths that say where a file is or
// what kind it is, never what it is about: project layout (src, lib,
// internal, components), file roles (index, main, notes, readme, test,
// utils), configuration (conf, config, settings) and system folders.
var genericPathWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`src source sources lib libs internal pkg cmd app apps bin build dist out
	target vendor node modules packages package lock index main mod init default defaults notes note doc docs
	readme changelog license todo conf config configs cfg settings setting env etc var usr opt srv tmp temp
	home users user root desktop documents downloads pictures wiki test tests spec specs testdata fixture
	fixtures mock mocks util utils helper helpers common shared core base components component hooks store
	assets public static scripts script tools www web api github gitlab workflows file files data new old
	backup copy draft final local dev prod view views page pages model models types type module styles
	style image images img screenshot http https html use get set`) {
		m[w] = true
	}
	return m
}()
