package redact

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	ahocorasick "github.com/petar-dambovaliev/aho-corasick"

	"github.com/somni-dev/somni/internal/lazyre"
)

// Context rules cover what gitleaks does not see: it is tuned for source files, so a password said in
// a sentence, typed into a shell command or written after a Chinese keyword passes it. Each rule names
// the corpus lines (testdata/secrets/secrets.jsonl) that need it. The secret is every group named v.

type valueClass int

const (
	// classPassword values are chosen by people: any non-trivial word counts.
	classPassword valueClass = iota
	// classToken values are generated: they must look random, which keeps "max_tokens=4096" intact.
	classToken
	// classGenerated values need letters and digits and 16+ characters: the rule has little context.
	classGenerated
	// classAny values are taken as they are because the rule's context already says "secret".
	classAny
	// classShaped values must look like a password by themselves (a digit or a symbol beside letters,
	// or a capital inside a word): the rule reads words in languages whose prose it does not know, or
	// a value with no colon or "is" before it.
	classShaped
)

type contextRule struct {
	re    *regexp.Regexp
	class valueClass
	// classOf picks the class from the matched key name when it varies (key=value rules).
	classOf func(key string) valueClass
	// need lists lower case substrings one of which the text must hold for the rule to run: capture
	// runs every message through these rules, and a substring test costs a fraction of a regex.
	need []string
	// refuse lists substrings of the k group that make the value a property of the secret, not the
	// secret (密码长度设为 12).
	refuse []string
}

var cjkKeys = []string{"密码", "口令", "密钥", "秘钥", "私钥", "令牌", "授权码", "密碼", "密鑰", "金鑰"}

// cjkKey is one of cjkKeys.
const cjkKey = `(?:密码|口令|密钥|秘钥|私钥|令牌|授权码|密碼|密鑰|金鑰)`

// cjkAbout are the words between a Chinese keyword and its verb that make the value a property of
// the secret (its length, rule, format, expiry), not the secret.
var cjkAbout = []string{"长度", "長度", "位数", "位數", "规则", "規則", "策略", "强度", "強度", "格式", "复杂", "複雜",
	"有效期", "过期", "過期", "提示", "字段", "文件", "路径", "方式", "方法", "算法", "类型", "類型", "次数", "時間", "时间", "周期"}

const (
	quotedOrBare = `(?:"(?P<v>[^"\n]+)"|'(?P<v>[^'\n]+)'|(?P<v>[^\s"'` + "`" + `,;&<>()\[\]{}]+))`
	passwordKeys = `password|passwd|passphrase|passcode|pwd|pass|pw`
	tokenKeys    = `secret|token|credentials?|api[_\-]?key|access[_\-]?key|account[_\-]?key|private[_\-]?key|auth[_\-]?key|secret[_\-]?key|encryption[_\-]?key|signing[_\-]?key|server[_\-]?key|sig|key|pat`
)

