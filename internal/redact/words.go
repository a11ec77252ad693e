package redact

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	ahocorasick "github.com/petar-dambovaliev/aho-corasick"
)

// People say "password" in their own language, with a colon or with their language's "is", and the
// value is a password whatever the sentence around it. The words are the translations of the English
// noun "password" in Wiktionary's entry (with the login labels of common sites where a shorter form
// is what people type: mdp, 비번), each with the words that stand between it and the value.
//
// English, Chinese and the key=value forms have rules of their own (rules.go); English is here only
// for the forms those rules do not read: "password for root: X" and "password X".
type passwordLanguage struct {
	lang string
	// words are lower case; a space stands for any run of blanks. A word matches with up to four
	// letters after it (Turkish şifrem, Norwegian passordet, Indonesian sandinya); Greek is given by
	// its stem, as its final sigma does not survive upper and lower casing (ΚΩΔΙΚΟΣ → κωδικοσ).
	words []string
	// compound words also end longer words (Datenbankpasswort, WLAN-Kennwort, ログインパスワード,
	// הסיסמה); the others must start a word (clave is not autoclave).
	compound bool
	// copulas stand between the word, or a few words naming what it opens, and the value.
	copulas []string
}

var passwordLanguages = []passwordLanguage{
	{lang: "en", words: []string{"password", "passphrase", "passcode", "pwd", "pw"}},
	{lang: "de", words: []string{"passwort", "kennwort"}, compound: true, copulas: []string{"ist", "lautet", "war", "heißt", "heisst"}},
	{lang: "fr", words: []string{"mot de passe", "mdp"}, copulas: []string{"est", "était", "c'est"}},
	{lang: "es", words: []string{"contraseña", "clave"}, copulas: []string{"es", "era", "sería"}},
	{lang: "pt", words: []string{"senha", "palavra-passe"}, copulas: []string{"é", "era", "fica"}},
	{lang: "it", words: []string{"password", "parola d'ordine"}, copulas: []string{"è", "e'", "era"}},
	{lang: "nl", words: []string{"wachtwoord"}, compound: true, copulas: []string{"is", "was", "luidt"}},
	{lang: "sv", words: []string{"lösenord"}, compound: true, copulas: []string{"är", "var"}},
	{lang: "no/da", words: []string{"passord", "adgangskode", "kodeord"}, compound: true, copulas: []string{"er", "var"}},
	{lang: "fi", words: []string{"salasana"}, compound: true, copulas: []string{"on", "oli"}},
	{lang: "pl", words: []string{"hasło", "haslo"}, copulas: []string{"to", "jest", "brzmi"}},
	{lang: "cs/sk", words: []string{"heslo"}, copulas: []string{"je", "bylo", "zní"}},
	{lang: "hu", words: []string{"jelszó", "jelszo"}, copulas: []string{"az", "pedig"}},
	{lang: "ro", words: []string{"parolă", "parola"}, copulas: []string{"este", "e"}},
	{lang: "tr", words: []string{"şifre", "sifre", "parola"}, copulas: []string{"ise"}},
	{lang: "ru/uk/bg", words: []string{"пароль", "пароля", "паролем", "парола"}, copulas: []string{"это", "будет", "є"}},
	{lang: "el", words: []string{"κωδικ", "συνθηματικ"}, copulas: []string{"είναι"}},
	{lang: "vi", words: []string{"mật khẩu", "mat khau"}, copulas: []string{"là"}},
	{lang: "id/ms", words: []string{"kata sandi", "sandi", "kata laluan", "password-nya"}, copulas: []string{"adalah", "ialah", "yaitu", "yakni", "nya"}},
	{lang: "ja", words: []string{"パスワード", "暗証番号", "パスコード", "合言葉"}, compound: true, copulas: []string{"は", "が", "を", "も"}},
	{lang: "ko", words: []string{"비밀번호", "비번", "암호", "패스워드"}, compound: true, copulas: []string{"는", "은", "가", "이", "를", "을"}},
	{lang: "th", words: []string{"รหัสผ่าน"}, compound: true, copulas: []string{"คือ"}},
	{lang: "ar", words: []string{"كلمة المرور", "كلمة السر", "الرقم السري"}, copulas: []string{"هي", "هو"}},
	{lang: "fa", words: []string{"رمز عبور", "گذرواژه", "کلمه عبور"}, copulas: []string{"است"}},
	{lang: "he", words: []string{"סיסמה", "סיסמא"}, compound: true, copulas: []string{"היא", "הוא"}},
	{lang: "hi", words: []string{"पासवर्ड", "कूटशब्द"}, compound: true, copulas: []string{"है"}},
}

