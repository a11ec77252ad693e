package digest

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/somni-dev/somni/internal/textseg"
)

// What a sentence says a thing's value is. People correct a fact by saying
// it again with another value far more often than by saying "actually":
// "It listens on port 5432." … "The port is 6432." So a sentence's values
// (the exact symbols textseg finds: ports, hosts, identifiers) are read
// with the words that name what they are the value of, and a later value
// for the same thing replaces the earlier one.

// A slot is one value a sentence gives one thing: "port" → "5432" in "It
// listens on port 5432", "billing db user" → "billing_rw".
type slot struct {
	thing  []string // the words naming it, head last; a Han run gives one unit a rune
	value  string   // folded and lower-cased
	linked bool     // a copula, a colon or a verb of state joins them ("is", ":", "runs on", "是", "改成")
	first  int      // token where the thing starts
	at     int      // token of the value
}

type tokKind uint8

const (
	tWord  tokKind = iota // a word of a spaced script, lower-cased
	tValue                // an exact symbol: a number, host, identifier, path
	tHan                  // a run of Han characters, folded to Simplified
	tLink                 // ':' or '='
	tSep                  // a clause boundary: ',' ';' '、'
	tEnd                  // sentence punctuation: '.' '!' '?' '。'
	tOther
)

type token struct {
	kind       tokKind
	text       string
	start, end int // bytes of the sentence as written
}

// Bounds of the words that name a thing: a head and a few qualifiers
// ("billing db port"), or the last runes of a Han run ("账单数据库的端口").
const (
	maxThingWords = 4
	maxThingRunes = 8
)

// Words read around a value. Stop words (textseg) end the name of a thing
// too; these are the ones the reading needs by role.
var (
	// linkWords join a thing to its value: "is", "runs on", "changed to".
	linkWords = wordSet(`is are was were be been being now still currently actually really always should will would must
		changed moved switched migrated renamed updated set became becomes become listens listen runs run lives live sits
		uses use using points equals called named hosted located stored kept`)
	// preps stand between a thing and its value without stating anything ("on port", "at 18:00").
	preps = wordSet(`on at to in of by as into`)
	// negWords make the value after them an old one: "not 5432", "instead of", "rather than".
	negWords = wordSet(`not than instead never nor isn't wasn't aren't weren't no`)
	// discourse opens a sentence without naming anything: "Sorry, …", "Remember: …".
	discourse = wordSet(`sorry correction remember note please btw fyi ok okay well oh wait hmm also`)
	// attrNouns name what a bare "<thing> <value>" states, so "It listens on
	// port 5432" is a fact while "Open src/main.go" is a request.
	attrNouns = wordSet(`port host server user login account database schema name version ip address url endpoint
		path dir directory folder region zone bucket cluster namespace branch id email phone password repository environment`)
)

// hanLinks end a Han run before its value and join the two ("端口是", "端口改成",
// "数据库在"), longest first; hanNegs end one before an old value ("不是 5432").
var (
	hanLinks = []string{"迁移到", "应该是", "改成", "改为", "改到", "换成", "换到", "变成", "变为", "迁到", "现在", "已经", "目前", "其实", "就是", "是", "为", "在", "用", "到", "了", "叫"}
	hanNegs  = []string{"并不是", "而不是", "不再是", "不是", "而非", "并非", "不在"}
)

// aliases are the short forms people type for a setting's name, so "billing
// db port" and "billing database port" name one thing.
var aliases = map[string]string{"db": "database", "dbs": "databases", "hostname": "host", "username": "user",
	"pw": "password", "pwd": "password", "passwd": "password", "addr": "address", "repo": "repository", "env": "environment"}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// lex cuts a sentence into tokens, keeping where each was written.
func lex(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		f := textseg.Fold(r)
		switch {
		case unicode.IsSpace(r):
			i += n
		case unicode.Is(unicode.Han, f):
			j := i + n
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !unicode.Is(unicode.Han, textseg.Fold(r2)) {
					break
				}
				j += n2
			}
			out = append(out, token{kind: tHan, text: textseg.FoldString(s[i:j]), start: i, end: j})
			i = j
		case isQuote(f):
			i += n // a quoted value reads as the value
		case breaks(f):
			out = append(out, token{kind: punctKind(f), text: string(f), start: i, end: i + n})
			i += n
		default:
			j := i
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if f2 := textseg.Fold(r2); unicode.IsSpace(r2) || unicode.Is(unicode.Han, f2) || breaks(f2) {
					break
				}
				j += n2
			}
			out = appendField(out, s, i, j)
			i = j
		}
	}
	return out
}