// contextRules are compiled on first use, not at start-up: compiling the
// package's patterns was a visible part of every start (GODEBUG=inittrace=1;
// measured in docs/ARCHITECTURE.md, Measurements).
var contextRules = sync.OnceValue(func() []contextRule {
	rules := []contextRule{
		// PEM blocks, also when the message cap cut off the END line ("pem cut off"); the header stays so a
		// reader sees which key was pasted. Replaces gitleaks' private-key rule, which takes the header too.
		{re: regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?P<v>(?s:.+?))(?:-----END|\z)`), class: classAny, need: []string{"-----begin"}},
		// "putty private key": PuTTY's .ppk format has no PEM armour; blanks, not
		// only newlines, separate its lines once a caller has put it on one line.
		{re: regexp.MustCompile(`PuTTY-User-Key-File-\d+:(?s:.*?)Private-Lines:\s*\d+\s+(?P<v>(?s:.+?))(?:\s+Private-MAC:|\z)`), class: classAny, need: []string{"putty-user-key"}},
		// "postgres url", "mysql url", "redis url no user", "mongodb srv", "amqp url": the user may be empty.
		{re: regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@'"]*:(?P<v>[^/\s@'"]+)@`), class: classAny, need: []string{"://"}},
		// "basic auth header": base64 of user:password; only after Authorization so "basic understanding" stays.
		{re: regexp.MustCompile(`(?i)\bauthorization["']?\s*[:=]\s*["']?(?:basic|bearer|token)\s+(?P<v>[A-Za-z0-9\-._~+/]{6,}=*)`), class: classAny, need: []string{"authorization"}},
		// "curl -u": user:password after -u/--user.
		{re: regexp.MustCompile(`(?:^|\s)(?:-u|--user)(?:\s+|=)["']?[^\s:'"]*:(?P<v>[^\s'"]+)`), class: classAny, need: []string{"-u"}},
		// "mysql -p": the password is glued to -p; "-p shop" with a space is the prompt and a database name.
		{re: regexp.MustCompile(`\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p(?:'(?P<v>[^'\n]+)'|"(?P<v>[^"\n]+)"|(?P<v>[^\s'"]+))`), class: classAny, need: []string{"mysql", "mariadb"}},
		// "sshpass -p", "docker login password", "redis-cli -a", "mongosh -p": per-command password flags,
		// limited to commands where -p/-a means password (in "docker run -p" or "mkdir -p" it does not).
		{re: regexp.MustCompile(`\b(?:(?:docker|podman|nerdctl|buildah|skopeo|oras|helm(?:\s+registry)?)\s+login|sshpass|mongo(?:sh)?|twine(?:\s+upload)?|redis-cli|smbclient|lftp)\b[^\n|;&]*?\s(?:-p|-a|--pass|--password|--passwd)(?:\s+|=)` + quotedOrBare), class: classPassword, need: []string{"login", "sshpass", "mongo", "twine", "redis-cli", "smbclient", "lftp"}},
		// "docker login long flag", "azure storage key cli": --password v, --account-key v.
		{re: regexp.MustCompile(`(?i)(?:^|\s)--(?P<k>(?:[a-z0-9]+-)*(?:` + passwordKeys + `|` + tokenKeys + `|auth))(?:\s+|=)` + quotedOrBare), classOf: classOfKey, need: []string{"--"}},
		// "openssl passout": -passout pass:secret.
		{re: regexp.MustCompile(`\s-pass(?:in|out)?\s+pass:(?P<v>\S+)`), class: classAny, need: []string{"-pass"}},
		// "ssh-keygen passphrase": -N/-P carry the passphrase.
		{re: regexp.MustCompile(`\bssh-keygen\b[^\n|;&]*?\s-[NP]\s+(?:'(?P<v>[^'\n]+)'|"(?P<v>[^"\n]+)"|(?P<v>[^\s'"-]\S*))`), class: classAny, need: []string{"ssh-keygen"}},
		// "db password env", "json password", "yaml password", "password log line", "azure sas token",
		// "twitter bearer token", "firebase server key", "wechat appsecret": key = value for secret-like key
		// names in env files, YAML, JSON, query strings and logs.
		{re: regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_.\-])["']?(?P<k>[A-Za-z0-9_.\-]*(?:` + passwordKeys + `|` + tokenKeys + `)[A-Za-z0-9_.\-]*)["']?\s*(?:=|:=|:|：)\s*` + quotedOrBare), classOf: classOfKey},
		// "the root password on", "my password is en": a password said in a sentence.
		// In prose a password ends at whitespace only, so "Tr0ub4dor&3" stays whole.
		{re: regexp.MustCompile(`(?i)\b(?P<k>password|passphrase|passcode|pin|secret(?: access)? key|api key|access key|token|pat)\b(?:\s+[\w.@\-]+){0,4}?\s+(?:is|was)\s*:?\s+(?:"(?P<v>[^"\n]+)"|'(?P<v>[^'\n]+)'|(?P<v>[^\s"']+))`), classOf: classOfKey},
		// "我的密码是", "数据库口令：", "服务器密码冒号", "密钥：", "登录密码是", "密码为": a Chinese keyword,
		// a copula or colon (one or more: "是：") and an ASCII value, quoted or not; "密码是什么" or
		// "口令验证失败" continue in Chinese and stay.
		{re: regexp.MustCompile(cjkKey + `(?:\s*(?:是|为|為|:|：|=))+\s*` + cjkValue), class: classPassword, need: cjkKeys},
		// "密码改为", "密码改成了了", "把密码设置成", "密码默认是", "密码用的是": a verb or adverb between the
		// keyword and its copula (改为, 设置成, 换成了, 都是); what names a property of the password
		// (密码长度设为 12) is refused.
		{re: regexp.MustCompile(cjkKey + `(?P<k>\p{Han}{0,4}?)(?:是|为|為|成|叫|作)了?(?:\s*[:：])?\s*` + cjkValue), class: classPassword, need: cjkKeys, refuse: cjkAbout},
		// Without a copula the next word is a value only when it is not a plain word ("口令 Sunny2024go"),
		// and a quote or bracket ends it: "密钥 rotation" and (“令牌 bucket”) are prose.
		{re: regexp.MustCompile(cjkKey + `\s*(?P<v>[^\s"'` + "`" + `,;()\[\]{}<>\x7f-\x{10FFFF}]+)`), class: classToken, need: cjkKeys},
		// "token 是", "api key 是", "AccessKeySecret 为", "appSecret 为": an English or CamelCase key name
		// with a Chinese copula or colon.
		{re: regexp.MustCompile(`(?i)(?P<k>[a-z0-9_]*(?:token|api[ _\-]?key|key ?secret|secret|password|passwd|key))(?:\s*(?:是|为|：))+\s*` + cjkValue), classOf: classOfKey, need: []string{"是", "为", "："}},
		// "telegram bot token": <bot id>:AA<33 chars>, also inside api.telegram.org/bot… URLs.
		{re: regexp.MustCompile(`(?P<v>\b\d{8,10}:AA[A-Za-z0-9_\-]{32,33})\b|/bot(?P<v>\d{8,10}:AA[A-Za-z0-9_\-]{32,33})\b`), class: classAny, need: []string{":aa"}},
		// "deepseek api key" and short sk-ant-/sk-proj- test keys: gitleaks knows OpenAI keys only by their
		// T3BlbkFJ marker and Anthropic keys only at full length. A digit is required so sk-learn stays.
		{re: regexp.MustCompile(`\b(?P<v>sk-(?:[a-z0-9]+-)*[A-Za-z0-9_\-]{16,})`), class: classGenerated, need: []string{"sk-"}},
		// "discord bot token": base64 user id, timestamp and HMAC; gitleaks only finds it next to "discord".
		{re: regexp.MustCompile(`\b(?P<v>[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40})\b`), class: classGenerated},
		// "notion token": a key name followed directly by a generated-looking value, no "is" or colon.
		{re: regexp.MustCompile(`(?i)\b(?:secret|token|key)\s+(?P<v>[A-Za-z0-9_\-.]{16,})`), class: classGenerated, need: []string{"secret", "token", "key"}},
		// "discord webhook", "teams webhook", "feishu bot hook": on the webhook hosts of chat services the
		// path after the endpoint is the credential (query tokens, as DingTalk's access_token=, are
		// key=value pairs). JSON writers may escape the slashes.
		{re: regexp.MustCompile(`https:(?:\\?/){2}(?:(?:canary\.|ptb\.)?discord(?:app)?\.com\\?/api\\?/webhooks|hooks\.slack\.com\\?/(?:services|workflows|triggers)|[a-z0-9\-]+\.webhook\.office\.com\\?/webhookb2|outlook\.office(?:365)?\.com\\?/webhook|open\.(?:feishu\.cn|larksuite\.com)\\?/open-apis\\?/bot\\?/v2\\?/hook|hooks\.zapier\.com\\?/hooks\\?/catch|maker\.ifttt\.com\\?/(?:use|trigger\\?/[^/\s]+\\?/with\\?/key))\\?/(?P<v>[A-Za-z0-9/\\@_\-]+)`), class: classAny, need: []string{"hook", "ifttt"}},
		// "mattermost hook": any host's /hooks/ or /webhook(s)/ endpoint followed by a generated id
		// (Mattermost, Rocket.Chat, n8n, self-hosted GitLab); /hooks/docs stays.
		{re: regexp.MustCompile(`(?i)://[^/\s]+(?:/[^/\s?#]+)*?/(?:hooks?|webhooks?)/(?P<v>[A-Za-z0-9_\-]{16,}(?:/[A-Za-z0-9_\-]+)*)`), class: classGenerated, need: []string{"hook"}},
		// "sentry dsn", "key as url user": a generated key as a URL's user, with or without a password.
		{re: regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.\-]*://(?P<v>[A-Za-z0-9_\-]{16,}):?@`), class: classGenerated, need: []string{"://"}},
		// "netrc heroku", "netrc one line": .netrc's machine/login/password, on one line or several.
		{re: regexp.MustCompile(`(?i)\b(?:machine\s+\S+\s+)?login\s+\S+\s+(?:account\s+\S+\s+)?password\s+(?P<v>\S+)`), class: classPassword, need: []string{"password"}},
		// "pgpass line": .pgpass's host:port:database:user:password.
		{re: regexp.MustCompile(`(?m)(?:^|["'\s])[A-Za-z0-9.\-*]+:(?:\d{2,5}|\*):[^\s:]+:[^\s:]+:(?P<v>[^\s:"']+)(?:$|["'\s])`), class: classPassword},
	}
	return append(rules, commandRules()...)
})

