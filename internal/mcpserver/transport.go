package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/somni-dev/somni/internal/rpc"
)

// NewStdioTransport is the MCP transport over newline-delimited JSON on r
// and w with the JSON-RPC side's manners. The SDK's own reader ends the
// session on the first line it cannot decode; here every line is checked
// first, under the same bound and rules as internal/rpc, and a bad one is
// answered with the error a client can act on (-32700 for what is not a
// JSON object, -32600 for an object that is no request or reply) and
// skipped. Only lines the SDK decodes reach it.
func NewStdioTransport(r io.Reader, w io.Writer, logger *slog.Logger) mcp.Transport {
	if logger == nil {
		logger = slog.Default()
	}
	return &guardedTransport{r: r, w: &frameWriter{w: w}, logger: logger}
}

type guardedTransport struct {
	r      io.Reader
	w      *frameWriter
	logger *slog.Logger
}

// Connect starts the guard and hands the SDK the lines that passed it.
func (t *guardedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	go t.guard(rpc.NewLineReader(t.r, rpc.MaxFrameBytes), pw)
	// The guard already bounds a line; the SDK's own, smaller default
	// would end the session on a line the guard let through.
	inner := &mcp.IOTransport{Reader: pr, Writer: t.w, MaxLineLength: rpc.MaxFrameBytes + 1}
	conn, err := inner.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: connect: %w", err)
	}
	return conn, nil
}

// guard copies good lines to pw until the input ends or the SDK stops
// reading, and answers the rest itself.
func (t *guardedTransport) guard(lr *rpc.LineReader, pw *io.PipeWriter) {
	for {
		line, err := lr.Next()
		if err != nil && !errors.Is(err, rpc.ErrFrameTooLarge) {
			if err == io.EOF {
				err = nil
			}
			_ = pw.CloseWithError(err) // nil: the SDK reads EOF
			return
		}
		var id []byte
		var code int64
		var msg string
		if err != nil {
			code, msg = rpc.CodeParseError, fmt.Sprintf("parse error: frame exceeds %d bytes", lr.Limit())
		} else if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		} else {
			id, code, msg = checkLine(line)
		}
		if code != 0 {
			t.logger.Warn("mcp: rejected frame", "code", code, "reason", msg)
			t.reply(id, code, msg)
			continue
		}
		if _, err := pw.Write(append(line, '\n')); err != nil {
			return // the SDK closed the session
		}
	}
}

// checkLine is internal/rpc's check plus what the SDK's decoder insists
// on (the "2.0" version tag); code 0 means the SDK will decode the line.
func checkLine(line []byte) (id []byte, code int64, msg string) {
	id, code, msg = rpc.CheckFrame(line)
	if code != 0 {
		return id, code, msg
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return id, rpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return nil, 0, ""
}

// reply writes one error frame between the SDK's frames.
func (t *guardedTransport) reply(id []byte, code int64, msg string) {
	frame, err := rpc.ErrorFrame(id, code, msg)
	if err != nil {
		t.logger.Error("mcp: cannot encode an error frame", "err", err)
		return
	}
	if _, err := t.w.Write(append(frame, '\n')); err != nil {
		t.logger.Warn("mcp: cannot send an error frame", "err", err)
	}
}

// frameWriter serialises whole frames from the SDK and the guard: each
// writes one frame per Write call. Closing it leaves the process's stdout
// open for the process exit.
type frameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (f *frameWriter) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.w.Write(b)
}

func (f *frameWriter) Close() error { return nil }
