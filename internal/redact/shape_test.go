package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestUnescapeViewMapsBack(t *testing.T) {
	in := `{"c":"{\"api_key\": \"9f8e7d6c5b4a39281706\", \"n\": \"\u00e9\"}"}`
	v := unescapeView(in)
	if !strings.Contains(v.view, `"api_key": "9f8e7d6c5b4a39281706"`) || !strings.Contains(v.view, "é") {
		t.Fatalf("view = %q", v.view)
	}
	i := strings.Index(v.view, "9f8e")
	got := v.spansIn([]span{{i, i + 20}})
	if in[got[0].start:got[0].end] != "9f8e7d6c5b4a39281706" {
		t.Errorf("mapped to %q", in[got[0].start:got[0].end])
	}
	for _, tc := range []struct{ in, gone string }{
		{`{"cmd":"{\"auth\": \"ZGVwbG95OnM0NGx6UXp3MkFtVmhLOWN4\"}"}`, "ZGVwbG95OnM0NGx6UXp3MkFtVmhLOWN4"},
		{`"a=\"{\\\"password\\\": \\\"hunter2!x\\\"}\""`, "hunter2!x"},
	} {
		if out := Text(tc.in); strings.Contains(out, tc.gone) {
			t.Errorf("escaped secret kept: %q", out)
		}
	}
}

func TestSecretKeyName(t *testing.T) {
	for key, want := range map[string]bool{
		"AWS_SECRET_ACCESS_KEY": true, "x-api-key": true, "PGPASSWORD": true, "appsecret": true, "AccessKeySecret": true,
		"client_secret": true, "db_password": true, "private_key_id": true, "apikey": true,
		"KEYBOARD_LAYOUT": false, "TOKENIZER": false, "sortKey": false, "partitionKey": false, "hotkey": false,
		"SECRET_NAME": false, "TOKEN_URL": false, "API_KEY_HEADER": false, "PASSWORD_MIN_LENGTH": false, "keyPath": false,
		"GEVENT_MONKEY_PATCH": false, "public_key": false,
	} {
		if got := secretKeyName(key); got != want {
			t.Errorf("secretKeyName(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestRandomTokenGuards(t *testing.T) {
	for tok, want := range map[string]bool{
		"djzYPzxiBzSlHNJqiJ5PqKfUg7z1xtn1DjaiZ9sH":                         true,  // a cloud secret
		"gsk_8mQz1vX4pL7sT2wR9yB3nK6dF0hJ5cA1eG8iM2oU4qW7zX3v":             true,  // vendor prefix, long random body
		"9fceb02d0ae598e95dc970b74767f19372d61af8":                         false, // commit id: hex alone
		"3f2c1a9e-7b4d-4e2f-9a1c-5d8e6f7a8b9c":                             false, // UUID
		"a16e50c1-294b-4c71-a54b-4970b3e73c6c":                             false, // UUID whose first group reads as a prefix
		"session-a16e50c1-294b-4c71-a54b-4970b3e73c6c":                     false, // DSH's session id
		"req_fa3e0c1d-294b-4c71-a54b-4970b3e73c6c":                         false,
		"TestSecretsNeverReachDiskThroughEveryChannel2":                    false, // identifier made of words
		"Base64URLSafeEncoderV2Impl":                                       false,
		"ch_3MmlLrLkdIwHu7ix0snN0B15":                                      false, // object id: short body after a prefix
		"sha512-lCjmC8Sop2rEpWvyGIw8XHSR3IjiuMfPbX3IMbt/fiP+CgpxvE0b4lz6m": false, // named hash
	} {
		if got := randomToken(tok); got != want {
			t.Errorf("randomToken(%q) = %v, want %v", tok, got, want)
		}
	}
}

func TestCardsAndSeeds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		gone bool
	}{
		{"card 4539 1488 0343 6467 exp 09/28 cvv 713", true}, // Luhn-valid Visa, printed groups
		{"card 4539 1488 0343 6468 exp 09/28", false},        // checksum fails
		{"order 4539148803436467 shipped", false},            // one run of digits, no card word
		{"pay with 4539148803436467 09/28", true},            // one run with an expiry date
		{"use 4242 4242 4242 4242 in tests", false},          // published test number
		{strings.Repeat("abandon ", 11) + "about", true},     // BIP39 checksum holds
		{strings.Repeat("abandon ", 11) + "abandon", false},  // no checksum, no wallet word
		{"wallet: " + strings.Repeat("abandon ", 12), true},  // no checksum, a wallet word
	} {
		if got := Text(tc.in) != tc.in; got != tc.gone {
			t.Errorf("%q redacted = %v, want %v (%q)", tc.in, got, tc.gone, Text(tc.in))
		}
	}
	if !strings.Contains(Text("card 4539 1488 0343 6467 cvv 713"), "cvv [REDACTED]") {
		t.Errorf("the security code beside a card was kept: %q", Text("card 4539 1488 0343 6467 cvv 713"))
	}
}

// FuzzText holds Text to what callers rely on for any input: no panic, valid UTF-8 stays valid, and
// a second pass changes nothing.
func FuzzText(f *testing.F) {
	for _, s := range []string{`{"c":"{\"auth\": \"ZGVwbG95OnM0NGx6UXp3MkFtVmhLOWN4\"}"}`, "card 4539 1488 0343 6467 cvv 713",
		strings.Repeat("abandon ", 11) + "about", "AKIAIDVWTFKTANGPVYQE djzYPzxiBzSlHNJqiJ5PqKfUg7z1xtn1DjaiZ9sH",
		`\u5bc6\u7801\u662f Abc!2345`, "https://hooks.slack.com/services/T0/B0/x", "密钥是：abc123XYZ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		once := Text(in)
		if utf8.ValidString(in) && !utf8.ValidString(once) {
			t.Errorf("invalid UTF-8 from %q: %q", in, once)
		}
		if twice := Text(once); twice != once {
			t.Errorf("not idempotent:\n  once:  %q\n  twice: %q", once, twice)
		}
	})
}