// cjkValue is the value after a Chinese keyword: quoted (ASCII or full-width quotes) or a run of
// printable ASCII.
const cjkValue = `(?:"(?P<v>[^"\n]+)"|“(?P<v>[^”\n]+)”|'(?P<v>[^'\n]+)'|「(?P<v>[^」\n]+)」|『(?P<v>[^』\n]+)』|(?P<v>[\x21-\x7e]+))`

func classOfKey(key string) valueClass {
	k := strings.ToLower(key)
	for _, p := range []string{"pass", "pwd", "pin"} {
		if strings.Contains(k, p) {
			return classPassword
		}
	}
	if k == "pw" || strings.HasSuffix(k, "_pw") || strings.HasSuffix(k, "-pw") {
		return classPassword
	}
	return classToken
}

// contextTriggers are lowercase substrings without which no context rule can match: ruleTriggers,
// without which no rule of contextRules can, then languageNeeds, which only the password words of
// words.go need.
var contextTriggers = slices.Concat(ruleTriggers, languageNeeds())

var ruleTriggers = slices.Concat([]string{"-----begin", "putty-user-key", "://", "authorization", "pass", "pwd", "pw", "pin",
	"secret", "token", "key", "cred", "sig", "-u", "--user", "mysql", "mariadb", "login", "mongo", "twine",
	"redis-cli", "smbclient", "ssh-keygen", ":aa", "sk-", "hook", "machine",
	// *_PAT keys and "the PAT is": "pat" alone is in path and pattern
	"_pat", "-pat", "pat:", "pat=", "pat\"", "pat'", " pat ",
	// commands.go, each by a word its rule cannot match without; a common word (zip, sudo, German's
	// "rman") would send ordinary chat through every rule
	"7z", "rar ", "zip -p", "-pw ", "/p:", "rdesktop", "bw unlock", "bw login", "rabbitmqctl", "net user", "sudo -s",
	"snyk auth", "vercel", "codecov", "doctl", "nuget", "@tcp(", "@tcp6(", "@udp(", "@unix(", "@pipe(", "@memory(",
	"@cloudsql", "dsn", "sqlplus", "expdp", "impdp", "sqlldr", "dgmgrl"},
	cjkKeys)