// languageRules read, for each language, "<word> [a few words] <copula, colon or dash> <value>" and
// "<word> <value>". A bare value must look like a password (classShaped): the sentence around it is
// in a language whose ordinary words we do not list, and "Passwort ist falsch" or "Passwort:
// mindestens 12 Zeichen" must stay. A quoted value is taken as said.
//
// One pattern over all languages cost a millisecond a message (its \p{L} classes and alternations
// tried at every position); each language's pattern is anchored instead and run only where
// languageFinder found one of its words.
type languageRule struct {
	// res are tried in order at a word, the first whose value passes its class taken: a copula, a
	// colon or dash, nothing. One pattern with the three as alternatives would take a colon further
	// on ("パスワードは X です","path":"notes.md") over the copula, as the letters a word may end
	// with are tried before the alternatives.
	res      []*regexp.Regexp
	compound bool
}

var languageRules = sync.OnceValue(func() []languageRule {
	rules := make([]languageRule, len(passwordLanguages))
	for i, l := range passwordLanguages {
		ws := `^(?i)` + wordsPattern(l) + `\p{L}{0,4}`
		var res []*regexp.Regexp
		if len(l.copulas) > 0 {
			res = append(res, regexp.MustCompile(ws+between+`(?:`+copulas(l.copulas)+`)`+saidValue))
		}
		res = append(res,
			regexp.MustCompile(ws+between+`[ \t]*(?:[:：=]|[—–]|\s-{1,2})[ \t]*`+saidValue),
			regexp.MustCompile(ws+`[ \t]+`+saidValue))
		rules[i] = languageRule{res: res, compound: l.compound}
	}
	return rules
})

// languageFinder finds the words of passwordLanguages, ASCII case folded and, for cased letters
// outside ASCII, capitalised and in upper case too (see triggerFinder); languageOf maps each of its
// patterns to the languages that have the word (password is English, Italian and Indonesian).
var languageFinder = sync.OnceValues(func() (ahocorasick.AhoCorasick, [][]int) {
	var patterns []string
	var langs [][]int
	index := map[string]int{}
	for li, l := range passwordLanguages {
		for _, w := range l.words {
			for _, v := range caseVariants(strings.Fields(w)[0]) {
				i, ok := index[v]
				if !ok {
					i = len(patterns)
					index[v] = i
					patterns = append(patterns, v)
					langs = append(langs, nil)
				}
				if !slices.Contains(langs[i], li) {
					langs[i] = append(langs[i], li)
				}
			}
		}
	}
	b := ahocorasick.NewAhoCorasickBuilder(ahocorasick.Opts{AsciiCaseInsensitive: true, MatchKind: ahocorasick.LeftMostLongestMatch, DFA: true})
	return b.Build(patterns), langs
})

// languageSpans are the values of languageRules at each word languageFinder finds in text.
func languageSpans(text string) []span {
	finder, langs := languageFinder()
	rules := languageRules()
	var spans []span
	for it := finder.Iter(text); ; {
		m := it.Next()
		if m == nil {
			return spans
		}
		at := m.Start()
		line := text[at:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		if !mayHoldPassword(line[min(len(line), m.End()-at):]) {
			continue
		}
		for _, li := range langs[m.Pattern()] {
			r := rules[li]
			if !r.compound && at > 0 {
				if c, _ := utf8.DecodeLastRuneInString(text[:at]); unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' {
					continue
				}
			}
			// A language whose patterns matched but whose values their class refused gives way to the
			// next one with the word: "la password è X" is not English "password è".
			if found := r.spans(text, line, at); len(found) > 0 {
				spans = append(spans, found...)
				break
			}
		}
	}
}

// reach is how far after a password word its value may end: four words naming what it opens, a
// copula and a long password.
const reach = 240

