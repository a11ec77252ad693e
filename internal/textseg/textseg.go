// Package textseg cuts text into the lexical terms somni matches on, one way
// for every caller: the recall index, the hash embedder and the store's
// near-duplicate check. Words of space-delimited scripts are lowercased,
// stopword-filtered and lightly stemmed; Han, kana and Hangul runs become
// 2–4-character windows; no term straddles two scripts. Cutting text to a
// budget is package textcut's job, not segmentation.
//
//	textseg.go  Tokenize, IndexTerms, Runs, Symbols, MostlyCJK: the tokenizer and exact symbols;
//	            IsLower, LowerIfNeeded: case folding without a copy when there is nothing to fold;
//	            Segment: the best segmentation of a CJK run into windows of known value
//	fold.go     Fold: full-width forms read as ASCII, Traditional Chinese as Simplified (OpenCC's character table)
//	surface.go  Surface: matched terms turned back into the words a text wrote (a hit's evidence)
//	sentences.go Sentences: a text cut after its sentence marks (the compaction digest, change claims)
package textseg

import (
	"github.com/kljensen/snowball/english"
	"sync"

	"strings"
	"unicode"
	"unicode/utf8"
)

// script classes: a token never straddles two of them.
const (
	scriptNone = iota
	scriptWord // Latin, Cyrillic, digits, … (space-delimited scripts)
	scriptHan
	scriptKana
	scriptHangul
)

// scriptOf classifies a (lowercased) rune; scriptNone is a separator.
func scriptOf(r rune) int {
	switch {
	case r < 0x80:
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return scriptWord
		}
		return scriptNone
	case isHan(r):
		return scriptHan
	case r >= 0x3040 && r <= 0x30FF && r != 0x30FB, r >= 0x31F0 && r <= 0x31FF, r >= 0xFF66 && r <= 0xFF9F:
		return scriptKana
	case r >= 0xAC00 && r <= 0xD7AF, r >= 0x1100 && r <= 0x11FF, r >= 0x3130 && r <= 0x318F:
		return scriptHangul
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
		return scriptWord
	}
	return scriptNone
}

// isHan covers CJK Unified Ideographs, Extension A, compatibility
// ideographs and the supplementary-plane extensions (B onwards).
func isHan(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x20000 && r <= 0x323AF || r == 0x3007
}

// isCJKScript reports whether a script segments into n-gram windows.
func isCJKScript(s int) bool { return s == scriptHan || s == scriptKana || s == scriptHangul }

// IsCJK reports whether r is a Han, kana or Hangul character.
func IsCJK(r rune) bool { return isCJKScript(scriptOf(r)) }

// cjkRunesPerWord is how many CJK characters weigh as much as one word of
// a space-delimited script: written Chinese averages about two characters
// a word.
const cjkRunesPerWord = 2

// MostlyCJK reports whether most of s's content is in a CJK script: its
// Han, kana and Hangul characters, counted cjkRunesPerWord to a word,
// outweigh its other words of two or more letters.
func MostlyCJK(s string) bool {
	var cjk, words int
	for _, r := range Runs(s) {
		n := utf8.RuneCountInString(r.Text)
		switch {
		case r.CJK:
			cjk += n
		case n >= 2:
			words++
		}
	}
	return cjk > cjkRunesPerWord*words
}

// IsStopword reports whether a lowercased word or CJK window is a function
// word that says nothing about topic.
func IsStopword(w string) bool { return stopwords[w] }

// Run is a maximal sequence of runes of one script, lowercased.
type Run struct {
	Text string
	// CJK marks Han, kana and Hangul runs, which have no spaces between
	// words and are matched by character windows instead.
	CJK bool
}