// screen is the hot-path check: most captured messages have neither a trigger word nor a long
// random-looking token, and skip every regex. rules reports what contextRules and the shape checks
// need (a long token, a rule trigger, 13+ digits, a run of words); language a password word of
// words.go, which the language rules alone read: a text with only such a word (パスワード,
// Passwort-Feld) skips the rules, tens of microseconds a message.
func screen(text string) (rules, language bool) {
	if hasLongToken(text) || digitCount(text) >= 13 || hasWordRun(text) {
		return true, true
	}
	return triggerKinds(text)
}

// mayContainSecret reports whether screen lets text in at all.
func mayContainSecret(text string) bool {
	rules, language := screen(text)
	return rules || language
}

// hasTrigger reports whether the lower-cased text holds a context trigger. One pass of an automaton
// folding ASCII case stands for lower-casing the text and searching it once per trigger (a tenth of
// a pipelined capture's CPU, 35 passes over every message); the two letters outside ASCII that
// lower-case into it (İ → i, the Kelvin sign → k) are lower-cased first.
func hasTrigger(text string) bool {
	rule, language := triggerKinds(text)
	return rule || language
}

// triggerKinds reports whether text holds one of ruleTriggers and whether it holds a password word
// of languageNeeds, in the same pass. The matches are read overlapping: a password word's match
// must not hide a rule trigger it overlaps.
func triggerKinds(text string) (rule, language bool) {
	for it := triggerFinder().IterOverlapping(foldSpecial(text)); ; {
		m := it.Next()
		if m == nil {
			return false, language
		}
		if m.Pattern() < ruleTriggerPatterns() {
			return true, true
		}
		language = true
	}
}

