package redact

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/pelletier/go-toml/v2"
	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"

	"github.com/somni-dev/somni/internal/testutil"
)

// TestGitleaksRulesCurrent holds the embedded rule set to the one the gitleaks module in go.mod
// ships: after an upgrade, copy its config/gitleaks.toml over internal/redact/gitleaks.toml.
func TestGitleaksRulesCurrent(t *testing.T) {
	if !bytes.Equal(gitleaksTOML, []byte(config.DefaultConfig)) {
		t.Fatal("internal/redact/gitleaks.toml differs from the gitleaks module's config/gitleaks.toml: copy it over")
	}
}

// TestGitleaksRules loads the embedded rule set: every rule, and only config keys this package
// implements (an upgrade that starts using another fails here).
func TestGitleaksRules(t *testing.T) {
	rs, err := loadGitleaksRules()
	if err != nil {
		t.Fatal(err)
	}
	d := gitleaksDetector(t)
	if len(rs.rules) != len(d.Config.Rules) || len(d.Config.Rules) < 150 {
		t.Fatalf("%d rules loaded, gitleaks has %d", len(rs.rules), len(d.Config.Rules))
	}
	// Patterns are compiled on a rule's first run: every one must compile
	// then, with the secret group gitleaks names.
	for _, r := range rs.rules {
		if r.regex != nil {
			if re := r.regex(); r.secretGroup > re.NumSubexp() {
				t.Errorf("rule %s: secret group %d of %d", r.id, r.secretGroup, re.NumSubexp())
			}
		}
		for _, a := range append(r.allowlists, rs.global...) {
			if a.regex != nil {
				a.regex()
			}
		}
	}
}

// TestPrefilterMatchesTrie holds the keyword prefilter to the trie
// gitleaks uses: the same keywords found in every corpus text and in
// texts where keywords overlap or nest.
func TestPrefilterMatchesTrie(t *testing.T) {
	rs := detector()
	var c glConfig
	if err := toml.NewDecoder(bytes.NewReader(gitleaksTOML)).Decode(&c); err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	var kws []string
	for _, r := range c.Rules {
		for _, k := range r.Keywords {
			if k = strings.ToLower(k); index[k] == 0 {
				kws = append(kws, k)
				index[k] = len(kws)
			}
		}
	}
	trie := ahocorasick.NewTrieBuilder().AddStrings(kws).Build()
	probes := []string{strings.Join(kws, ""), strings.Join(kws, " "), strings.ToUpper(strings.Join(kws, "x"))}
	for _, f := range []string{"secrets.jsonl", "ordinary.jsonl"} {
		for _, l := range testutil.SecretCorpus(t, f) {
			probes = append(probes, l.Text)
		}
	}
	for _, p := range probes {
		lower := strings.ToLower(p)
		var want, got []string
		for _, m := range trie.MatchString(lower) {
			if w := m.MatchString(); !slices.Contains(want, w) {
				want = append(want, w)
			}
		}
		it := rs.prefilter.IterOverlapping(lower)
		for m := it.Next(); m != nil; m = it.Next() {
			if k := kws[m.Pattern()]; !slices.Contains(got, k) {
				got = append(got, k)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%.80q: prefilter %q, trie %q", p, got, want)
		}
	}
}

// TestDetectorMatchesGitleaks holds the package's reading of the rules to gitleaks' own detector
// (DetectString, no decoding, as this package ran it before): the same findings on every text of
// the secret corpus, read as the detector reads it (brackets as blanks, in chunks), and on texts
// of several of its lines, where line numbers decide which generic finding gives way.
func TestDetectorMatchesGitleaks(t *testing.T) {
	d := gitleaksDetector(t)
	rs := detector()
	if rs == nil {
		t.Fatal("rules did not load")
	}
	var texts []string
	var all []string
	for _, f := range []string{"secrets.jsonl", "ordinary.jsonl"} {
		for _, l := range testutil.SecretCorpus(t, f) {
			all = append(all, l.Text)
		}
	}
	for i, s := range all {
		texts = append(texts, s, strings.Map(bracketToSpace, s))
		texts = append(texts, detectorChunks(strings.Map(bracketToSpace, s))...)
		if i+2 < len(all) {
			texts = append(texts, strings.Join(all[i:i+3], "\n"), all[i]+"\r\n"+all[i+1]+" gitleaks:allow\n"+all[i+2])
		}
	}
	found := 0
	for _, s := range texts {
		var want []string
		for _, f := range d.DetectString(s) {
			want = append(want, fmt.Sprintf("%s %d %q", f.RuleID, f.StartLine, f.Secret))
		}
		var got []string
		for _, f := range rs.detect(s) {
			got = append(got, fmt.Sprintf("%s %d %q", f.ruleID, f.startLine, f.secret))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%.120q:\n got  %q\n want %q", s, got, want)
		}
		found += len(want)
	}
	t.Logf("%d findings over %d texts, all as gitleaks finds them", found, len(texts))
	if found < 100 {
		t.Fatalf("only %d findings over %d texts: the comparison says little", found, len(texts))
	}
}

func gitleaksDetector(t *testing.T) *detect.Detector {
	t.Helper()
	logging.Logger = zerolog.Nop()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	d.MaxDecodeDepth = 0
	return d
}

// TestSubstrSetMatchesTrie holds substrSet to the Aho-Corasick trie it
// replaced for stopwords: every rule's stopwords, probed with each word
// alone, inside other text, cut short, and with the corpus's secrets.
func TestSubstrSetMatchesTrie(t *testing.T) {
	var c glConfig
	if err := toml.NewDecoder(bytes.NewReader(gitleaksTOML)).Decode(&c); err != nil {
		t.Fatal(err)
	}
	var probes []string
	for _, l := range testutil.SecretCorpus(t, "secrets.jsonl") {
		probes = append(probes, strings.ToLower(l.Text))
	}
	lists := 0
	for _, r := range c.Rules {
		for _, a := range r.Allowlists {
			if len(a.StopWords) == 0 {
				continue
			}
			lists++
			var words []string
			for _, w := range a.StopWords {
				words = append(words, strings.ToLower(w))
			}
			trie := ahocorasick.NewTrieBuilder().AddStrings(words).Build()
			set := newSubstrSet(words)
			ps := append([]string(nil), probes...)
			for _, w := range words {
				ps = append(ps, w, "x9"+w+"q", w[:len(w)/2], w[1:])
			}
			for _, p := range ps {
				if want := trie.MatchFirstString(p) != nil; set.in(p) != want {
					t.Errorf("rule %s: %q: set %v, trie %v", r.ID, p, !want, want)
				}
			}
		}
	}
	if lists == 0 {
		t.Fatal("no stopword lists in the rule set")
	}
}
