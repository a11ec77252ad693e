package redact

import (
	"math"
	"strings"
)

// Secrets with no keyword beside them: a pasted cloud secret, an unknown vendor's prefixed key, a key
// pair. Only their shape tells them apart from the ids, hashes and names people store on purpose, so
// each check below says which of those it leaves alone.
//
// A token is a run of base64/base64url characters (letters, digits, + / _ -, = only as padding); dots
// and colons end it, so host names, file names and "sha256:…" split into parts. A token is a secret when it is
//   - long: 20+ characters, or a body of 26+ after a lowercase vendor prefix (gsk_, napi_, lsv2_pt_);
//   - random: Shannon entropy over its characters at least entropyShare of the most its alphabet
//     allows at that length (log2 of min(length, alphabet size)): random base62 of 20–64 characters
//     measures 0.85–0.9 of it at the 1st percentile, prose identifiers 0.75–0.85;
//   - not made of words: under wordShare of its letters in runs of 3+ lower case letters
//     (TestSecretsNeverReachDisk2, Base64URLSafeEncoderV2Impl); random base62 reaches 0.65 at the
//     99th percentile;
//   - of a secret's alphabet: upper, lower and digits when bare; letters and digits after a prefix;
//
// and not one of what is stored on purpose: hex alone (commit ids, checksums, digests: a hex secret
// needs a keyword, a prefix or a key id beside it), UUIDs, paths, shell variables and URLs (their
// rules are the webhook and DSN rules), hashes named by their algorithm (sha512-…, h1:…), SSH public key blobs (AAAA…),
// data: URIs and certificate or public key blocks.
const (
	minBareToken   = 20
	minPrefixBody  = 26 // Stripe's object ids (ch_, pi_, evt_) have 24
	maxBareToken   = 256
	entropyShare   = 0.8
	wordShare      = 0.7
	minDigitShare  = 0.1 // lower case bodies: digits tell a key from a word list
	maxVendorAlpha = 8   // letters of a vendor prefix part
	maxWordReach   = 512 // how far the word around a token is looked for
	maxDottedParts = 4   // parts of an id.secret key joined by dots
)

// bareSpans returns the keyword-less secrets of text: random tokens, the secret beside a cloud key
// id, card numbers and seed phrases.
func bareSpans(text string) []span {
	var spans []span
	if hasLongToken(text) && !hasPublicBlock(text) {
		spans = append(spans, tokenSpans(text)...)
	}
	spans = append(spans, cardSpans(text)...)
	spans = append(spans, seedSpans(text)...)
	return spans
}

// isTokenByte is a base64 or base64url character but the padding '=', which only ends a token:
// inside one it is KEY=value.
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '+' || c == '/' || c == '_' || c == '-'
}

// tokenSpans walks the tokens of text once.
func tokenSpans(text string) []span {
	var spans []span
	pairUntil := -1 // a cloud key id ended here: the next long token is its secret
	for i := 0; i < len(text); {
		if !isTokenByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isTokenByte(text[j]) {
			j++
		}
		for j < len(text) && text[j] == '=' && (j+1 == len(text) || !isTokenByte(text[j+1])) {
			j++
		}
		if k := dottedEnd(text, j); k > j && dottedSecret(text[i:k]) {
			spans = append(spans, span{i, k})
			i = k
			continue
		}
		tok := text[i:j]
		switch {
		case isKeyID(tok):
			pairUntil = j + 48
		case i <= pairUntil && len(tok) >= minBareToken && mixed(tok):
			spans = append(spans, span{i, j})
			pairUntil = -1
		case len(tok) >= minBareToken && len(tok) <= maxBareToken && !storedOnPurpose(text, i, j) && randomToken(tok):
			spans = append(spans, span{i, j})
		}
		i = j
	}
	return spans
}

// isKeyID is an access key id of AWS (AKIA, ASIA), Tencent Cloud (AKID), Alibaba Cloud (LTAI) or
// Volcengine (AKLT): people paste the secret right after it, with no name.
func isKeyID(tok string) bool {
	if len(tok) < 16 || len(tok) > 40 {
		return false
	}
	for _, p := range []string{"AKIA", "ASIA", "AKID", "LTAI", "AKLT"} {
		if strings.HasPrefix(tok, p) {
			return true
		}
	}
	return false
}

func mixed(tok string) bool {
	var letter, digit bool
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit = digit || c >= '0' && c <= '9'
	}
	return letter && digit
}

// storedOnPurpose reports the tokens whose surroundings say they are a reference, not a secret.
func storedOnPurpose(text string, i, j int) bool {
	// The word around the token, looked for within maxWordReach bytes: a text of tokens with no blank
	// between them must not cost a scan to its start for each.
	lo, hi := max(0, i-maxWordReach), min(len(text), j+maxWordReach)
	ws := lo + strings.LastIndexAny(text[lo:i], " \t\n\r\"'`(<[{,") + 1
	we := j + strings.IndexAny(text[j:hi], " \t\n\r\"'`)>]},")
	if we < j {
		we = hi
	}
	word := text[ws:we]
	switch {
	case strings.Contains(word, "://"), strings.Contains(word, "base64,"), strings.Contains(word, "=/"),
		strings.HasPrefix(word, "/"), strings.HasPrefix(word, "~/"), strings.HasPrefix(word, "./"),
		strings.HasPrefix(word, "../"), strings.HasPrefix(word, "$"), strings.HasPrefix(text[i:j], "AAAA"),
		pathLike(text[i:j]):
		return true
	}
	if i > 0 && text[i-1] == ':' { // h1:…, sha256:…
		pre := text[max(0, i-1-len("blake2b")) : i-1]
		pre = pre[strings.LastIndexAny(pre, " \t\n\r\"'`(=,:")+1:]
		return hashName(pre)
	}
	return false
}