func foldSpecial(text string) string {
	if strings.Contains(text, "\u0130") || strings.Contains(text, "\u212a") {
		return strings.ToLower(text)
	}
	return text
}

// triggerFinder finds contextTriggers, ASCII case folded. A trigger with cased letters outside ASCII
// (пароль, şifre, κωδικός) is also looked for capitalised and in upper case, as people write it at
// the start of a line or in a label; lower-casing every non-ASCII text instead would cost each
// Chinese message a copy.
var triggerFinder = sync.OnceValue(func() ahocorasick.AhoCorasick {
	var patterns []string
	for _, t := range contextTriggers {
		patterns = append(patterns, caseVariants(t)...)
	}
	b := ahocorasick.NewAhoCorasickBuilder(ahocorasick.Opts{AsciiCaseInsensitive: true, MatchKind: ahocorasick.StandardMatch, DFA: true})
	return b.Build(patterns)
})

// ruleTriggerPatterns is how many of triggerFinder's patterns come from ruleTriggers: they are
// listed first.
var ruleTriggerPatterns = sync.OnceValue(func() int {
	n := 0
	for _, t := range ruleTriggers {
		n += len(caseVariants(t))
	}
	return n
})

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasLongToken reports a run of token characters that could be a generated secret: 12+ with a digit,
// or 20+ letters (AWS ids and Hugging Face tokens can lack digits). Every gitleaks rule worth running
// on chat text needs one, so text without it skips the detector.
func hasLongToken(text string) bool {
	n, digit, letter := 0, false, false
	for i := 0; i <= len(text); i++ {
		var c byte = ' '
		if i < len(text) {
			c = text[i]
		}
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			letter = true
		case c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.' || c == '~' || c == '%' || c == ':':
		default:
			if (n >= 12 && digit) || (n >= 20 && letter) {
				return true
			}
			n, digit, letter = 0, false, false
			continue
		}
		n++
	}
	return false
}

