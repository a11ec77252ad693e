package redact

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Marker replaces every secret Text removes.
const Marker = "[REDACTED]"

// Text removes credentials from text before it reaches disk. Every session, tool and dream log line
// passes through it, so it is the one place where secrets are stopped.
func Text(text string) string {
	out, _ := TextCount(text)
	return out
}

// TextCount is Text that also reports how many secrets it replaced.
func TextCount(text string) (string, int) {
	if text == "" {
		return text, 0
	}
	rules, language := screen(text)
	if !rules && !language {
		return text, 0
	}
	return applySpans(text, dropPublic(text, findSpans(text, rules, 0)))
}

// publicPrefixes start keys that are public by design: Stripe's and Clerk's publishable keys are
// sent to every browser, and their secret twins (sk_live_, sk_test_) have gitleaks rules.
var publicPrefixes = []string{"pk_live_", "pk_test_"}

// dropPublic removes the spans that are public by design: a publishable key, or the payload of a
// data: URI (an image or a font is random base64 that any rule may take for a key).
func dropPublic(text string, spans []span) []span {
	payloads := dataPayloads(text)
	kept := spans[:0]
	for _, s := range spans {
		if !publicKey(text[s.start:s.end]) && !inside(s, payloads) {
			kept = append(kept, s)
		}
	}
	return kept
}