// breaks reports a (folded) rune that never belongs to a word or a symbol.
func breaks(r rune) bool {
	return strings.ContainsRune(",;、。!?()《》【】「」", r) || isQuote(r)
}

// isQuote reports a quotation mark; ’ is not one, being the apostrophe of "it’s" too.
func isQuote(r rune) bool { return strings.ContainsRune("\"“”‘`", r) }

func punctKind(r rune) tokKind {
	switch r {
	case ',', ';', '、':
		return tSep
	case '。', '!', '?', '.':
		return tEnd
	case ':', '=':
		return tLink
	}
	return tOther
}

// appendField adds the tokens of s[i:j], a run with no space, Han or break
// in it: quotes around it are left out, a leading or trailing ':' '=' '.'
// is punctuation of its own, and "port=5432" is a word, a link and a value.
func appendField(out []token, s string, i, j int) []token {
	for i < j {
		r, n := utf8.DecodeRuneInString(s[i:])
		f := textseg.Fold(r)
		if !strings.ContainsRune(":='’", f) {
			break
		}
		if f == ':' || f == '=' {
			out = append(out, token{kind: tLink, text: s[i : i+n], start: i, end: i + n})
		}
		i += n
	}
	end := j
	for end > i {
		r, n := utf8.DecodeLastRuneInString(s[i:end])
		if !strings.ContainsRune(".:='’", textseg.Fold(r)) {
			break
		}
		end -= n
	}
	if i < end {
		core := s[i:end]
		if k := strings.IndexAny(core, ":="); k > 0 && k < len(core)-1 && core[k+1] != '/' && isWord(core[:k]) {
			out = append(out, fieldToken(core[:k], i), token{kind: tLink, text: core[k : k+1], start: i + k, end: i + k + 1})
			out = append(out, fieldToken(core[k+1:], i+k+1))
		} else {
			out = append(out, fieldToken(core, i))
		}
	}
	for k := end; k < j; {
		r, n := utf8.DecodeRuneInString(s[k:])
		if f := textseg.Fold(r); f != '\'' && f != '’' {
			out = append(out, token{kind: punctKind(f), text: s[k : k+n], start: k, end: k + n})
		}
		k += n
	}
	return out
}

func fieldToken(f string, at int) token {
	t := token{kind: tOther, text: strings.ToLower(textseg.FoldString(f)), start: at, end: at + len(f)}
	if syms := textseg.Symbols(f); len(syms) > 0 && syms[0] == f {
		t.kind = tValue
	} else if isWord(f) {
		t.kind = tWord
	}
	return t
}

// isWord reports letters, with the apostrophes and hyphens of "it's" and "read-only".
func isWord(f string) bool {
	return f != "" && strings.IndexFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' && r != '-' }) < 0
}