// Runs lowercases s, folds full-width forms to ASCII and Traditional
// Chinese to Simplified (Fold) and cuts it into single-script runs; whitespace, punctuation (ASCII and
// CJK: ，、。？！：；…) and symbols separate runs.
func Runs(s string) []Run {
	var out []Run
	var b strings.Builder
	cur := scriptNone
	flush := func() {
		if b.Len() > 0 {
			out = append(out, Run{Text: b.String(), CJK: isCJKScript(cur)})
			b.Reset()
		}
	}
	for _, r := range s {
		r = Fold(unicode.ToLower(r))
		sc := scriptOf(r)
		if sc != cur {
			flush()
			cur = sc
		}
		if sc != scriptNone {
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

// stopwords are function words whose matches say nothing about topic;
// BM25's idf already discounts them in large corpora, but small memory
// stores are not large, so they are dropped outright.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for with from as is are was were be been
	being do does did done have has had i me my we our you your he she it its they them their this that these those
	what which who whom whose when where why how can could should would will shall may might must not no yes so than
	then there here about into over under again any all some such only own same too very just also s t don doesn
	didn isn aren wasn weren 的 了 是 在 和 与 或 也 都 就 我 你 他 她 它 我们 你们 他们 这 那 这个 那个 什么 怎么 怎样 吗 呢 吧 啊
	一个 有 没有 还 要 会 能 可以 之 其 及 并 对 把 被 让 给`) {
		m[w] = true
	}
	return m
}()

// fillers are words of a question's time and manner (now, again,
// currently) and its all-purpose verb "use", which are no function words
// yet say nothing about the topic:
// "which port does staging postgres use now?" asks what "what port is
// staging postgres on?" asks, and each unmatched query word lowers the
// keyword score of every entry (it counts in the ideal score BM25 is
// divided by). They are dropped from keyword terms only: IsStopword, which
// the hash embedder reads, does not list them, so no stored vector
// changes. Measured on the issue's memory ("Staging Postgres runs on
// pg-stage-7, port 6543") with the local embedder: "which port does
// staging postgres use now?" 0.595 → 0.729 against 0.744 for "what port is
// staging postgres on?"; no tuning-half number of testdata/recall moved.
var fillers = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`now nowadays currently again still actually anymore moment use`) {
		m[w] = true
	}
	return m
}()

// Tokenize returns the lexical terms of s in order, repeats kept: words of
// space-delimited scripts (≥ 2 chars, stopwords and fillers dropped) and,
// for each CJK, kana or Hangul run, its 2–4-char windows (a 1-char run is
// kept whole).
func Tokenize(s string) []string {
	var out []string
	for _, r := range Runs(s) {
		if !r.CJK {
			if utf8.RuneCountInString(r.Text) >= 2 && !stopwords[r.Text] && !fillers[r.Text] {
				out = append(out, stem(r.Text))
			}
			continue
		}
		out = appendWindows(out, r.Text)
	}
	return out
}

// IndexTerms are the terms a recall index holds for s: Tokenize's, plus
// each character of a CJK run of two or more (stopword characters aside)
// as a back-off term. Chinese words that share a character often share a
// meaning (跳舞 and 舞蹈, 画画 and 绘画, 伤心 and 心情), which the 2–4-char
// windows never match; unigram plus bigram indexing is the usual answer in
// Chinese retrieval. A character is weak evidence: the index weighs it
// low, never takes it as strong on its own, and keeps it out of a query's
// ideal score. Tokenize stays without them, so the hash embedder's
// features and the near-duplicate check do not change.
func IndexTerms(s string) []string {
	out := Tokenize(s)
	for _, r := range Runs(s) {
		if !r.CJK || utf8.RuneCountInString(r.Text) < 2 {
			continue // a 1-char run is already a term of its own
		}
		for _, c := range r.Text {
			if ch := string(c); !stopwords[ch] {
				out = append(out, ch)
			}
		}
	}
	return out
}

// stem is an English word's Snowball (Porter2) stem, as Lucene's English
// analyzer reduces words: "adoption" and "adopting" meet "adopt",
// "agencies" meets "agency", "leaked" meets "leak". It replaced a
// hand-written stripper of -s, -ed and -ing; on the tuning halves of make
// eval no number fell and MADial en hit@5 rose 0.78 → 0.80 (keyword only),
// 0.75 → 0.79 (hash), 0.80 → 0.82 (local). Words under four letters and
// words with digits or non-ASCII letters are kept as they are, so symbols
// like "v2s" or "ids" are never mangled.
func stem(w string) string {
	if len(w) < 4 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return w
		}
	}
	stems.RLock()
	st, ok := stems.m[w]
	stems.RUnlock()
	if ok {
		return st
	}
	st = english.Stem(w, false)
	stems.Lock()
	if len(stems.m) >= stemCacheMax {
		clear(stems.m) // a new vocabulary (another store, a bulk import): start over
	}
	stems.m[w] = st
	stems.Unlock()
	return st
}

// stems remembers Snowball's stems: Snowball allocates for every word it
// reads, which made tokenizing several times slower and a first index
// measurably longer, while a store uses a few thousand distinct words over
// and over. stemCacheMax bounds what it holds (both measured in
// docs/ARCHITECTURE.md, Measurements).
var stems = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

const stemCacheMax = 8192

// appendWindows appends every 2-, 3- and 4-rune window of a CJK run; a
// single rune is its own token so one-character words still match.
func appendWindows(out []string, text string) []string {
	rs := []rune(text)
	if len(rs) == 1 {
		if !stopwords[text] {
			out = append(out, text)
		}
		return out
	}
	for n := 2; n <= 4; n++ {
		for i := 0; i+n <= len(rs); i++ {
			w := string(rs[i : i+n])
			if n == 2 && stopwords[w] {
				continue
			}
			out = append(out, w)
		}
	}
	return out
}

// StrongTerm reports whether a matched term alone is real keyword
// evidence: a CJK word of ≥ 2 chars or another token of ≥ 3 chars.
func StrongTerm(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	n := utf8.RuneCountInString(t)
	if isCJKScript(scriptOf(r)) {
		return n >= 2
	}
	return n >= 3
}

// symbolTrim is what surrounds a symbol in prose without being part of it.
const symbolTrim = "\"'`()[]{}<>,;!?。，、？！：；“”‘’（）《》【】「」"

// Symbols extracts the exact symbols of a query: numbers, ports, IPs,
// paths, versions and identifiers (db-billing-02, allkeys-lru,
// UNLEASH_TOKEN, getUserByID). Plain words and single characters are not
// symbols; symbols pin entries that contain them verbatim.
//
// A compound field also yields its parts (see symbolParts): a command
// line or a tool's path argument names a host or file inside a longer
// token (--host=pg-stage-7, app@pg-stage-7:6543,
// /home/ann/src/docs/staging-postgres-notes.md), while a memory names it
// by itself.
func Symbols(q string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(f string) {
		f = strings.Trim(f, symbolTrim)
		f = strings.TrimRight(f, ".:") // sentence punctuation after a symbol
		if utf8.RuneCountInString(f) < 2 || !isSymbol(f) {
			return
		}
		k := strings.ToLower(f)
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	for _, f := range strings.FieldsFunc(q, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("，、。？！；（）《》【】「」“”", r) || isHan(r)
	}) {
		add(f)
		for _, p := range symbolParts(strings.Trim(f, symbolTrim)) {
			add(p)
		}
		add(fileStem(strings.Trim(f, symbolTrim)))
	}
	return out
}

// fileStem is the name of the file a path ends in without its extension
// ("pg-stage-7" of conf/pg-stage-7.conf), "" when it has none: files are
// named after what they configure or describe, and a memory names that
// thing, not the file. add still keeps only a stem that is a symbol, so
// index.ts and package.json yield nothing.
func fileStem(f string) string {
	name := f[strings.LastIndexByte(f, '/')+1:]
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || !isFileExt(name[dot+1:]) {
		return ""
	}
	return name[:dot]
}

// partSeps separate the parts of a compound field: option values (=),
// user@host, host:port and URL schemes (:), lists (,) and path
// components (/).
const partSeps = "=@:,/"

// maxPathSuffix is how many trailing path components a path yields as
// its own symbols (file, dir/file, dir/dir/file): memories cite a file by
// its name or a short repository-relative path, never by a home directory.
const maxPathSuffix = 3

// symbolParts returns the parts of a compound field worth matching on
// their own: the pieces between separators and the last components of a
// path. The field itself is not among them.
func symbolParts(f string) []string {
	if !strings.ContainsAny(f, partSeps) {
		return nil
	}
	var out []string
	comps := strings.Split(f, "/")
	for n := 2; n <= maxPathSuffix && n < len(comps); n++ {
		suffix := comps[len(comps)-n:]
		if !strings.ContainsAny(strings.Join(suffix, ""), "=@:,") && suffix[0] != "" {
			out = append(out, strings.Join(suffix, "/"))
		}
	}
	for _, p := range strings.FieldsFunc(f, func(r rune) bool { return strings.ContainsRune(partSeps, r) }) {
		if p != f {
			out = append(out, p)
		}
	}
	return out
}

// Specific reports whether an exact symbol names one thing of the user's
// world rather than the everyday vocabulary of tools, so that finding it
// in an entry is evidence on its own: hosts and identifiers
// (pg-stage-7, UNLEASH_TOKEN, TestCheckoutFlow), numbers of four digits
// or more (ports, IPs, dates), multi-component paths. Not specific: a
// command-line flag (--stat, -race), a number under four digits (30, 443),
// a plain file name (package.json, go.sum, README.md), anything under four
// characters (v2, q3, 5s), a one-component path (/tmp).
func Specific(sym string) bool {
	if strings.HasPrefix(sym, "-") || utf8.RuneCountInString(sym) < 4 {
		return false
	}
	var digits, letters, dots, joiners int
	for _, r := range sym {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters++
		case r == '.':
			dots++
		default:
			joiners++
		}
	}
	switch {
	case letters == 0:
		return digits >= 4
	case strings.HasPrefix(sym, "/") || strings.HasPrefix(sym, "~/") || strings.HasPrefix(sym, "./"):
		named := 0 // components with a letter or digit: "./..." has none
		for _, c := range strings.Split(sym, "/") {
			if strings.IndexFunc(c, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
				named++
			}
		}
		return named >= 2
	case dots == 1 && digits == 0 && joiners == 0 && isFileExt(sym[strings.IndexByte(sym, '.')+1:]):
		return false // a plain file name, name.ext; testclock.New is an identifier
	}
	return true
}

// isFileExt reports a file extension: 1–4 lowercase letters (md, json).
func isFileExt(s string) bool {
	if len(s) == 0 || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// isSymbol decides whether a whitespace-delimited field is an exact symbol.
func isSymbol(f string) bool {
	var digits, letters, upper, lower, inner int
	prevLower := false
	camel := false
	for i, r := range f {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z':
			letters++
			lower++
		case r >= 'A' && r <= 'Z':
			letters++
			upper++
			if prevLower {
				camel = true
			}
		case strings.ContainsRune("-_./:@#~=", r):
			if i > 0 {
				inner++
			}
		default:
			return false // non-ASCII: prose, never a symbol
		}
		prevLower = r >= 'a' && r <= 'z'
	}
	switch {
	case letters == 0 && digits >= 2: // numbers, ports, IPs, dates
		return true
	case letters == 0:
		return false
	case strings.HasPrefix(f, "/") || strings.HasPrefix(f, "~/") || strings.HasPrefix(f, "./"):
		return true // paths
	case inner > 0 && (digits > 0 || letters >= 2) && !strings.HasSuffix(f, "-"):
		return true // db-billing-02, allkeys-lru, UNLEASH_TOKEN, a/b, v1.2
	case digits > 0 && letters > 0:
		return true // v2, sha256, http2
	case camel:
		return true // getUserByID
	case upper >= 2 && lower == 0 && letters >= 4:
		return false // plain acronyms in caps read as words (REDIS)
	}
	return false
}

// ContainsSymbol reports whether hay (lowercased) holds sym (lowercased)
// as a whole symbol: the neighbouring characters are not letters, digits
// or the joiners - _ so db-billing-02 does not pin db-billing-021.
func ContainsSymbol(hay, sym string) bool {
	for off := 0; ; {
		i := strings.Index(hay[off:], sym)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(sym)
		if !joins(lastRune(hay[:i])) && !joins(firstRune(hay[end:])) {
			return true
		}
		off = i + 1
	}
}

func joins(r rune) bool {
	return r == '-' || r == '_' || r < 0x80 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') ||
		r >= 0x80 && (unicode.IsLetter(r) && !isCJKScript(scriptOf(r)) || unicode.IsDigit(r))
}

func lastRune(s string) rune {
	if s == "" {
		return 0
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func firstRune(s string) rune {
	if s == "" {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// LowerIfNeeded is strings.ToLower without the copy for text that has
// nothing to lower (most of it: CJK, or already lowercase).
func LowerIfNeeded(s string) string {
	if IsLower(s) {
		return s
	}
	return strings.ToLower(s)
}

// IsLower reports whether strings.ToLower(s) == s, without building it.
func IsLower(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unicode.ToLower(r) != r {
			return false // ToLower would replace the invalid byte, or lower the rune
		}
		i += n
	}
	return true
}

// Segment is the best total value of non-overlapping windows of a CJK
// run, where run[p][n-1] is the term index of the n-char window at p (-1
// for none) and val(i) the value of term i (0 when not held); best is
// scratch of at least len(run)+1. The index scores a query's CJK run by it
// (a word segmenter whose dictionary is the doc's windows).
func Segment(run [][4]int16, val func(i int16) float64, best []float64) float64 {
	best[len(run)] = 0
	for p := len(run) - 1; p >= 0; p-- {
		b := best[p+1] // position p left uncovered
		for n := 1; n <= 4 && p+n <= len(run); n++ {
			if i := run[p][n-1]; i >= 0 {
				if v := val(i); v > 0 {
					b = max(b, v+best[p+n])
				}
			}
		}
		best[p] = b
	}
	return best[0]
}
