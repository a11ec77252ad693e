package redact

import (
	"crypto/sha256"
	_ "embed"
	"strings"
	"sync"

	"github.com/somni-dev/somni/internal/lazyre"
)

// bip39English is BIP39's English word list (bitcoin/bips bip-0039/english.txt, the list
// github.com/tyler-smith/go-bip39/wordlists holds, which a test compares it with). Read from a file
// rather than imported: that package splits the lists of nine languages at start-up.
//
//go:embed bip39-english.txt
var bip39English string

// Wallet seed phrases (BIP39): 12, 15, 18, 21 or 24 words of the English BIP39 list, written with
// blanks, commas or list numbers between them (wallets show them numbered). A run whose words carry
// the BIP39 checksum is a phrase; a run without it (typed by hand, or made up) is one only when the
// text speaks of seeds, mnemonics, wallets or recovery, so a vocabulary list of common words that
// happen to be on the list stays.
var (
	bip39Once  sync.Once
	bip39Index map[string]int
	seedWords  = lazyre.New(`(?i)seed|mnemonic|recovery|phrase|wallet|backup|restore|ledger|metamask|助记词|钱包|恢复`)
)

func bip39Words() map[string]int {
	bip39Once.Do(func() {
		words := strings.Fields(bip39English)
		bip39Index = make(map[string]int, len(words))
		for i, w := range words {
			bip39Index[w] = i
		}
	})
	return bip39Index
}

const minSeedWords = 12

// seedSpans finds runs of 12+ list words and returns those that are phrases.
func seedSpans(text string) []span {
	if !hasWordRun(text) {
		return nil
	}
	index := bip39Words()
	var spans []span
	var run []int // word indices of the current run
	runStart, runEnd := -1, -1
	flush := func() {
		if len(run) >= minSeedWords && (validSeed(run) || seedWords().MatchString(text)) {
			spans = append(spans, span{runStart, runEnd})
		}
		run, runStart = run[:0], -1
	}
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && text[j] >= 'a' && text[j] <= 'z' {
			j++
		}
		if j > i {
			w, ok := index[text[i:j]]
			if !ok || (j < len(text) && isWordByte(text[j])) || (i > 0 && isWordByte(text[i-1])) {
				flush()
			} else {
				if runStart < 0 {
					runStart = i
				}
				run, runEnd = append(run, w), j
			}
			i = j
			continue
		}
		if !seedSeparator(text[i]) {
			flush()
		}
		i++
	}
	flush()
	return spans
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// seedSeparator is what may stand between two words of a written phrase: blanks, commas and list
// numbers ("1. abandon 2) ability").
func seedSeparator(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '.' || c == ')' || c >= '0' && c <= '9'
}

// validSeed reports whether some run of 12–24 consecutive words carries the BIP39 checksum: the
// first bits of the SHA-256 of the entropy bits the words encode.
func validSeed(run []int) bool {
	for n := 24; n >= minSeedWords; n -= 3 {
		for off := 0; off+n <= len(run); off++ {
			if checksumOK(run[off : off+n]) {
				return true
			}
		}
	}
	return false
}

func checksumOK(words []int) bool {
	bits := len(words) * 11
	csBits := bits / 33
	buf := make([]byte, (bits+7)/8)
	for i, w := range words {
		for b := 0; b < 11; b++ {
			if w&(1<<(10-b)) != 0 {
				pos := i*11 + b
				buf[pos/8] |= 1 << (7 - pos%8)
			}
		}
	}
	entBytes := (bits - csBits) / 8
	sum := sha256.Sum256(buf[:entBytes])
	for b := 0; b < csBits; b++ {
		pos := entBytes*8 + b
		got := buf[pos/8]>>(7-pos%8)&1 == 1
		want := sum[0]>>(7-b)&1 == 1
		if got != want {
			return false
		}
	}
	return true
}

// hasWordRun is the cheap scan before any lookup: 12 lower case words of 3–8 letters in a row.
func hasWordRun(text string) bool {
	n, letters := 0, 0
	for i := 0; i <= len(text); i++ {
		if i < len(text) && text[i] >= 'a' && text[i] <= 'z' {
			letters++
			continue
		}
		switch {
		case letters >= 3 && letters <= 8:
			if n++; n >= minSeedWords {
				return true
			}
		case letters > 0:
			n = 0
		}
		letters = 0
		if i < len(text) && !seedSeparator(text[i]) {
			n = 0
		}
	}
	return false
}
