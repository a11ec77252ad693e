// Package redact removes credentials from text before it reaches disk: every session, tool and
// dream log line, every file the store writes and every sidecar log record passes through Text.
//
// Known token formats come from the gitleaks rule set (regexes with keywords, entropy thresholds and
// allowlists, maintained upstream); the context rules add only what those rules do not see in chat
// and shell text, and the shape checks what has no keyword at all. The BIP39 word list is
// bip39-english.txt, checked against github.com/tyler-smith/go-bip39/wordlists. Only the secret
// value is replaced (by Marker), so key names, schemes and users stay readable, and running Text
// on its own output changes nothing.
//
// Files, by job:
//
//	redact.go   Text/TextCount: finding spans and replacing them in one pass, less what is public by
//	            design (publishable keys, data: URI payloads); Prepare: compiling the rules ahead of
//	            the first text
//	gitleaks.go gitleaks' default rule set (gitleaks.toml, the module's copy) read and run as its
//	            detector runs it on a string, without the detect package's dependencies
//	escaped.go  reading through JSON/YAML string escapes: findings in the unescaped view are replaced
//	            at the escaped bytes they came from
//	rules.go    the context rules (passwords in sentences, shell flags, URLs, webhook paths, DSN users,
//	            netrc, PEM blocks …) and the value classes that decide whether a value looks like a secret
//	words.go    "password" in thirty languages with each language's "is": the words, and the rule that
//	            reads them with a colon, a copula, a dash or nothing before a password-shaped value
//	commands.go credentials on a command line: flags that mean password for some commands only,
//	            passwords glued to -p, tokens given as arguments, Go and Oracle DSNs, Braintree tokens
//	keys.go     which key names name a secret (API_KEY yes; KEYBOARD_LAYOUT, sortKey, SECRET_NAME no)
//	bare.go     keyword-less secrets by shape: entropy of long tokens with the guards for hashes, ids,
//	            paths and identifiers people store; a cloud key id's secret beside it; id.secret keys
//	cards.go    payment card numbers (Luhn, network prefixes, printed groups) and their security codes
//	seed.go     wallet seed phrases: runs of BIP39 words with the checksum or a wallet word nearby
package redact