// pathLike is a relative path: two or more of its segments are lower case names (memory/intentions/…,
// test/e2e/demo); the segments of random base64 mix cases.
func pathLike(tok string) bool {
	if !strings.Contains(tok, "/") {
		return false
	}
	names := 0
	for _, seg := range strings.Split(tok, "/") {
		if len(seg) >= 3 && strings.ToLower(seg) == seg && strings.IndexFunc(seg, func(r rune) bool { return r >= 'a' && r <= 'z' }) >= 0 {
			names++
		}
	}
	return names >= 2
}

// hashName is a hash algorithm's name as it prefixes a digest (sha512-…, sha256:…, h1:…).
func hashName(s string) bool {
	switch strings.ToLower(s) {
	case "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "h1", "blake2b", "blake3", "sha", "sha3":
		return true
	}
	return false
}

// randomToken decides a token by its shape (see the package comment of this file).
func randomToken(tok string) bool {
	if endsInUUID(tok) {
		return false
	}
	body, prefixed := vendorBody(tok)
	if prefixed {
		if hashName(tok[:len(tok)-len(body)-1]) {
			return false
		}
		if len(body) < minPrefixBody {
			return false
		}
	}
	var upper, lower, digit, other int
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		case c >= '0' && c <= '9':
			digit++
		default:
			other++
		}
	}
	alphabet := 64.0
	switch {
	case digit == 0 || upper+lower == 0:
		return false
	case isHex(body) || isUUID(body):
		if !prefixed || isUUID(body) || feishuID(tok[:len(tok)-len(body)]) {
			return false
		}
		alphabet = 16
	case upper == 0 || lower == 0:
		if !prefixed || float64(digit) < minDigitShare*float64(len(body)) {
			return false
		}
		alphabet = 36
	}
	if upper > 0 && lower > 0 && wordLetters(body) >= wordShare*float64(upper+lower) {
		return false
	}
	return entropy(body) >= entropyShare*math.Log2(min(float64(len(body)), alphabet))
}

// feishuID says whether a hex token's prefix is one of Feishu's (Lark's) id kinds: ou_ (a user's
// open_id), on_ (union_id), oc_ (chat) and om_ (message). The chat platforms name a session's user
// with it (feishu:ou_…), and it has the shape of a vendor token (shpat_ + 32 hex is Shopify's):
// redacted, every Feishu user's profile and log header read [REDACTED] and their names were refused.
func feishuID(prefix string) bool {
	switch prefix {
	case "ou_", "on_", "oc_", "om_":
		return true
	}
	return false
}

// vendorBody strips a vendor prefix (gsk_, napi_, lsv2_pt_, dckr_pat_, nvapi-): one to three lower
// case parts of at most maxVendorAlpha letters or digits, each ended by _ or -.
func vendorBody(tok string) (string, bool) {
	i, parts := 0, 0
	for parts < 3 {
		j := i
		for j < len(tok) && j-i <= maxVendorAlpha && (tok[j] >= 'a' && tok[j] <= 'z' || j > i && tok[j] >= '0' && tok[j] <= '9') {
			j++
		}
		if j == i || j-i > maxVendorAlpha || j >= len(tok) || (tok[j] != '_' && tok[j] != '-') {
			break
		}
		i, parts = j+1, parts+1
	}
	return tok[i:], parts > 0
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-') {
			return false
		}
	}
	return true
}

func isUUID(s string) bool {
	return len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' && isHex(s)
}

// endsInUUID is a UUID, alone or named by a prefix (session-…, req_…): an id, not a secret. Without
// this check a UUID whose first group starts with a letter (a16e50c1-…) read as a vendor prefix and
// a random body, and DSH's session ids (session-<uuid>) were redacted in the log's chat_id — a nap
// or a compaction digest then found no log for the session.
func endsInUUID(tok string) bool {
	const n = 36
	if len(tok) < n || !isUUID(tok[len(tok)-n:]) {
		return false
	}
	if len(tok) == n {
		return true
	}
	c := tok[len(tok)-n-1]
	return c == '-' || c == '_'
}

// wordLetters counts the letters in runs of 3+ lower case letters, with a capital before the run
// (CamelCase words).
func wordLetters(s string) float64 {
	n := 0
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
			j++
		}
		if j-i >= 3 {
			n += j - i
			if i > 0 && s[i-1] >= 'A' && s[i-1] <= 'Z' {
				n++
			}
		}
		if j == i {
			j++
		}
		i = j
	}
	return float64(n)
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// hasPublicBlock reports a certificate or public key block: its base64 lines are random and public.
func hasPublicBlock(text string) bool {
	return strings.Contains(text, "-----BEGIN CERTIFICATE") || strings.Contains(text, "PUBLIC KEY-----")
}

// dottedEnd is where a run of tokens joined by single dots ends (id.secret keys, JWT-like tokens).
func dottedEnd(text string, j int) int {
	k := j
	for parts := 1; parts < maxDottedParts && k+1 < len(text) && text[k] == '.' && isTokenByte(text[k+1]); parts++ {
		k++
		for k < len(text) && isTokenByte(text[k]) {
			k++
		}
	}
	return k
}

// dottedSecret is an id.secret key (Zhipu's <32 hex>.<16>, a Discord bot token): every part 10+
// characters of letters and digits and one in mixed case; file names, hosts and versions have a
// short or lettered part.
func dottedSecret(tok string) bool {
	cased := false
	for _, p := range strings.Split(tok, ".") {
		if len(p) < 10 || !mixed(p) {
			return false
		}
		cased = cased || strings.ToLower(p) != p && strings.ToUpper(p) != p
	}
	return cased && len(tok) >= 30
}
