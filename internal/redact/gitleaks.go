package redact

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	ahocorasick "github.com/petar-dambovaliev/aho-corasick"

	"github.com/somni-dev/somni/internal/lazyre"
)

// gitleaksTOML is gitleaks' default rule set: config/gitleaks.toml of the module version go.mod
// names, copied here (TestGitleaksRulesCurrent fails until the copy is refreshed after an upgrade).
// Read and run here rather than through gitleaks' detect package, which brings viper, sprig,
// archive readers and their package initialisation into the binary, megabytes of it and
// milliseconds of every start before main (release build, GODEBUG=inittrace=1; measured in
// docs/ARCHITECTURE.md, Measurements), for a library whose only use here is DetectString.
//
//go:embed gitleaks.toml
var gitleaksTOML []byte

// The parts of gitleaks' config format the default rule set uses. Decoding refuses any other
// key, so an upgrade that starts using one (extend, required rules, targeted allowlists) fails
// TestGitleaksRules instead of being silently ignored.
type (
	glConfig struct {
		Title       string          `toml:"title"`
		Description string          `toml:"description"`
		MinVersion  string          `toml:"minVersion"`
		AllowList   *glAllowConfig  `toml:"allowlist"`
		Allowlists  []glAllowConfig `toml:"allowlists"`
		Rules       []glRuleConfig  `toml:"rules"`
	}
	glRuleConfig struct {
		ID          string          `toml:"id"`
		Description string          `toml:"description"`
		Path        string          `toml:"path"`
		Regex       string          `toml:"regex"`
		SecretGroup int             `toml:"secretGroup"`
		Entropy     float64         `toml:"entropy"`
		Keywords    []string        `toml:"keywords"`
		Tags        []string        `toml:"tags"`
		Allowlists  []glAllowConfig `toml:"allowlists"`
	}
	glAllowConfig struct {
		Description string   `toml:"description"`
		Condition   string   `toml:"condition"`
		Commits     []string `toml:"commits"`
		Paths       []string `toml:"paths"`
		RegexTarget string   `toml:"regexTarget"`
		Regexes     []string `toml:"regexes"`
		StopWords   []string `toml:"stopwords"`
	}
)

// glRules is the compiled rule set, read the way gitleaks v8's detector reads a fragment that has
// no file path and no commit (DetectString).
type glRules struct {
	rules  []glRule
	global []*glAllow
	// prefilter finds every rule keyword (lower case) in a text, overlaps
	// included, as gitleaks' trie does. Its DFA holds the 244 keywords in
	// a fraction of what the BobuSumisu trie gitleaks uses kept, a dense
	// row per node (both measured in docs/ARCHITECTURE.md, Measurements).
	prefilter ahocorasick.AhoCorasick
	nKeywords int
}

type glRule struct {
	id string
	// regex is compiled on the rule's first run: a rule runs only when
	// one of its keywords is in a text, and most never are in chat, so
	// compiling all 222 up front held megabytes of programs that were never
	// run (measured in docs/ARCHITECTURE.md, Measurements). loadGitleaksRules checks that each
	// pattern parses.
	regex       func() *regexp.Regexp
	path        *regexp.Regexp
	secretGroup int
	entropy     float64
	keywords    []int // indexes of the prefilter's keywords
	allowlists  []*glAllow
}

// glAllow is one allowlist. A text has no path and no commit, so those entries only matter as
// conditions that fail under "AND".
type glAllow struct {
	and                  bool
	target               string                // "" (the secret), "match" or "line"
	regex                func() *regexp.Regexp // the regexes joined, as gitleaks joins them; compiled when first needed
	hasRegexes, hasOther bool                  // hasOther: commits or paths
	stopwords            *substrSet
}

