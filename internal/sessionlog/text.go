package sessionlog

import (
	"strconv"
	"strings"

	"github.com/somni-dev/somni/internal/memory"
	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/textcut"
)

// label is a header or speaker label as written: visible characters only,
// redacted, one line, capped.
func label(s string) string {
	return markedLine(redactHead(textcut.Visible(s), LabelMaxChars), LabelMaxChars)
}

// chatLabel is a session id as a header's chat_id: one line, with any secret
// in it redacted by the check every name or id that reaches disk passes
// (memory.NameWithoutSecrets). Redacted rather than refused: capture must
// never drop a message, and a chat_id names no file. Two session ids that
// are both secrets read alike, so a restart may resume one user's two such
// sessions in one log; they stay that user's.
func chatLabel(id string) string {
	red, _ := memory.NameWithoutSecrets(id)
	return markedLine(red, 0)
}

func cleanSpeaker(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == ']' || r == '[' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// redactMargin is how far past a field's cut redaction still looks, so a
// secret that straddles the cut is seen whole (the longest formats in the
// secret corpus are private key blocks of ~3 KB).
const redactMargin = 4096

// redactHead redacts the part of text a field keeps (limit runes) and a
// margin past it: a 10 MB paste costs a scan of a few KiB, not of 10 MB.
func redactHead(text string, limit int) string {
	head, _ := textcut.Prefix(text, limit+redactMargin)
	return redact.Text(head)
}

// capMessage keeps the first MessageMaxChars characters and notes how long the original (n characters) was.
func capMessage(text string, n int) string {
	head, cut := textcut.Prefix(text, MessageMaxChars)
	if !cut && n <= MessageMaxChars {
		return text
	}
	return head + "\n...(truncated, original " + strconv.Itoa(n) + " chars)"
}

// appendMessage writes text, indenting any line that would read as a block header by one space.
func appendMessage(b []byte, text string) []byte {
	text = strings.TrimRight(text, "\n")
	if !strings.Contains(text, "\n[") && !strings.HasPrefix(text, "[") {
		return append(b, text...)
	}
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b = append(b, '\n')
		}
		if blockHeaderRe.MatchString(line) {
			b = append(b, ' ')
		}
		b = append(b, line...)
	}
	return b
}

// markedLine trims, turns newlines into ` ⏎ ` (so a reader still sees where lines broke, unlike
// textcut.OneLine, which folds them away) and cuts at limit characters (0 = no limit).
func markedLine(s string, limit int) string {
	return textcut.Clip(textcut.MarkNewlines(strings.TrimSpace(s)), limit, "...(truncated)")
}
