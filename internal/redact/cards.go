package redact

import (
	"strings"

	"github.com/somni-dev/somni/internal/lazyre"
)

// Payment card numbers: 13–19 digits that pass the Luhn check and start like a card network's
// numbers (Visa 4, Mastercard 51–55 and 2221–2720, Amex 34/37, Discover 6011/644–649/65, JCB 35,
// UnionPay 62, Diners 300–305/36/38). Written in the groups cards print (4-4-4-4, 4-6-5, 4-4-4-4-3)
// they are taken alone; as one run of digits they also need a card word or an expiry date in the
// text, since order ids and long numeric ids pass the Luhn check one time in ten. The security code
// beside a card (cvv 123) goes with it. Networks' published test numbers are kept.
var (
	cardRe    = lazyre.New(`\b\d{4}(?:[ -]?\d{2,6}){2,4}\b|\b\d{13,19}\b`)
	cardWords = lazyre.New(`(?i)card|visa|master|amex|discover|unionpay|cvv|cvc|\bcid\b|\bexp|卡|有效期|安全码|(?:^|\D)(?:0[1-9]|1[0-2])/\d{2}(?:\D|$)`)
	cvvRe     = lazyre.New(`(?i)(?:\b(?:cvv2?|cvc2?|csc|cid)\b|security code|安全码|校验码)\s*(?:is|:|：|=|为|是)?\s*["']?(?P<v>\d{3,4})\b`)
)

// testCards are the networks' documented test numbers: docs and payment tests quote them.
var testCards = map[string]bool{
	"4242424242424242": true, "4111111111111111": true, "4000056655665556": true, "5555555555554444": true,
	"5105105105105100": true, "2223003122003222": true, "378282246310005": true, "371449635398431": true,
	"6011111111111117": true, "3566002020360505": true, "6200000000000005": true, "4012888888881881": true,
}

func cardSpans(text string) []span {
	if digitCount(text) < 13 {
		return nil
	}
	var spans []span
	context := -1 // unknown until a run of digits needs it
	for _, m := range cardRe().FindAllStringIndex(text, -1) {
		raw, digits, ok := cardIn(text[m[0]:m[1]])
		if !ok {
			continue
		}
		m[1] = m[0] + len(raw)
		if grouped := digits != raw; grouped && !cardGroups(raw) {
			continue
		} else if !grouped {
			if context < 0 {
				context = btoi(cardWords().MatchString(text))
			}
			if context == 0 {
				continue
			}
		}
		spans = append(spans, span{m[0], m[1]})
	}
	if len(spans) > 0 {
		for _, m := range cvvRe().FindAllStringSubmatchIndex(text, -1) {
			spans = append(spans, span{m[2], m[3]})
		}
	}
	return spans
}

// cardIn finds the card number at the start of a match: the match may run on into an expiry month
// or a security code written after the number ("4539 1488 0343 6467 09/28"), so groups are dropped
// from its end until the digits pass the checks.
func cardIn(raw string) (string, string, bool) {
	for {
		digits := strings.NewReplacer(" ", "", "-", "").Replace(raw)
		if len(digits) < 13 {
			return "", "", false
		}
		if len(digits) <= 19 && luhn(digits) && cardNetwork(digits) && !testCards[digits] {
			return raw, digits, true
		}
		cut := strings.LastIndexAny(raw, " -")
		if cut < 0 {
			return "", "", false
		}
		raw = raw[:cut]
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func digitCount(text string) int {
	n := 0
	for i := 0; i < len(text); i++ {
		if text[i] >= '0' && text[i] <= '9' {
			n++
		}
	}
	return n
}

// cardGroups reports the groupings printed on cards: 4-4-4-4(-3), Amex's 4-6-5, UnionPay's 4-4-4-4-3
// or 6-13, with one kind of separator.
func cardGroups(raw string) bool {
	sep := " "
	if strings.Contains(raw, "-") {
		sep = "-"
		if strings.Contains(raw, " ") {
			return false
		}
	}
	var lens []int
	for _, g := range strings.Split(raw, sep) {
		lens = append(lens, len(g))
	}
	switch len(lens) {
	case 3:
		return lens[0] == 4 && lens[1] == 6 && (lens[2] == 5 || lens[2] == 4)
	case 4, 5:
		for i, n := range lens {
			if n != 4 && !(i == 4 && n == 3) {
				return false
			}
		}
		return true
	}
	return false
}

func luhn(digits string) bool {
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if (len(digits)-1-i)%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

func cardNetwork(d string) bool {
	p2 := int(d[0]-'0')*10 + int(d[1]-'0')
	p4 := p2*100 + int(d[2]-'0')*10 + int(d[3]-'0')
	switch {
	case d[0] == '4':
		return true
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720:
		return len(d) == 16
	case p2 == 34 || p2 == 37:
		return len(d) == 15
	case p4 == 6011, p2 == 65, p4/10 >= 644 && p4/10 <= 649, p2 == 35, p2 == 62:
		return true
	case p4/10 >= 300 && p4/10 <= 305, p2 == 36, p2 == 38:
		return len(d) >= 14
	}
	return false
}
