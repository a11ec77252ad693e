package memory

import (
	"regexp"
	"strings"
)

// Redacted replaces every secret Redact removes.
const Redacted = "[REDACTED]"

type redactRule struct {
	re   *regexp.Regexp
	repl string
}

// redactRules run in order; each keeps enough context (key name, scheme, user) to stay readable.
var redactRules = []redactRule{
	// PEM private keys, also when the END line was cut off by the message cap.
	{regexp.MustCompile(`-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----(?s:.*?)(?:-----END ((?:[A-Z0-9]+ )*)PRIVATE KEY-----|\z)`), "-----BEGIN ${1}PRIVATE KEY----- " + Redacted + " -----END ${1}PRIVATE KEY-----"},
	// Credentials in URLs: scheme://user:password@host.
	{regexp.MustCompile(`\b([a-zA-Z][a-zA-Z0-9+.\-]*://)([^/\s:@'"]+):([^/\s@'"]+)@`), "${1}${2}:" + Redacted + "@"},
	// Authorization: Bearer/Basic/token values.
	{regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9\-._~+/]{8,}=*`), "${1}${2}" + Redacted},
	// OpenAI / Anthropic / DeepSeek style keys.
	{regexp.MustCompile(`\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_\-]{16,}`), Redacted},
	// AWS access key ids.
	{regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b`), Redacted},
	// GitHub tokens.
	{regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b`), Redacted},
	// Slack tokens.
	{regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`), Redacted},
	// Google API keys.
	{regexp.MustCompile(`\bAIza[0-9A-Za-z\-_]{35}\b`), Redacted},
	// key=value / key: value / "key": "value" for password-like keys.
	{regexp.MustCompile(`(?i)((?:^|[^A-Za-z0-9_])"?(?:password|passwd|pwd|passphrase|secret|client_secret|api[_\-]?key|access[_\-]?token|refresh[_\-]?token|auth[_\-]?token|token|private[_\-]?key)"?\s*[=:]\s*)("[^"\n]+"|'[^'\n]+'|[^\s,;&"'}\]]+)`), "${1}" + Redacted},
	// Chinese: 密码/口令/密钥 followed by a colon or "是".
	{regexp.MustCompile(`((?:密码|口令|密钥)\s*(?:[:：=]|是)\s*)([^\s，。,;；]+)`), "${1}" + Redacted},
}

// redactTriggers are cheap substrings (lowercase) without which no rule can match; most messages have none.
var redactTriggers = []string{"private key", "://", "bearer", "basic", "sk-", "akia", "asia", "agpa", "aida", "aroa",
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "aiza", "pass", "pwd", "secret", "key", "token", "密码", "口令", "密钥"}

// Redact removes credentials from text before it reaches disk: API keys (sk-…, AKIA…, ghp_…, xox…),
// bearer tokens, private key blocks, password=/token= values and credentials in URLs.
func Redact(text string) string {
	if text == "" || !mayContainSecret(text) {
		return text
	}
	for _, r := range redactRules {
		text = r.re.ReplaceAllString(text, r.repl)
	}
	return text
}

func mayContainSecret(text string) bool {
	lower := strings.ToLower(text)
	for _, t := range redactTriggers {
		if strings.Contains(lower, t) {
			return true
		}
	}
	return false
}