// slotsOf reads the values a sentence's tokens give things.
func slotsOf(toks []token) []slot {
	var out []slot
	for i, t := range toks {
		if t.kind == tValue {
			if s, ok := slotAt(toks, i); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// slotAt reads what the value at toks[i] is the value of, walking back over
// what joins them ("is", ":", "on", "改成") to the words that name it. An
// old value ("not 5432", "from 5432 to …", "不是 5432") is no slot.
func slotAt(toks []token, i int) (slot, bool) {
	s := slot{value: toks[i].text, at: i}
	j := i - 1
walk:
	for ; j >= 0; j-- {
		t := toks[j]
		switch t.kind {
		case tLink:
			s.linked = true
		case tWord:
			w := t.text
			switch {
			case strings.HasSuffix(w, "'s"), strings.HasSuffix(w, "’s"):
				s.linked = true // "port's 6432": the word names the thing
				break walk
			case negWords[w], w == "from":
				return slot{}, false
			case linkWords[w]:
				s.linked = true
			case preps[w]:
			default:
				break walk
			}
		case tValue:
			// "from 5432 to 6432": the change's old value and its "from" are passed over.
			if j > 0 && toks[j-1].kind == tWord && toks[j-1].text == "from" {
				s.linked = true
				j--
				continue
			}
			return slot{}, false
		case tHan:
			run, neg, linked := trimHan(t.text)
			if neg {
				return slot{}, false
			}
			s.linked = s.linked || linked
			if run != "" {
				break walk
			}
		default:
			return slot{}, false
		}
	}
	var thing []string
	for ; j >= 0 && len(thing) < maxThingWords; j-- {
		t := toks[j]
		if t.kind == tHan {
			run, neg, linked := trimHan(t.text)
			if neg || linked && len(thing) > 0 || run == "" {
				break
			}
			runes := []rune(run)
			units := make([]string, 0, maxThingRunes)
			for _, r := range runes[max(0, len(runes)-maxThingRunes):] {
				units = append(units, string(r))
			}
			thing = append(units, thing...)
			s.first = j
			break // a Han run is a phrase of its own: what comes before it names something else
		}
		if t.kind != tWord {
			break
		}
		w := strings.TrimSuffix(strings.TrimSuffix(t.text, "'s"), "’s")
		if textseg.IsStopword(w) || linkWords[w] || preps[w] || negWords[w] || discourse[w] {
			break
		}
		if a, ok := aliases[w]; ok {
			w = a
		}
		thing = append([]string{w}, thing...)
		s.first = j
	}
	if len(thing) == 0 {
		return slot{}, false
	}
	s.thing = thing
	return s, true
}

// trimHan cuts the links off the end of a Han run before a value: the rest
// names the thing, linked says whether a link was cut, neg that the run
// ends in a negation (the value after it is an old one).
func trimHan(run string) (rest string, neg, linked bool) {
	for {
		for _, n := range hanNegs {
			if strings.HasSuffix(run, n) {
				return "", true, linked
			}
		}
		cut := false
		for _, l := range hanLinks {
			if strings.HasSuffix(run, l) {
				run, cut, linked = strings.TrimSuffix(run, l), true, true
				break
			}
		}
		if !cut {
			return run, false, linked
		}
	}
}

// sameThing reports whether two names name one thing: one is the other
// with fewer qualifiers in front ("port" and "billing db port", "端口" and
// "账单数据库的端口"), and not a single Han character.
func sameThing(a, b []string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if utf8.RuneCountInString(strings.Join(a, "")) < 2 {
		return false
	}
	tail := b[len(b)-len(a):]
	for i := range a {
		if a[i] != tail[i] {
			return false
		}
	}
	return true
}

// context is what slots[k]'s thing is said of: the qualifiers of its own
// name and what the sentence's other values name ("staging" in "staging:
// db-stage-01, port 5432"), setting nouns aside ("db", "port", "user"
// qualify nothing). A Han name counts whole, having no spaces to tell a
// qualifier from its head.
func context(slots []slot, k int) [][]string {
	var out [][]string
	for i, s := range slots {
		if i != k && sameThing(s.thing, slots[k].thing) {
			continue
		}
		if isHanThing(s.thing) {
			if i != k {
				out = append(out, s.thing)
			}
			continue
		}
		words := s.thing
		if i == k {
			words = words[:len(words)-1]
		}
		for _, w := range words {
			if !attrNouns[w] {
				out = append(out, []string{w})
			}
		}
	}
	return out
}

// differ reports two contexts that name something each and nothing in
// common: port 5432 of staging and port 5433 of prod are two ports.
func differ(a, b [][]string) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	for _, x := range a {
		for _, y := range b {
			if sameThing(x, y) {
				return false
			}
		}
	}
	return true
}

func isHanThing(thing []string) bool {
	r, _ := utf8.DecodeRuneInString(thing[len(thing)-1])
	return unicode.Is(unicode.Han, r)
}

// statesValue reports whether a sentence states a value of something:
// through a link ("billing db port: 6432", "端口是 6432") or after a word
// that names a setting ("It listens on port 5432").
func statesValue(sentence string) bool {
	for _, s := range slotsOf(lex(sentence)) {
		if s.linked || attrNouns[s.thing[len(s.thing)-1]] {
			return true
		}
	}
	return false
}

// ambiguous reports whether slots[k]'s thing gets another value in the same
// sentence ("staging on port 5432, billing on port 6432"): which one a later
// value replaces is then unknown, so neither replaces nor is replaced.
func ambiguous(slots []slot, k int) bool {
	for i, s := range slots {
		if i != k && s.value != slots[k].value && sameThing(s.thing, slots[k].thing) {
			return true
		}
	}
	return false
}