// contextSpans returns the value spans of all context rules that pass their class check.
func contextSpans(text string) []span {
	var spans []span
	lower := strings.ToLower(text)
	for _, r := range contextRules() {
		if !needed(lower, r.need) {
			continue
		}
		spans = append(spans, matchSpans(r.re, text, r.re.FindAllStringSubmatchIndex(text, -1), r.class, r.classOf, r.refuse)...)
	}
	return append(spans, languageSpans(text)...)
}

// matchSpans turns the matches of re in text into the spans of the values that pass their class.
func matchSpans(re *regexp.Regexp, text string, matches [][]int, class valueClass, classOf func(string) valueClass, refuse []string) []span {
	var spans []span
	names := re.SubexpNames()
	for _, m := range matches {
		key, vs, ve, quoted := "", -1, -1, false
		for g, name := range names {
			if m[2*g] < 0 {
				continue
			}
			switch name {
			case "k":
				key = text[m[2*g]:m[2*g+1]]
				if strings.HasSuffix(text[:m[2*g]], "://") {
					key = "" // user:password in a URL; the URL rule takes only the password
				}
			case "v", "q":
				if vs < 0 {
					vs, ve, quoted = m[2*g], m[2*g+1], name == "q"
				}
			}
		}
		if vs < 0 || (classOf != nil && !secretKeyName(key)) || refused(key, refuse) {
			continue
		}
		c := class
		if classOf != nil {
			c = classOf(key)
		}
		if quoted {
			c = classPassword // a quoted value is what was said, whatever its shape
		}
		// Sentence punctuation after a bare value belongs to the sentence.
		for ve > vs && strings.IndexByte(".,;:)", text[ve-1]) >= 0 {
			ve--
		}
		if ve < len(text) && (text[ve] == '(' || text[ve] == '[') {
			continue // a call or an index: code that reads a secret, not the secret
		}
		if c == classPassword && proseAfter(text, vs, ve) {
			continue
		}
		if acceptValue(text[vs:ve], c) {
			spans = append(spans, span{vs, ve})
		}
	}
	return spans
}

func refused(key string, refuse []string) bool {
	for _, r := range refuse {
		if strings.Contains(key, r) {
			return true
		}
	}
	return false
}