// loadGitleaksRules compiles the embedded rule set as gitleaks' ViperConfig.Translate does.
func loadGitleaksRules() (*glRules, error) {
	var c glConfig
	dec := toml.NewDecoder(bytes.NewReader(gitleaksTOML))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("redact: gitleaks rules: %w", err)
	}
	if c.AllowList != nil {
		if len(c.Allowlists) > 0 {
			return nil, fmt.Errorf("redact: gitleaks rules: [allowlist] beside [[allowlists]]")
		}
		c.Allowlists = append(c.Allowlists, *c.AllowList)
	}
	rs := &glRules{}
	for _, a := range c.Allowlists {
		al, err := compileAllow(a)
		if err != nil {
			return nil, fmt.Errorf("redact: gitleaks rules: [[allowlists]]: %w", err)
		}
		rs.global = append(rs.global, al)
	}
	keywords := map[string]int{}
	var kws []string
	for _, r := range c.Rules {
		if strings.TrimSpace(r.ID) == "" || (r.Regex == "" && r.Path == "") {
			return nil, fmt.Errorf("redact: gitleaks rules: rule %q has no id or nothing to match", r.ID)
		}
		cr := glRule{id: r.ID, secretGroup: r.SecretGroup, entropy: r.Entropy}
		var err error
		if r.Regex != "" {
			// Parsed now (refused as gitleaks refuses it), compiled when first run.
			re, err := syntax.Parse(r.Regex, syntax.Perl)
			if err != nil {
				return nil, fmt.Errorf("redact: gitleaks rule %s: %w", r.ID, err)
			}
			if n := re.MaxCap(); r.SecretGroup > n {
				return nil, fmt.Errorf("redact: gitleaks rule %s: secret group %d of %d", r.ID, r.SecretGroup, n)
			}
			cr.regex = lazyre.New(r.Regex)
		}
		if r.Path != "" {
			if cr.path, err = regexp.Compile(r.Path); err != nil {
				return nil, fmt.Errorf("redact: gitleaks rule %s: path: %w", r.ID, err)
			}
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			i, ok := keywords[k]
			if !ok {
				i = len(kws)
				keywords[k] = i
				kws = append(kws, k)
			}
			cr.keywords = append(cr.keywords, i)
		}
		for _, a := range r.Allowlists {
			al, err := compileAllow(a)
			if err != nil {
				return nil, fmt.Errorf("redact: gitleaks rule %s: allowlist: %w", r.ID, err)
			}
			cr.allowlists = append(cr.allowlists, al)
		}
		rs.rules = append(rs.rules, cr)
	}
	b := ahocorasick.NewAhoCorasickBuilder(ahocorasick.Opts{MatchKind: ahocorasick.StandardMatch, DFA: true})
	rs.prefilter, rs.nKeywords = b.Build(kws), len(kws)
	return rs, nil
}