func publicKey(v string) bool {
	for _, p := range publicPrefixes {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

func inside(s span, in []span) bool {
	for _, p := range in {
		if s.start >= p.start && s.end <= p.end {
			return true
		}
	}
	return false
}

// dataPayloads are the base64 payloads of the data: URIs of text, read through JSON's escaped
// slashes.
func dataPayloads(text string) []span {
	var ps []span
	for off := 0; ; {
		i := strings.Index(text[off:], ";base64,")
		if i < 0 {
			return ps
		}
		start := off + i + len(";base64,")
		end := start
		for end < len(text) {
			if isTokenByte(text[end]) {
				end++
			} else if text[end] == '\\' && end+1 < len(text) && text[end+1] == '/' {
				end += 2
			} else {
				break
			}
		}
		for end < len(text) && text[end] == '=' {
			end++
		}
		if strings.Contains(text[max(0, off+i-64):off+i], "data:") {
			ps = append(ps, span{start, end})
		}
		off = end
		if end == start {
			off++
		}
	}
}

// findSpans runs every check on text and, when text holds string escapes, on its unescaped view
// (depth counts the layers already read through); without rules (see screen), only the language
// rules.
func findSpans(text string, rules bool, depth int) []span {
	var spans []span
	if !rules {
		// Only a password word of another language let the text in: its rules alone can match.
		spans = languageSpans(text)
	} else {
		spans = append(contextSpans(text), bareSpans(text)...)
	}
	if hasLongToken(text) {
		// gitleaks rules end a token at quotes, blanks or line ends; a tool
		// call summary wraps it in brackets (`exec-shell(npm_…)`). The rules
		// read a copy with brackets as blanks (same length), and each finding
		// is located in the original.
		spans = append(spans, detectorSpans(strings.Map(bracketToSpace, text))...)
	}
	if depth < maxUnescapeDepth && hasEscape(text) {
		v := unescapeView(text)
		if rules, language := screen(v.view); rules || language {
			spans = append(spans, v.spansIn(findSpans(v.view, rules, depth+1))...)
		}
	}
	return spans
}

// detector is the gitleaks rule set, loaded once (about 200 rules: tens of
// milliseconds) and only read afterwards, so concurrent calls share it. nil
// only if the embedded rules do not load, which is fixed at build time and
// tested; the context rules still run then.
var detector = sync.OnceValue(func() *glRules {
	rs, err := loadGitleaksRules()
	if err != nil {
		return nil
	}
	return rs
})

// Prepare loads the rules now rather than on first use, so that the first
// text redacted after a start does not wait for them; the sidecar runs it in
// the background once its first reply is out. Text called meanwhile waits for
// the same load and never runs on part of the rules. A gitleaks rule's
// pattern, already parsed here, is compiled on the rule's first run: most
// never run, and compiling them all held megabytes (glRule.regex).
func Prepare() {
	detector()
	contextRules()
	triggerFinder()
	languageRules()
	languageFinder()
	for _, re := range []func() *regexp.Regexp{cardRe, cardWords, cvvRe, versionRe, fieldRe, seedWords} {
		re()
	}
	bip39Words()
}

// detectorSpans finds the gitleaks findings in text.
func detectorSpans(text string) []span {
	detector := detector()
	if detector == nil {
		return nil
	}
	var spans []span
	located := map[string]bool{}
	var findings []glFinding
	for _, chunk := range detectorChunks(text) {
		findings = append(findings, detector.detect(chunk)...)
	}
	for _, f := range findings {
		// The PEM context rule redacts the same blocks but keeps the header. A secret found many times
		// is located once: each search already finds every occurrence.
		if f.ruleID == "private-key" || len(f.secret) < minSecretLen || located[f.secret] {
			continue
		}
		located[f.secret] = true
		for off := 0; ; {
			i := strings.Index(text[off:], f.secret)
			if i < 0 {
				break
			}
			spans = append(spans, span{off + i, off + i + len(f.secret)})
			off += i + len(f.secret)
		}
	}
	return spans
}

// gitleaks checks each finding's allowlists against the finding's whole line, so a long line with
// many findings (minified JSON, a pasted log) costs findings × line length. The detector therefore
// reads the text in chunks of about detectorChunk bytes, cut at a blank and each starting
// detectorOverlap bytes before the previous cut, so a keyword and its value are seen together.
const (
	detectorChunk   = 2 << 10
	detectorOverlap = 256
)

func detectorChunks(text string) []string {
	if len(text) <= detectorChunk {
		return []string{text}
	}
	var chunks []string
	for start := 0; start < len(text); {
		end := min(len(text), start+detectorChunk)
		if end < len(text) {
			// Never inside a token: back to a blank in the chunk's second half, or on to the next one.
			if cut := strings.LastIndexAny(text[start+detectorChunk/2:end], " \t\n"); cut >= 0 {
				end = start + detectorChunk/2 + cut
			} else if cut := strings.IndexAny(text[end:], " \t\n"); cut >= 0 {
				end += cut
			} else {
				end = len(text)
			}
		}
		from := max(0, start-detectorOverlap)
		if cut := strings.IndexAny(text[from:start], " \t\n"); cut >= 0 {
			from += cut
		}
		chunks = append(chunks, text[from:end])
		start = end
	}
	return chunks
}

// minSecretLen keeps a short captured value from being replaced everywhere it happens to occur.
const minSecretLen = 6

type span struct{ start, end int }

// applySpans merges overlapping spans and replaces each with Marker in one pass. A span inside an
// earlier marker is dropped so that running Text on its own output changes nothing.
func applySpans(text string, spans []span) (string, int) {
	if len(spans) == 0 {
		return text, 0
	}
	markers := markerSpans(text)
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	b.Grow(len(text))
	last, n := 0, 0
	for i := 0; i < len(spans); {
		s := spans[i]
		for i++; i < len(spans) && spans[i].start <= s.end; i++ {
			s.end = max(s.end, spans[i].end)
		}
		if s.start < last || insideMarker(s, markers) {
			continue
		}
		b.WriteString(text[last:s.start])
		b.WriteString(Marker)
		last = s.end
		n++
	}
	if n == 0 {
		return text, 0
	}
	b.WriteString(text[last:])
	return b.String(), n
}

func markerSpans(text string) []span {
	var m []span
	for off := 0; ; {
		i := strings.Index(text[off:], Marker)
		if i < 0 {
			return m
		}
		m = append(m, span{off + i, off + i + len(Marker)})
		off += i + len(Marker)
	}
}

// insideMarker reports whether s touches a marker, i.e. it is a rule firing on an earlier redaction.
func insideMarker(s span, markers []span) bool {
	for _, m := range markers {
		if s.start < m.end && m.start < s.end {
			return true
		}
	}
	return false
}

func bracketToSpace(r rune) rune {
	switch r {
	case '(', ')', '[', ']', '{', '}', '<', '>', '|', ',':
		return ' '
	}
	return r
}