// mayHoldPassword reports whether the text after a password word holds what a value of the
// language rules needs: a quote, or a digit, a symbol or a capital inside a word for a bare value
// (classShaped). Most sentences that name a password hold none ("forgot my password, can you
// reset it?") and skip the patterns; a question mark ends sentences and is no sign.
func mayHoldPassword(after string) bool {
	after = after[:min(len(after), reach)]
	for i := 0; i < len(after); i++ {
		switch c := after[i]; {
		case c >= '0' && c <= '9', strings.IndexByte("\"'!#$%&*+=@^|~", c) >= 0:
			return true
		case c >= 'A' && c <= 'Z' && i > 0 && after[i-1] >= 'a' && after[i-1] <= 'z':
			return true
		case c >= utf8.RuneSelf:
			// Quotes outside ASCII (“„«「『) and letters outside ASCII, whose case is not looked at
			// here: decoding every rune of a sentence costs what the patterns would.
			r, n := utf8.DecodeRuneInString(after[i:])
			if strings.ContainsRune("“„«「『", r) {
				return true
			}
			i += n - 1
		}
	}
	return false
}

// spans are the value of the first of r's patterns that matches line (text from at) with a value
// its class accepts.
func (r languageRule) spans(text, line string, at int) []span {
	for _, re := range r.res {
		if sm := re.FindStringSubmatchIndex(line); sm != nil {
			if found := matchSpans(re, text, [][]int{offset(sm, at)}, classShaped, nil, nil); len(found) > 0 {
				return found
			}
		}
	}
	return nil
}

func offset(m []int, by int) []int {
	for i := range m {
		if m[i] >= 0 {
			m[i] += by
		}
	}
	return m
}

// caseVariants are w and, when it has cased letters outside ASCII, its capitalised and upper case
// forms; ASCII case is folded by the finders themselves.
func caseVariants(w string) []string {
	up := strings.ToUpper(w)
	if up == w || isASCII(w) {
		return []string{w}
	}
	r, n := utf8.DecodeRuneInString(w)
	return []string{w, up, string(unicode.ToUpper(r)) + w[n:]}
}

// between is what may name what the password opens: up to four words of up to 24 letters, digits
// and joiners ("für den NAS", "del router", "от вайфая", "for root@db-1"); a quote or a comma ends
// the sentence the password word was in.
const between = `(?:[ \t]+[\p{L}\p{N}][\p{L}\p{N}\p{M}'._@\-]{0,23}){0,4}?`

// saidValue is a quoted value (group q, taken as said) or a bare one (group v): printable ASCII and
// Latin letters, so the value ends where a sentence in another script goes on (admin-Q7r2xでお願い).
const saidValue = `(?:"(?P<q>[^"\n]+)"|'(?P<q>[^'\n]+)'|“(?P<q>[^”\n]+)”|„(?P<q>[^“”\n]+)[“”]|«\s*(?P<q>[^»\n]+?)\s*»|「(?P<q>[^」\n]+)」|『(?P<q>[^』\n]+)』|(?P<v>[!#%&*+\-./0-9:=?@A-Z\\^_a-z|~$\x{00C0}-\x{024F}]+))`

func wordsPattern(l passwordLanguage) string {
	var ws []string
	for _, w := range l.words {
		ws = append(ws, strings.ReplaceAll(regexp.QuoteMeta(w), " ", `\s+`))
	}
	// Whether a word that must start one does is checked on the text before it (languageSpans):
	// the pattern is anchored at the word.
	return `(?:` + strings.Join(ws, `|`) + `)`
}

// languageNeeds are the words as context triggers: a word of several is given by its last part,
// which is in every text that holds it, whatever blanks are between its parts.
func languageNeeds() []string {
	var need []string
	seen := map[string]bool{}
	for _, l := range passwordLanguages {
		for _, w := range l.words {
			parts := strings.Fields(w)
			key := parts[len(parts)-1]
			if !seen[key] {
				seen[key] = true
				need = append(need, key)
			}
		}
	}
	return need
}

// copulas is the alternation of a language's copulas with the blanks around them: a word of a
// spaced script stands between blanks (or before a colon), a particle of Japanese or Korean may be
// glued to the word and to the value (パスワードはX).
func copulas(cs []string) string {
	var alts []string
	for _, c := range cs {
		q := regexp.QuoteMeta(c)
		if r := []rune(c); spaced(r[len(r)-1]) {
			alts = append(alts, `[ \t]+`+q+`(?:[ \t]*[:：][ \t]*|[ \t]+)`)
		} else {
			alts = append(alts, `[ \t]*`+q+`[ \t]*[:：]?[ \t]*`)
		}
	}
	return strings.Join(alts, `|`)
}

// spaced reports whether r belongs to a script that puts blanks between words.
func spaced(r rune) bool {
	return !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai)
}
