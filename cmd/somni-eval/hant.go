package main

import (
	"fmt"
	"strings"
	"sync"

	"github.com/longbridgeapp/opencc"
)

// hantSuffix marks a Chinese set read in Traditional characters: "zh-Hant".
const hantSuffix = "-Hant"

// toTraditional converts Simplified Chinese text as a writer in Taiwan
// would write it: OpenCC's s2twp (Taiwan characters and vocabulary, 软件 →
// 軟體). The Chinese sets are measured in both scripts, since somni reads
// Traditional text by folding it character by character
// (textseg.FoldHan), which vocabulary differences get past only where
// both sides are written the same way. Nobody wrote these Traditional
// texts: they show how far recall holds when the script changes, not how
// it does on text written in Taiwan.
var toTraditional = sync.OnceValues(func() (func(string) (string, error), error) {
	cc, err := opencc.New("s2twp")
	if err != nil {
		return nil, fmt.Errorf("opencc s2twp: %w", err)
	}
	var mu sync.Mutex // the converter keeps no state, but says nothing of concurrent use
	return func(s string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		return cc.Convert(s)
	}, nil
})

// converter returns the text conversion for lang: Traditional for a
// "-Hant" language, none (nil) otherwise; and the language whose files
// hold the text.
func converter(lang string) (conv func(string) (string, error), base string, err error) {
	base, hant := strings.CutSuffix(lang, hantSuffix)
	if !hant {
		return nil, lang, nil
	}
	conv, err = toTraditional()
	return conv, base, err
}
