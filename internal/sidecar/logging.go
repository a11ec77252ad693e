package sidecar

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/somni-dev/somni/internal/dates"
	"github.com/somni-dev/somni/internal/redact"
	"github.com/somni-dev/somni/internal/textcut"
)

// LoggerKey is the attribute that names a logger ("somni.memory"); the
// compat line format prints it as its own column instead of as key=value.
const LoggerKey = "logger"

// DefaultLoggerName is printed when no LoggerKey attribute is set.
const DefaultLoggerName = "somni"

// ParseLevel maps the compat level words (debug, info, warning/warn, error;
// any case) to a slog level.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "DEBUG":
		return slog.LevelDebug, nil
	case "", "INFO":
		return slog.LevelInfo, nil
	case "WARNING", "WARN":
		return slog.LevelWarn, nil
	case "ERROR", "CRITICAL":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %q (want debug, info, warning or error)", s)
}

// LineHandler writes the compat log line
// `2026-11-30T01:02:03.456Z INFO somni.memory message key=value`, one per
// record: the original host picks a level by grepping " ERROR "/" WARNING ".
type LineHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Leveler
	name  string
	attrs string // preformatted " k=v" pairs from With
	group string // dotted prefix for keys from WithGroup
}

// NewLineHandler returns a handler writing to w (stderr in the binary).
func NewLineHandler(w io.Writer, level slog.Leveler) *LineHandler {
	return &LineHandler{mu: &sync.Mutex{}, w: w, level: level, name: DefaultLoggerName}
}

// Enabled implements slog.Handler.
func (h *LineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// Handle implements slog.Handler.
func (h *LineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	b.WriteString(t.UTC().Format(dates.LogLayout))
	b.WriteByte(' ')
	b.WriteString(levelWord(r.Level))
	b.WriteByte(' ')
	name := h.name
	var rest strings.Builder
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == LoggerKey && h.group == "" {
			name = a.Value.String()
			return true
		}
		appendAttr(&rest, h.group, a)
		return true
	})
	b.WriteString(name)
	b.WriteByte(' ')
	b.WriteString(textcut.MarkNewlines(redact.Text(r.Message)))
	b.WriteString(h.attrs)
	b.WriteString(rest.String())
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

// WithAttrs implements slog.Handler; a LoggerKey attr renames the logger.
func (h *LineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range as {
		if a.Key == LoggerKey && h.group == "" {
			h2.name = a.Value.String()
			continue
		}
		appendAttr(&b, h.group, a)
	}
	h2.attrs = b.String()
	return &h2
}

// WithGroup implements slog.Handler by prefixing later keys.
func (h *LineHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.group = h.group + name + "."
	return &h2
}

func levelWord(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "ERROR"
	case l >= slog.LevelWarn:
		return "WARNING"
	case l >= slog.LevelInfo:
		return "INFO"
	}
	return "DEBUG"
}

// appendAttr writes one attr as key=value. Logs leave the memory folders'
// guard (the plugin keeps them in logs/, people paste them into bug
// reports), so messages and values pass the same detector as every memory
// write, before quoting hides their shape from it.
func appendAttr(b *strings.Builder, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			appendAttr(b, p, g)
		}
		return
	}
	b.WriteByte(' ')
	b.WriteString(prefix)
	b.WriteString(a.Key)
	b.WriteByte('=')
	b.WriteString(quoteIfNeeded(redact.Text(a.Value.String())))
}

// quoteIfNeeded keeps simple values bare and quotes the rest, so a value can
// never break the one-record-per-line rule.
func quoteIfNeeded(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if unicode.IsSpace(r) || r == '"' || r == '=' || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