// proseAfter reports a bare value that is a plain word with more words after it on its line, after a
// colon or "is": "password: must be at least 14 characters", "the password is printed on the label".
// A word password goes on to the end of its line or to punctuation ("password: sunshine"); after = it
// is an assignment (PASSWORD=changeme OTHER=1), and a quoted value is what was said.
func proseAfter(text string, vs, ve int) bool {
	if vs > 0 && strings.IndexByte("\"'`=", text[vs-1]) >= 0 {
		return false
	}
	if before := strings.TrimRight(text[:vs], " \t"); strings.HasSuffix(before, "=") {
		return false
	}
	for i, c := range text[vs:ve] {
		if !(c >= 'a' && c <= 'z' || i == 0 && c >= 'A' && c <= 'Z') {
			return false
		}
	}
	after := strings.TrimLeft(text[ve:], " \t")
	if len(after) == len(text[ve:]) || after == "" {
		return false
	}
	c := after[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func needed(lower string, need []string) bool {
	if len(need) == 0 {
		return true
	}
	for _, n := range need {
		if strings.Contains(lower, n) {
			return true
		}
	}
	return false
}

// notPasswords are words that follow "password is" / "password:" in ordinary prose and docs.
var notPasswords = map[string]bool{
	"a": true, "an": true, "the": true, "too": true, "not": true, "no": true, "incorrect": true, "wrong": true,
	"correct": true, "invalid": true, "valid": true, "required": true, "missing": true, "empty": true, "blank": true,
	"set": true, "unset": true, "stored": true, "saved": true, "hashed": true, "encrypted": true, "expired": true,
	"weak": true, "strong": true, "short": true, "long": true, "same": true, "different": true, "changed": true,
	"reset": true, "what": true, "which": true, "where": true, "how": true, "here": true, "there": true,
	"this": true, "that": true, "it": true, "in": true, "on": true, "at": true, "for": true, "of": true, "to": true,
	"and": true, "or": true, "being": true, "still": true, "now": true, "also": true, "just": true, "very": true,
	"case": true, "null": true, "none": true, "nil": true, "true": true, "false": true, "yes": true, "ok": true,
	"unknown": true, "optional": true, "needed": true, "used": true, "sent": true, "only": true, "your": true,
	"my": true, "our": true, "their": true, "his": true, "her": true, "prompt": true, "ignored": true,
	// what a sentence says about a password rather than the password (password: must be …)
	"must": true, "should": true, "needs": true, "requires": true, "contains": true, "minimum": true, "maximum": true,
	"min": true, "max": true, "least": true, "fine": true, "good": true, "bad": true, "secure": true, "insecure": true,
	"safe": true, "mandatory": true, "forbidden": true, "hidden": true, "masked": true, "generated": true,
	"rotated": true, "printed": true, "shown": true, "password": true, "passwd": true,
}

// versionRe is a version number (13.1.3, 0.1.0-rc.8): lock files pair them with package names that
// contain "token" or "passwd".
var versionRe = lazyre.New(`^v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.\-]+)?$`)

// fieldRe is code reading a field (cfg.httpKey, opts.signal): a value of a key named like a secret
// in source code, not a secret.
var fieldRe = lazyre.New(`^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$`)

func acceptValue(v string, class valueClass) bool {
	if v == "" || strings.HasPrefix(v, Marker) || strings.HasPrefix(v, "[REDACTED") {
		return false
	}
	if class == classAny {
		return true
	}
	// Placeholders, variables, paths and version ranges are how docs, configs and lock files refer to
	// a secret or a package without holding a secret.
	switch v[0] {
	case '$', '<', '{', '%', '/', '~', '*', '^':
		return false
	}
	if strings.HasPrefix(v, "./") || strings.Contains(v, "://") || strings.Contains(v, "...") || versionRe().MatchString(v) {
		return false
	}
	var digits, letters, upper, lower, other int
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'A' && c <= 'Z':
			letters++
			upper++
		case c >= 'a' && c <= 'z':
			letters++
			lower++
		case c == '-' || c == '_' || c == '.':
			// joins words: data-dir, last_used, opts.signal are names, not generated values
		default:
			other++
		}
	}
	if digits+letters == 0 {
		return false
	}
	if class == classGenerated {
		return len(v) >= 16 && digits > 0 && letters > 0
	}
	if class == classPassword {
		return len(v) >= 3 && !notPasswords[strings.ToLower(v)]
	}
	if class == classShaped {
		return shapedPassword(v)
	}
	if len(v) < 8 || letters == 0 || (digits == 0 && fieldRe().MatchString(v)) {
		return false
	}
	return digits > 0 || (upper > 0 && lower > 0) || other > 0
}

// emailRe is an e-mail address: "reset the password user@example.com" names an account.
var emailRe = lazyre.New(`^[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+$`)

// shapedPassword is a value that looks like a password by itself: six or more characters, letters
// with a digit or a symbol among them, or a capital inside a word (sunShine). Letters outside ASCII
// are letters: "Passwort Änderung" is German, not a password.
func shapedPassword(v string) bool {
	if len(v) < 6 || v[0] == '-' || hashName(v) || emailRe().MatchString(v) {
		return false
	}
	var letters, digits, symbols int
	inner := false
	prev := rune(0)
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case unicode.IsLetter(c):
			letters++
			inner = inner || unicode.IsLower(prev) && unicode.IsUpper(c)
		case c == '-' || c == '_' || c == '.' || c == '/' || c == ':':
			// join words and paths: read-only, last_used, a/b
		default:
			symbols++
		}
		prev = c
	}
	return letters > 0 && (digits > 0 || symbols > 0 || inner)
}
