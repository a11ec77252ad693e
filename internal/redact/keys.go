package redact

import "strings"

// A key name in key = value text names a secret when one of its words is a secret word: KEYBOARD,
// TOKENIZER, hotkey and monkey only contain one, sortKey and partitionKey name a key of a table,
// and a word after the secret word that names something about it (SECRET_NAME, TOKEN_URL,
// API_KEY_HEADER, PASSWORD_MIN_LENGTH) makes the value a reference, not the secret.

// secretWords are the words that name a secret by themselves.
var secretWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "passcode": true, "pwd": true, "pass": true, "pw": true,
	"pin": true, "secret": true, "secrets": true, "token": true, "credential": true, "credentials": true,
	"sig": true, "key": true, "pat": true, "auth": true,
}

// gluedSecrets end a word that names a secret with its qualifier glued on (PGPASSWORD, appsecret,
// authtoken); "key" alone is too common an ending (hotkey, monkey), so it needs a known qualifier.
var (
	gluedSecrets = []string{"password", "passwd", "passphrase", "secret", "token", "credentials"}
	keyQualifier = map[string]bool{
		"api": true, "access": true, "secret": true, "private": true, "auth": true, "account": true, "master": true,
		"signing": true, "encryption": true, "license": true, "app": true, "client": true, "service": true,
		"sub": true, "subscription": true, "x": true, "server": true, "admin": true, "consumer": true,
	}
	// tableKeys qualify "key" as the key of a table, a map or a keyboard.
	tableKeys = map[string]bool{
		"sort": true, "primary": true, "partition": true, "foreign": true, "hot": true, "short": true, "cache": true,
		"lookup": true, "map": true, "row": true, "range": true, "shard": true, "group": true, "order": true,
		"unique": true, "composite": true, "index": true, "routing": true, "public": true, "pub": true,
		"object": true, "translation": true, "i18n": true, "message": true, "dedup": true, "dedupe": true,
		"idempotency": true, "cluster": true, "hash": true, "react": true, "dict": true, "json": true,
	}
	// keyTail are the words that may follow "key" in a name that still holds the key itself.
	keyTail = map[string]bool{"id": true, "data": true, "value": true, "secret": true, "b64": true, "base64": true, "hex": true, "pem": true}
	// aboutSecret are the words after a secret word that make the name refer to it instead.
	aboutSecret = map[string]bool{
		"name": true, "names": true, "path": true, "file": true, "dir": true, "url": true, "uri": true,
		"endpoint": true, "header": true, "type": true, "layout": true, "length": true,
		"len": true, "size": true, "count": true, "ttl": true, "expiry": true, "expires": true, "expiration": true,
		"policy": true, "format": true, "prefix": true, "suffix": true, "version": true, "mode": true,
		"field": true, "ref": true, "arn": true, "region": true, "realm": true, "class": true, "env": true,
		"limit": true, "timeout": true, "label": true, "hint": true, "rotation": true, "provider": true,
		"algorithm": true, "alg": true, "scheme": true, "column": true, "table": true, "owner": true,
		"source": true, "location": true, "store": true, "vault": true, "kind": true,
	}
)

// secretKeyName reports whether key (as written: snake_case, kebab-case, CamelCase, dotted) names a
// secret.
func secretKeyName(key string) bool {
	words := keyWords(key)
	at := -1
	for i, w := range words {
		if secretWord(w, words, i) {
			at = i
		}
	}
	if at < 0 {
		return false
	}
	for _, w := range words[at+1:] {
		if aboutSecret[w] {
			return false
		}
	}
	return true
}

func secretWord(w string, words []string, i int) bool {
	if w == "key" {
		// The key is the name's last word or carries only its id or data after it (private_key_id,
		// client-key-data); KeyLastUsed or KEY_VAULT_NAME only start with it.
		for _, after := range words[i+1:] {
			if !keyTail[after] {
				return false
			}
		}
		return i == 0 || !tableKeys[words[i-1]]
	}
	if secretWords[w] {
		return true
	}
	for _, g := range gluedSecrets {
		if len(w) > len(g) && strings.HasSuffix(w, g) {
			return true
		}
	}
	return len(w) > 3 && strings.HasSuffix(w, "key") && keyQualifier[w[:len(w)-3]]
}

// keyWords splits a key name into lower case words at separators and lower-to-upper case changes.
func keyWords(key string) []string {
	var words []string
	start := 0
	cut := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(key[start:end]))
		}
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
			cut(i)
			start = i + 1
		case i > start && c >= 'A' && c <= 'Z' && key[i-1] >= 'a' && key[i-1] <= 'z':
			cut(i)
			start = i
		}
	}
	cut(len(key))
	return words
}
