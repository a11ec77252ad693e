package share

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/textcut"
)

// field is one piece of a share the secret check reads, named as its
// caller knows it (the tool's argument names).
type field struct{ name, text string }

// checkSecrets refuses the first field that redact would change — the
// check capture, the store's writes and git sync apply — naming the field
// and, in words, the kind of secret and where (shown redacted). A team
// pool is read by everyone who has it: a secret is refused, never
// redacted into the shared entry.
func checkSecrets(fields ...field) error {
	for _, f := range fields {
		red, n := redact.TextCount(f.text)
		if f.name == "name" {
			// A name also counts a marker already in it (an earlier redaction).
			var secret bool
			if red, secret = memory.NameWithoutSecrets(f.text); secret && n == 0 {
				return refuse(f.name, "the name holds %s, a secret redacted earlier; choose a name that says what the entry is about", redact.Marker)
			}
		}
		if n == 0 {
			continue
		}
		kind, near := secretKind(f.text, red)
		fix := "take the secret out (say where it is kept instead) and try again"
		if f.name == "name" {
			fix = "choose a name that says what the entry is about, without the secret"
		}
		return refuse(f.name, "the %s holds what looks like %s (%s); a team's memory is read by everyone in the team, so nothing holding a secret is shared: %s",
			strings.ReplaceAll(f.name, "_", " "), kind, near, fix)
	}
	return nil
}

// secretKind says what the first secret of text looks like, in words ("a
// password"), and where, as the redacted text just before it; red is text
// as redact leaves it.
func secretKind(text, red string) (kind, near string) {
	start, secret := firstSecret(text, red)
	before := text[max(0, start-48):start]
	from := max(0, start-40)
	for from > 0 && !isRuneStart(red[from]) {
		from--
	}
	end := min(len(red), start+len(redact.Marker))
	near = fmt.Sprintf("near %q", "…"+textcut.OneLine(red[from:end]))
	return describe(before, secret), near
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// firstSecret finds where the first replaced span starts in text (red and
// text agree up to it) and, as near as the two texts tell, what it was.
func firstSecret(text, red string) (start int, secret string) {
	i := 0
	for i < len(text) && i < len(red) && text[i] == red[i] {
		i++
	}
	// The marker starts at i, or before it when the secret began with the
	// marker's first bytes.
	m := strings.Index(red[max(0, i-len(redact.Marker)):], redact.Marker)
	if m < 0 {
		return min(i, len(text)), text[min(i, len(text)):]
	}
	start = max(0, i-len(redact.Marker)) + m
	tail := red[start+len(redact.Marker):]
	if next := strings.Index(tail, redact.Marker); next < 0 && strings.HasSuffix(text, tail) {
		// one secret: what is left after it is the same in both
		return start, text[start : len(text)-len(tail)]
	} else if next >= 0 {
		tail = tail[:next]
	}
	if anchor := textcut.ClipBytes(tail, 24, ""); len(anchor) >= 3 {
		if j := strings.Index(text[start:], anchor); j >= 0 {
			return start, text[start : start+j]
		}
	}
	return start, text[start:]
}

var (
	// passwordWords end the text before a password in the languages people
	// write to the model in; the last words before a value name it.
	passwordWords = []string{"password", "passwort", "passwd", "passphrase", "pwd", "pass:", "pass=", "pass is", "密码", "密碼", "口令",
		"パスワード", "비밀번호", "пароль", "contraseña", "senha", "mot de passe", "wachtwoord", "hasło", "şifre", "mật khẩu", "kata sandi", "lösenord", "salasana", "parola"}
	// tokenWords name a key or token before its value.
	tokenWords    = []string{"token", "api key", "api_key", "apikey", "secret", "bearer", "authorization", "access key", "access_key", "private key", "key:", "key=", "密钥", "令牌"}
	tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "github_pat_", "glpat-", "xox", "sk-", "sk_", "rk_", "akia", "asia", "aiza", "npm_", "pypi-", "hf_", "eyj"}
	shortFlagPass = regexp.MustCompile(`(^|\s)-p\s*$`)
)

// describe names a secret's kind from its own shape and the words before it.
func describe(before, secret string) string {
	b, s := strings.ToLower(before), strings.ToLower(strings.TrimSpace(secret))
	switch {
	case strings.Contains(s, "-----begin") || strings.Contains(b, "-----begin") || strings.Contains(b+s, "private key"):
		return "a private key"
	case isCardNumber(s):
		return "a payment card number"
	case len(strings.Fields(s)) >= 12 && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLower(r) && !unicode.IsSpace(r) }) < 0:
		return "a wallet seed phrase"
	case inURL(b):
		return "a password in a URL"
	case containsAny(b, passwordWords) || shortFlagPass.MatchString(b):
		return "a password"
	case hasAnyPrefix(s, tokenPrefixes) || containsAny(b, tokenWords):
		return "an access token or API key"
	}
	return "a secret key or token"
}

// inURL: the secret sits in a URL's user part (scheme://user:SECRET@host).
func inURL(before string) bool {
	i := strings.LastIndex(before, "://")
	return i >= 0 && !strings.ContainsAny(before[i:], " \t\n\"'<>") && strings.Contains(before[i:], ":")
}

func isCardNumber(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == ' ' || r == '-':
		default:
			return false
		}
	}
	return digits >= 13 && digits <= 19
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
