package embed

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// localBERT holds what the BERT family needs besides the session: the
// WordPiece tokenizer and the model's input/output names.
type localBERT struct {
	tk         *tokenizer.Tokenizer
	maxLen     int
	padID      int64
	inputs     []string // subset of input_ids, attention_mask, token_type_ids, in model order
	output     string
	outputRank int // 3: last_hidden_state to pool; 2: already pooled
}

// bertEncoding is one tokenised text, without padding.
type bertEncoding struct {
	ids, types []int64
}

// bertLoad reads tokenizer.json and checks the model's declared inputs and
// outputs against what the BERT path can feed and pool.
func bertLoad(mc localModelConfig, sig localONNXSignature) (*localBERT, error) {
	tk, err := bertLoadTokenizer(mc.TokenizerJS)
	if err != nil {
		return nil, err
	}
	b := &localBERT{tk: tk, maxLen: mc.MaxLength}
	// Forced padding (some exports pad every text to 512) would make every
	// run full length; pad per batch ourselves instead. Truncation keeps
	// texts inside the model's position table.
	tk.WithPadding(nil)
	tk.WithTruncation(&tokenizer.TruncationParams{MaxLength: mc.MaxLength, Strategy: tokenizer.LongestFirst})
	if id, ok := tk.TokenToId("[PAD]"); ok {
		b.padID = int64(id)
	}
	known := map[string]bool{"input_ids": true, "attention_mask": true, "token_type_ids": true}
	hasIDs := false
	for _, in := range sig.Inputs {
		if !known[in.Name] {
			return nil, fmt.Errorf("embed: BERT model %s wants input %q; only input_ids, attention_mask and token_type_ids can be fed", mc.ModelPath, in.Name)
		}
		hasIDs = hasIDs || in.Name == "input_ids"
		b.inputs = append(b.inputs, in.Name)
	}
	if !hasIDs {
		return nil, fmt.Errorf("embed: BERT model %s has no input_ids input", mc.ModelPath)
	}
	// Prefer an already-pooled sentence embedding, else the token states.
	for _, want := range []string{"sentence_embedding", "last_hidden_state"} {
		for _, out := range sig.Outputs {
			if out.Name == want {
				b.output, b.outputRank = out.Name, out.Rank
			}
		}
		if b.output != "" {
			break
		}
	}
	if b.output == "" {
		for _, out := range sig.Outputs {
			if out.Rank == 3 {
				b.output, b.outputRank = out.Name, 3
				break
			}
		}
	}
	if b.output == "" {
		return nil, fmt.Errorf("embed: BERT model %s has no sentence_embedding, last_hidden_state or other [batch, seq, dim] output", mc.ModelPath)
	}
	if b.outputRank == -1 { // undeclared shape: the common exporters' token states
		b.outputRank = 3
	}
	return b, nil
}

// bertLoadTokenizer wraps pretrained.FromFile, which panics on some malformed
// files (unchecked type assertions), so a bad tokenizer.json is an error.
func bertLoadTokenizer(path string) (tk *tokenizer.Tokenizer, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("embed: tokenizer %s: malformed (%v)", path, r)
		}
	}()
	tk, err = pretrained.FromFile(path)
	if err != nil {
		return nil, fmt.Errorf("embed: tokenizer %s: %w", path, err)
	}
	return tk, nil
}

// encode tokenises one text with special tokens. Texts go one at a time:
// sugarme's EncodeBatch calls log.Fatal on any error.
func (b *localBERT) encode(text string) (enc bertEncoding, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tokenizer panicked: %v", r)
		}
	}()
	// Only the first maxLen tokens survive truncation; a token is rarely
	// under one rune, so a generous rune prefix avoids tokenising megabytes.
	if limit := b.maxLen * 16; len(text) > limit {
		text = strings.ToValidUTF8(text[:limit], "")
	}
	// HF's BertNormalizer treats every Unicode space (NBSP, U+3000 in
	// Chinese text) as a word break; sugarme's does not, so map them first.
	text = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, text)
	e, err := b.tk.EncodeSingle(text, true)
	if err != nil {
		return enc, err
	}
	if len(e.Ids) == 0 {
		return enc, fmt.Errorf("tokenizer produced no tokens")
	}
	enc.ids = make([]int64, len(e.Ids))
	enc.types = make([]int64, len(e.Ids))
	for i, id := range e.Ids {
		enc.ids[i] = int64(id)
		if i < len(e.TypeIds) {
			enc.types[i] = int64(e.TypeIds[i])
		}
	}
	return enc, nil
}

// useLiteCheckSignature makes sure a vocab.json folder really holds the
// converted USE-lite graph (indices/values in, embedding out).
func useLiteCheckSignature(sig localONNXSignature) error {
	names := func(vs []localONNXValue) string {
		var s []string
		for _, v := range vs {
			s = append(s, v.Name)
		}
		return strings.Join(s, ",")
	}
	if names(sig.Inputs) != "indices,values" || names(sig.Outputs) != "embedding" {
		return fmt.Errorf("embed: USE-lite model has inputs [%s] and outputs [%s], want [indices,values] and [embedding]",
			names(sig.Inputs), names(sig.Outputs))
	}
	return nil
}