// compileAllow is gitleaks' parseAllowlist and Allowlist.Validate.
func compileAllow(a glAllowConfig) (*glAllow, error) {
	al := &glAllow{hasRegexes: len(a.Regexes) > 0, hasOther: len(a.Commits) > 0 || len(a.Paths) > 0}
	switch strings.ToUpper(a.Condition) {
	case "AND", "&&":
		al.and = true
	case "", "OR", "||":
	default:
		return nil, fmt.Errorf("condition %q: want and or or", a.Condition)
	}
	switch a.RegexTarget {
	case "", "secret":
	case "match", "line":
		al.target = a.RegexTarget
	default:
		return nil, fmt.Errorf("regexTarget %q: want match or line", a.RegexTarget)
	}
	if !al.hasRegexes && !al.hasOther && len(a.StopWords) == 0 {
		return nil, fmt.Errorf("an allowlist needs commits, paths, regexes or stopwords")
	}
	if al.hasRegexes {
		for _, p := range a.Regexes {
			if _, err := syntax.Parse(p, syntax.Perl); err != nil {
				return nil, fmt.Errorf("regex %q: %w", p, err)
			}
		}
		al.regex = lazyre.New("(?:" + strings.Join(a.Regexes, "|") + ")")
	}
	if len(a.StopWords) > 0 {
		seen := map[string]bool{}
		var words []string
		for _, w := range a.StopWords {
			if w = strings.ToLower(w); !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
		al.stopwords = newSubstrSet(words)
	}
	return al, nil
}

// glFinding is what gitleaks reports and detectorSpans reads.
type glFinding struct {
	ruleID, match, secret, line string
	startLine                   int
}

// detect is gitleaks' Detector.DetectString with MaxDecodeDepth 0: the rules whose keywords the
// text holds (or that have none), then the generic findings another rule's secret covers dropped.
func (rs *glRules) detect(text string) []glFinding {
	present := make([]bool, rs.nKeywords)
	it := rs.prefilter.IterOverlapping(strings.ToLower(text))
	for m := it.Next(); m != nil; m = it.Next() {
		present[m.Pattern()] = true
	}
	var findings []glFinding
	var newlines [][]int
	for i := range rs.rules {
		r := &rs.rules[i]
		run := len(r.keywords) == 0
		for _, k := range r.keywords {
			if present[k] {
				run = true
				break
			}
		}
		if run {
			findings = append(findings, rs.detectRule(text, r, &newlines)...)
		}
	}
	return dropCoveredGeneric(findings)
}

// detectRule is gitleaks' Detector.detectRule for a text without path, commit or decoding.
func (rs *glRules) detectRule(text string, r *glRule, newlines *[][]int) []glFinding {
	// A rule with a path runs only where the path matches; a text's path is "".
	if r.path != nil && !r.path.MatchString("") || r.regex == nil {
		return nil
	}
	re := r.regex()
	matches := re.FindAllStringIndex(text, -1)
	if len(matches) == 0 {
		return nil
	}
	if *newlines == nil {
		*newlines = newlineIndex().FindAllStringIndex(text, -1)
	}
	var findings []glFinding
	for _, m := range matches {
		secret := strings.Trim(text[m[0]:m[1]], "\n")
		m[1] = m[0] + len(secret)
		startLine, lineStart, lineEnd := location(*newlines, text, m)
		f := glFinding{ruleID: r.id, match: secret, secret: secret, line: text[lineStart:lineEnd], startLine: startLine}
		if strings.Contains(f.line, "gitleaks:allow") {
			continue
		}
		if groups := re.FindStringSubmatch(f.secret); len(groups) >= 2 {
			if r.secretGroup > 0 {
				if len(groups) <= r.secretGroup {
					continue
				}
				f.secret = groups[r.secretGroup]
			} else {
				for _, g := range groups[1:] {
					if g != "" {
						f.secret = g
						break
					}
				}
			}
		}
		if r.entropy != 0 && shannonEntropy(f.secret) <= r.entropy {
			continue
		}
		if allowed(f, rs.global) || allowed(f, r.allowlists) {
			continue
		}
		findings = append(findings, f)
	}
	return findings
}

var newlineIndex = lazyre.New("\n")

// allowed is gitleaks' checkFindingAllowed for a text without path or commit.
func allowed(f glFinding, lists []*glAllow) bool {
	for _, a := range lists {
		target := f.secret
		switch a.target {
		case "match":
			target = f.match
		case "line":
			target = f.line
		}
		regexOK := a.regex != nil && target != "" && a.regex().FindString(target) != ""
		stopOK := a.stopwords != nil && f.secret != "" && a.stopwords.in(strings.ToLower(f.secret))
		if !a.and {
			if regexOK || stopOK {
				return true
			}
			continue
		}
		// "AND": every kind of entry present must hold; a path or commit never does here.
		ok := !a.hasOther
		if a.hasRegexes {
			ok = ok && regexOK
		}
		if a.stopwords != nil {
			ok = ok && stopOK
		}
		if ok {
			return true
		}
	}
	return false
}

// dropCoveredGeneric is gitleaks' filter: a generic rule's finding gives way to another rule's on
// the same line whose secret contains it.
func dropCoveredGeneric(findings []glFinding) []glFinding {
	var out []glFinding
	for _, f := range findings {
		keep := true
		if strings.Contains(strings.ToLower(f.ruleID), "generic") {
			for _, g := range findings {
				if f.startLine == g.startLine && f.ruleID != g.ruleID && strings.Contains(g.secret, f.secret) &&
					!strings.Contains(strings.ToLower(g.ruleID), "generic") {
					keep = false
					break
				}
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

// shannonEntropy is gitleaks' (runes counted, divided by the byte length).
func shannonEntropy(data string) float64 {
	if data == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range data {
		counts[c]++
	}
	inv := 1.0 / float64(len(data))
	entropy := 0.0
	for _, n := range counts {
		freq := float64(n) * inv
		entropy -= freq * math.Log2(freq)
	}
	return entropy
}

// location is gitleaks' location (detect/location.go) reduced to what a finding here needs: the
// match's line number and the byte range of its line(s).
func location(newlines [][]int, raw string, m []int) (startLine, lineStart, lineEnd int) {
	start, end := m[0], m[1]
	if len(newlines) == 0 {
		newlines = [][]int{{len(raw), len(raw) + 1}}
	}
	prev, set, last := 0, false, 0
	for n, pair := range newlines {
		last = n
		nl := pair[0]
		if prev <= start && start < nl {
			set = true
			startLine, lineStart, lineEnd = n, prev, nl
		}
		if prev < end && end <= nl {
			lineEnd = nl
		}
		prev = pair[0]
	}
	if !set {
		startLine = last + 1
		i := 0
		for end+i < len(raw) && raw[end+i] != '\n' && raw[end+i] != '\r' {
			i++
		}
		lineEnd = end + i
	}
	if end > lineEnd {
		lineEnd = end
	}
	return startLine, lineStart, lineEnd
}

// substrSet answers whether a text contains one of a set of words. It
// replaces an Aho-Corasick trie for the allowlists' stopwords: that trie
// keeps a dense transition row per node, and the generic rule's ~1,500
// stopwords made it close to a third of the sidecar's live heap (measured
// in docs/ARCHITECTURE.md, Measurements). Stopwords are only checked against a finding's secret
// (tens of bytes, and only when a rule matched), so a lookup per start and
// word length costs nothing that matters, and the map holds the same words
// in a small fraction of the trie.
type substrSet struct {
	words map[string]struct{}
	lens  []int // the distinct word lengths, ascending
}

func newSubstrSet(words []string) *substrSet {
	s := &substrSet{words: make(map[string]struct{}, len(words))}
	seen := map[int]bool{}
	for _, w := range words {
		if w == "" {
			continue
		}
		s.words[w] = struct{}{}
		if !seen[len(w)] {
			seen[len(w)] = true
			s.lens = append(s.lens, len(w))
		}
	}
	slices.Sort(s.lens)
	return s
}

// in reports whether text contains a word of the set (bytes, as the trie matched).
func (s *substrSet) in(text string) bool {
	for i := range len(text) {
		for _, n := range s.lens {
			if i+n > len(text) {
				break
			}
			if _, ok := s.words[text[i:i+n]]; ok {
				return true
			}
		}
	}
	return false
}
